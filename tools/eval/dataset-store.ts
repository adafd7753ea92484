import { newMemoryId, newUuid } from '../../src/core/ids.js';
import type { EmbedderInfo } from '../../src/embeddings/types.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { EvalMemory } from './dataset.js';
import { DATASET_ID_KEY } from './service-recall.js';

/**
 * A data set's memories in an in-memory SQLite store, with vectors made beforehand (the tuning cache, or the
 * calibration tool's batches), the dataset id in metadata as `npm run eval` keeps it.
 */
export async function datasetStore(
  memories: readonly EvalMemory[],
  info: EmbedderInfo,
  vectorOf: (memory: EvalMemory) => Float32Array | undefined,
): Promise<SqliteStore> {
  const store = SqliteStore.open({ path: ':memory:' });
  await store.useModel(info);
  const app = await store.ensureApp('default');
  for (const m of memories) {
    const embedding = vectorOf(m);
    if (embedding === undefined) throw new Error(`No embedding for ${m.id}`);
    await store.insertMemory({
      id: newMemoryId(),
      uuid: newUuid(),
      userId: m.userId,
      appId: app.id,
      text: m.text,
      metadata: { [DATASET_ID_KEY]: m.id },
      createdAt: new Date(m.createdAt).toISOString(),
      embedding,
    });
  }
  return store;
}
