/**
 * Tuning only: the real MemoryService over an in-memory SQLite store filled from the embedding cache, so that a
 * ranking variant is evaluated through the same recall pipeline as the product in seconds. Texts missing from the
 * cache (a new query rewrite) are embedded once by the real model and cached.
 */
import { EmbeddingState } from '../../src/core/embedding-state.js';
import type { Ranker } from '../../src/core/ranking/types.js';
import type { CandidateQuery, MemoryStore, WordMatchQuery } from '../../src/core/store.js';
import { MemoryService } from '../../src/core/service.js';
import { createEmbedder } from '../../src/embeddings/index.js';
import type { EmbedKind, Embedder, EmbedderInfo } from '../../src/embeddings/types.js';
import type { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { EvalMemory } from './dataset.js';
import { datasetStore } from './dataset-store.js';
import type { EmbedCache } from './embed-cache.js';

const INFO: EmbedderInfo = { model: 'use-lite', dimension: 512 };

/** Serves vectors from the cache; loads the real model only when a text is missing. */
export class CachedEmbedder implements Embedder {
  readonly model = INFO.model;
  #real: Embedder | undefined;

  constructor(private readonly cache: EmbedCache) {}

  ready(): Promise<EmbedderInfo> {
    return Promise.resolve(INFO);
  }

  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (texts.some((t) => this.cache.get(t) === undefined)) {
      this.#real ??= createEmbedder();
      await this.cache.fill(this.#real, texts, kind);
    }
    return texts.map((t) => this.cache.get(t) as Float32Array);
  }

  async close(): Promise<void> {
    this.cache.save();
    await this.#real?.close();
  }
}

/** The data set's memories with their cached vectors (fill the cache first). */
export function cachedStore(memories: readonly EvalMemory[], cache: EmbedCache): Promise<SqliteStore> {
  return datasetStore(memories, INFO, (m) => cache.get(m.text));
}

/**
 * The store with its two search calls (`findWordMatches`, `recallCandidates`) memoised per query: ranking variants
 * that plan the same search reuse its candidates, so a variant costs the ranking alone.
 */
export function memoisedStore(store: MemoryStore): MemoryStore {
  const memo = new Map<string, Promise<unknown>>();
  const memoised = <Q, R>(name: string, call: (query: Q) => Promise<R>) => (query: Q): Promise<R> => {
    const key = JSON.stringify([name, query], (_, value: unknown) =>
      value instanceof Float32Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') : value,
    );
    let hit = memo.get(key) as Promise<R> | undefined;
    if (hit === undefined) {
      hit = call(query);
      memo.set(key, hit);
    }
    return hit;
  };
  const findWordMatches = memoised('words', (q: WordMatchQuery) => store.findWordMatches(q));
  const recallCandidates = memoised('candidates', (q: CandidateQuery) => store.recallCandidates(q));
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'findWordMatches') return findWordMatches;
      if (prop === 'recallCandidates') return recallCandidates;
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export function cachedService(store: MemoryStore, embedder: CachedEmbedder, ranker: Ranker): MemoryService {
  const embeddings = new EmbeddingState(embedder, embedder.ready());
  return new MemoryService({ store, embeddings, ranker });
}
