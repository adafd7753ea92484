/**
 * An embedding model as the core sees it, declared here as the store interface is (`store.ts`): src/embeddings
 * implements it. Implementations keep model work off the event loop (a worker thread) or make it trivial (the hash
 * model), and return unit-length vectors, so that cosine similarity is a dot product.
 */

export interface EmbedderInfo {
  /** Stable model name recorded in the database, e.g. "use-lite" or "Xenova/all-MiniLM-L6-v2". */
  model: string;
  dimension: number;
}

/** Queries and documents may be prepared differently (some models want an instruction prefix on queries). */
export type EmbedKind = 'query' | 'document';

export interface Embedder {
  /** Known before loading: it names the model in settings and in the database record. */
  readonly model: string;
  /** Loads and warms the model; resolves with its info, rejects with a clear message when it cannot load. */
  ready(): Promise<EmbedderInfo>;
  /**
   * One unit-length Float32Array per text, in order. Rejects if the model is not ready or failed to load. `caller`
   * (an API key id) lets an implementation that queues share the model fairly between callers.
   */
  embed(texts: readonly string[], kind: EmbedKind, caller?: string): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/**
 * A failure of the model's server that may pass (a network error, a timeout, 5xx, 429 after the retries): an
 * embedder marks such errors with `transient: true` (embeddings/endpoint.ts). A store then keeps the memory without
 * its vector, pending, for the backfill (runtime/backfill.ts); anything else (401/403, a malformed answer, a vector
 * of another dimension, a local model's failure) stays an error.
 */
export function isTransientEmbedFailure(error: unknown): boolean {
  return error instanceof Error && (error as { transient?: unknown }).transient === true;
}
