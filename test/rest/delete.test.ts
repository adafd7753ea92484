import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BACKEND, startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

async function store(userId: string, text: string, appId?: string): Promise<string> {
  const res = await server.call('/v1/memories', { method: 'POST', json: { userId, text, ...(appId ? { appId } : {}) } });
  return ((await res.json()) as { id: string }).id;
}

async function total(userId: string): Promise<number> {
  return ((await (await server.call(`/v1/memories/${userId}`)).json()) as { total: number }).total;
}

async function uuidOf(id: string): Promise<string> {
  const memory = await server.runtime.store.getMemory({ kind: 'id', value: id }, { appId: null });
  if (!memory) throw new Error(`no memory ${id}`);
  return memory.uuid;
}

describe('DELETE /v1/memories/:id', () => {
  it('deletes by short id, idempotently', async () => {
    const id = await store('del', 'to delete');
    expect(await (await server.call(`/v1/memories/${id}`, { method: 'DELETE' })).json()).toEqual({ deleted: 1 });
    expect(await (await server.call(`/v1/memories/${id}`, { method: 'DELETE' })).json()).toEqual({ deleted: 0 });
  });

  it('deletes by UUID, in any letter case', async () => {
    const id = await store('del', 'by uuid');
    const uuid = (await uuidOf(id)).toUpperCase();
    expect(await (await server.call(`/v1/memories/${uuid}`, { method: 'DELETE' })).json()).toEqual({ deleted: 1 });
  });

  it.each(['abc', 'mem_short', 'mem_0123456789ABx', '123e4567-e89b-12d3-a456'])('rejects the malformed id %s with 422', async (id) => {
    const res = await server.call(`/v1/memories/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorJson).error.code).toBe('validation_error');
  });

  it('removes the memory from recall as well as from the list', async () => {
    const id = await store('ghost', 'The ghost memory about lighthouses.');
    await server.call(`/v1/memories/${id}`, { method: 'DELETE' });
    const res = await server.call('/v1/memories/recall?userId=ghost&query=lighthouses&minScore=0');
    expect(((await res.json()) as { memories: unknown[] }).memories).toEqual([]);
    if (TEST_BACKEND !== 'sqlite') return;
    // On SQLite vectors live in a separate table: nothing may be left behind there.
    const db = server.sqlite();
    const orphans = db.prepare('SELECT COUNT(*) AS n FROM memory_vectors WHERE rowid NOT IN (SELECT rowid FROM memories)').get() as { n: number };
    expect(orphans.n).toBe(0);
  });
});

describe('POST /v1/memories/batch-delete', () => {
  it('deletes the listed ids in either form, skipping unknown ones', async () => {
    const a = await store('batch', 'a');
    const b = await store('batch', 'b');
    await store('batch', 'c');
    const res = await server.call('/v1/memories/batch-delete', {
      method: 'POST',
      json: { ids: [a, await uuidOf(b), 'mem_000000000000'] },
    });
    expect(await res.json()).toEqual({ deleted: 2 });
    expect(await total('batch')).toBe(1);
  });

  it.each([{ ids: [] }, { ids: 'mem_000000000000' }, { ids: ['nope'] }, {}, { ids: Array.from({ length: 1001 }, () => 'mem_000000000000') }])(
    'rejects %j with 422 and deletes nothing',
    async (json) => {
      const before = await total('batch');
      const res = await server.call('/v1/memories/batch-delete', { method: 'POST', json });
      expect(res.status).toBe(422);
      expect(await total('batch')).toBe(before);
    },
  );
});

describe('DELETE /v1/memories?userId=', () => {
  it('deletes all of a user, or only one app', async () => {
    await store('wipe', 'one');
    await store('wipe', 'two', 'side');
    await store('keep', 'three');
    expect(await (await server.call('/v1/memories?userId=wipe&appId=side', { method: 'DELETE' })).json()).toEqual({ deleted: 1 });
    expect(await (await server.call('/v1/memories?userId=wipe', { method: 'DELETE' })).json()).toEqual({ deleted: 1 });
    expect(await total('wipe')).toBe(0);
    expect(await total('keep')).toBe(1);
  });

  it('requires userId', async () => {
    const res = await server.call('/v1/memories', { method: 'DELETE' });
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorJson).error.details?.[0]?.path).toBe('userId');
  });
});
