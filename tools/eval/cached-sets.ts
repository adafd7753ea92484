/**
 * Tuning only: the suite's sets (or the folders named) with their memories in in-memory stores filled from the
 * embedding cache, embedding with the real model only what the cache lacks. Shared by the tuning harness and the
 * feature dump, so both read the same data the same way.
 */
import { createEmbedder } from '../../src/embeddings/index.js';
import type { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { MemoryStore } from '../../src/core/store.js';
import { cachedStore, memoisedStore } from './cached-service.js';
import { firstUsers, loadEvalData, type EvalData } from './dataset.js';
import type { EmbedCache } from './embed-cache.js';
import { evalSetOf, tuningSets, type EvalSet } from './suite.js';

export interface CachedSet {
  set: EvalSet;
  data: EvalData;
  store: SqliteStore;
  /** The store with its searches memoised per query (variants that plan the same search share its candidates). */
  memoised: MemoryStore;
}

/** `dirs`: comma-separated folders, or the suite's tuning sets (all but check-only) when undefined; `maxUsers`: the first N users of each. */
export async function loadCachedSets(cache: EmbedCache, dirs: string | undefined, maxUsers: number | undefined): Promise<CachedSet[]> {
  const sets = dirs === undefined ? tuningSets() : dirs.split(',').map((dir) => evalSetOf(dir));
  const loaded: CachedSet[] = [];
  for (const set of sets) {
    const data = firstUsers(loadEvalData(set.dir), maxUsers);
    const missing = data.memories.filter((m) => cache.get(m.text) === undefined);
    if (missing.length > 0) {
      const embedder = createEmbedder();
      console.error(`${set.name}: embedding ${missing.length} memories into the cache...`);
      await cache.fill(embedder, missing.map((m) => m.text), 'document', (d, t) => console.error(`  ${d}/${t}`));
      await embedder.close();
    }
    const store = await cachedStore(data.memories, cache);
    loaded.push({ set, data, store, memoised: memoisedStore(store) });
  }
  return loaded;
}
