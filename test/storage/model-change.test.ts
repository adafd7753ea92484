/**
 * A server keeps running while `agent-memory reembed` (another process, another machine) changes the database's
 * embedding model under it. From then on its own vectors are of the wrong model: every store and recall must answer
 * 503 with what to do, never store such a vector and never fail with a 500. Both backends, two handles on one database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newMemoryId, newUuid } from '../../src/core/ids.js';
import type { MemoryStore, ModelRecord, NewMemory } from '../../src/core/store.js';
import { openPgStore } from '../../src/storage/postgres/index.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { startTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { unit } from './store-contract.js';

const OLD: ModelRecord = { model: 'old-model', dimension: 4 };
const SAME_SIZE: ModelRecord = { model: 'new-model', dimension: 4 };
const BIGGER: ModelRecord = { model: 'bigger-model', dimension: 6 };

let pg: TestDatabase;
const dir = mkdtempSync(join(tmpdir(), 'am-model-change-'));
beforeAll(async () => {
  pg = await startTestDatabase();
});
afterAll(async () => {
  await pg?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Pair = { server: MemoryStore; reembedder: MemoryStore; close: () => Promise<void> };

const backends: Array<[string, () => Promise<Pair>]> = [
  [
    'sqlite',
    () => {
      const path = join(dir, `${newUuid()}.db`);
      const server = SqliteStore.open({ path });
      const reembedder = SqliteStore.open({ path });
      return Promise.resolve({ server, reembedder, close: async () => void (await Promise.all([server.close(), reembedder.close()])) });
    },
  ],
  [
    'postgres',
    async () => {
      const schema = pg.newSchema();
      const server = await openPgStore(pg.url, { schema });
      const reembedder = await openPgStore(pg.url, { schema });
      return {
        server,
        reembedder,
        close: async () => {
          await Promise.all([server.close(), reembedder.close()]);
          await pg.dropSchema(schema);
        },
      };
    },
  ],
];

function memory(appId: string, text: string, dimension: number): NewMemory {
  return {
    id: newMemoryId(),
    uuid: newUuid(),
    userId: 'u',
    appId,
    text,
    metadata: {},
    createdAt: new Date().toISOString(),
    embedding: unit(Array.from({ length: dimension }, (_, i) => (i === 0 ? 1 : 0.1))),
  };
}

describe.each(backends)('a model changed under a running server (%s)', (_, open) => {
  it.each([
    ['same dimension', SAME_SIZE],
    ['another dimension', BIGGER],
  ])('answers 503 to stores and recalls after a reembed to a model of the %s, and stores nothing', async (_label, next) => {
    const { server, reembedder, close } = await open();
    try {
      await server.useModel(OLD);
      const app = await server.ensureApp('default');
      await server.insertMemory(memory(app.id, 'before the swap', OLD.dimension));
      await reembedder.useModel(OLD);
      const stored = await reembedder.exportMemories(null, 10);
      await reembedder.replaceEmbeddings({
        model: next,
        vectors: new Map(stored.memories.map((m) => [m.id, unit(Array.from({ length: next.dimension }, () => 1))])),
        embedMissing: (ms) => Promise.resolve(ms.map(() => unit(Array.from({ length: next.dimension }, () => 1)))),
      });

      const refused = { code: 'unavailable', message: expect.stringMatching(/restart the server/) as unknown };
      await expect(server.insertMemory(memory(app.id, 'old-model vector', OLD.dimension))).rejects.toMatchObject(refused);
      await expect(server.insertMemories([memory(app.id, 'old-model batch', OLD.dimension)])).rejects.toMatchObject(refused);
      const search = { userId: 'u', scope: { appId: null }, embedding: unit([1, 0, 0, 0]), vectorK: 5, alsoIds: [] };
      await expect(server.recallCandidates(search)).rejects.toMatchObject(refused);
      expect(await server.countMemories()).toBe(1);

      // The node that made the swap goes on with the new model.
      await reembedder.insertMemory(memory(app.id, 'after the swap', next.dimension));
      expect(await reembedder.countMemories()).toBe(2);
    } finally {
      await close();
    }
  });
});
