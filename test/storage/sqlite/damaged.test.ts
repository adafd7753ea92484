import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryError } from '../../../src/core/errors.js';
import { HASH_DIMENSION } from '../../../src/embeddings/hashing.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';
import { hashVector, newMemory } from '../../helpers/memories.js';
import { startTestServer, TEST_MODEL, type ErrorJson, type TestServer } from '../../helpers/server.js';
import { Database } from '../../../src/storage/sqlite/connection.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-memory-damaged-'));
const dbPath = join(dir, 'memory.db');
let server: TestServer;

/** A database of the server's model with memories, whose `memories` table and indexes are then overwritten. */
async function damagedDatabase(): Promise<void> {
  const store = SqliteStore.open({ path: dbPath });
  await store.useModel({ model: TEST_MODEL, dimension: HASH_DIMENSION });
  const appId = (await store.ensureApp('default')).id;
  await store.insertMemories(
    Array.from({ length: 300 }, (_, i) =>
      newMemory({ userId: 'alice', appId, text: `Alice fact number ${i}, long enough to fill pages.`, embedding: hashVector(String(i), HASH_DIMENSION) }),
    ),
  );
  await store.close();
  const raw = new Database(dbPath, { readonly: true });
  const pageSize = Number(raw.pragma('page_size', { simple: true }));
  const roots = raw.prepare("SELECT rootpage FROM sqlite_master WHERE tbl_name = 'memories' AND rootpage > 0").pluck().all() as number[];
  raw.close();
  const fd = openSync(dbPath, 'r+');
  for (const page of roots) writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);
}

beforeAll(async () => {
  await damagedDatabase();
  server = await startTestServer({ dbPath });
});
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a damaged database file', () => {
  it('is reported unavailable (503) once found, on every route and on /healthz, never a 500 or a store into it', async () => {
    const list = await server.call('/v1/memories?userId=alice');
    expect(list.status).toBe(503);
    expect(((await list.json()) as ErrorJson).error.message).toMatch(/damaged/);
    const store = await server.call('/v1/memories', { method: 'POST', json: { userId: 'bob', text: 'Bob likes tea.' } });
    expect(store.status).toBe(503);
    expect(store.headers.get('retry-after')).toBe('60');
    const recall = await server.call('/v1/memories/recall?userId=alice&query=fact');
    expect(recall.status).toBe(503);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'unavailable', store: 'unavailable', reason: expect.stringMatching(/damaged/) });
  });

  it('that is not a database at all is refused at start with a sentence', () => {
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, Buffer.alloc(8192, 0x42));
    const error = (() => {
      try {
        SqliteStore.open({ path: junk });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(MemoryError);
    expect((error as MemoryError).message).toBe(`${junk} is damaged or is not an agent-memory database.`);
  });
});
