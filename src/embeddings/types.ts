/**
 * The Embedder interface lives in core (src/core/embedder.ts). This re-export remains for the evaluation and
 * calibration tools (tools/eval, tools/calibration), which import it from here; new code imports from core.
 */
export type { EmbedKind, Embedder, EmbedderInfo } from '../core/embedder.js';
