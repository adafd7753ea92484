/** A real MemoryService over SQLite in memory and the hash model, with a ranker of the given parameters (ranking tests). */
import { EmbeddingState } from '../../src/core/embedding-state.js';
import { DEFAULT_CALIBRATION } from '../../src/core/ranking/calibration.js';
import { HybridRanker, paramsFor, type RankerParams } from '../../src/core/ranking/hybrid-ranker.js';
import { MemoryService } from '../../src/core/service.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { HashingEmbedder } from '../../src/embeddings/hashing.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

/** Stores `memories` for `userId`, runs `run` with the service, and closes the store whatever happens. */
export async function withHashService<T>(
  params: Partial<RankerParams>,
  userId: string,
  memories: readonly string[],
  run: (service: MemoryService) => Promise<T>,
): Promise<T> {
  const embedder = new HashingEmbedder();
  const store = SqliteStore.open({ path: ':memory:' });
  const ranker = new HybridRanker(paramsFor({ ...DEFAULT_CALIBRATION, model: 'hash' }, params));
  const modelReady = embedder.ready().then(async (info) => {
    await store.useModel(info);
    return info;
  });
  const service = new MemoryService({ store, embeddings: new EmbeddingState(embedder, modelReady), ranker });
  try {
    for (const text of memories) await service.store(LOCAL_CALLER, { userId, text });
    return await run(service);
  } finally {
    await store.close();
  }
}
