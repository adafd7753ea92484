/**
 * The vector helpers live in core (src/core/vector.ts): the embedders and the SQLite search both use them. This
 * re-export remains for the calibration tool (tools/calibration), which imports it from here.
 */
export { cosineSimilarity, dot, isUnitVector, l2Norm, normalizeInPlace, toUnitVector } from '../core/vector.js';
