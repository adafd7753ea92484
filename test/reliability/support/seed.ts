/**
 * Fills a database file directly (no model, no HTTP) with many memories for one user, so that recalls have real
 * work to do. Vectors are random unit vectors of the test model's dimension; the texts share common words so that
 * the word index matches many of them.
 */
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';
import { newMemoryId, newUuid } from '../../../src/core/ids.js';
import type { ModelRecord } from '../../../src/core/store.js';
import { prng } from './http.js';
import { HASH_DIMENSION } from '../../../src/embeddings/hashing.js';
import { TEST_MODEL } from '../../helpers/server.js';

/** The model record of the servers these databases are opened by (the test model; see test/helpers/server.ts). */
export const SEED_MODEL = { model: TEST_MODEL, dimension: HASH_DIMENSION } as const;

const WORDS = ['coffee', 'travel', 'music', 'garden', 'python', 'budget', 'meeting', 'family', 'running', 'recipe'];

export async function seedMemories(
  dbPath: string,
  options: { userId: string; count: number; app?: string; seed?: number; model?: ModelRecord },
): Promise<string[]> {
  const random = prng(options.seed ?? 1);
  const store = SqliteStore.open({ path: dbPath });
  try {
    await store.useModel(options.model ?? SEED_MODEL);
    const app = await store.ensureApp(options.app ?? 'default');
    const ids: string[] = [];
    const pending: Array<Promise<unknown>> = [];
    // The store runs each insert synchronously inside its own call; one outer transaction makes them one commit.
    store.database.transaction(() => {
      for (let i = 0; i < options.count; i++) {
      const v = new Float32Array((options.model ?? SEED_MODEL).dimension);
      let norm = 0;
      for (let d = 0; d < v.length; d++) {
        v[d] = random() - 0.5;
        norm += (v[d] ?? 0) ** 2;
      }
      norm = Math.sqrt(norm);
      for (let d = 0; d < v.length; d++) v[d] = (v[d] ?? 0) / norm;
      const w = (_k: number) => WORDS[Math.floor(random() * WORDS.length)] ?? 'coffee';
      const id = newMemoryId();
      pending.push(store.insertMemory({
        id,
        uuid: newUuid(),
        userId: options.userId,
        appId: app.id,
        text: `Seeded note ${i} about ${w(0)}, ${w(1)} and ${w(2)}.`,
        metadata: { i },
        createdAt: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
        embedding: v,
      }));
      ids.push(id);
    }
    })();
    await Promise.all(pending);
    return ids;
  } finally {
    await store.close();
  }
}
