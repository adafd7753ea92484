/**
 * Keys of the caller's own over REST: PUT /v1/memories/by-key/{key} creates (201) or replaces (200, same id) the
 * memory holding the key in its user and app, GET and DELETE address it, racing PUTs end with one memory, and bad
 * keys, missing keys and other apps' keys are refused in the contract's shape. Runs on SQLite, and on PostgreSQL
 * with TEST_BACKEND=postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/core/key-admin.js';
import { LIMITS } from '../../src/core/limits.js';
import { startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

interface Memory {
  id: string;
  userId: string;
  appId: string;
  key?: string;
  text: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
}

let server: TestServer;
let otherAppKey: string;

beforeAll(async () => {
  server = await startTestServer();
  otherAppKey = (await createApiKey(server.runtime.store, { app: 'other' })).key;
});
afterAll(async () => {
  await server.stop();
});

const byKey = (key: string, query = '') => `/v1/memories/by-key/${encodeURIComponent(key)}${query}`;

async function json<T>(path: string, init: RequestInit & { json?: unknown } = {}, status = 200): Promise<T> {
  const res = await server.call(path, init);
  const body = (await res.json()) as T;
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body;
}

async function error(path: string, init: RequestInit & { json?: unknown }, status: number): Promise<ErrorJson['error']> {
  return (await json<ErrorJson>(path, init, status)).error;
}

const put = (body: unknown, headers: Record<string, string> = {}) => ({ method: 'PUT', json: body, headers }) as const;

async function list(userId: string, appId?: string): Promise<{ memories: Memory[]; total: number }> {
  return json(`/v1/memories?userId=${encodeURIComponent(userId)}${appId === undefined ? '' : `&appId=${appId}`}`);
}

describe('PUT /v1/memories/by-key/{key}', () => {
  it('creates with 201, then replaces text, vector and metadata with 200 under the same id', async () => {
    const created = await json<Memory>(byKey('profile:city'), put({ userId: 'kim', text: 'Kim lives in Seattle.', metadata: { v: 1 } }), 201);
    expect(created).toMatchObject({ userId: 'kim', appId: 'default', key: 'profile:city', text: 'Kim lives in Seattle.', metadata: { v: 1 } });
    expect(created.updatedAt).toBe(created.createdAt);
    await new Promise((resolve) => setTimeout(resolve, 5));

    const updated = await json<Memory>(byKey('profile:city'), put({ userId: 'kim', text: 'Kim moved to Lisbon in spring.', metadata: { v: 2 } }));
    expect(updated).toMatchObject({ id: created.id, createdAt: created.createdAt, key: 'profile:city', text: 'Kim moved to Lisbon in spring.', metadata: { v: 2 } });
    expect(updated.updatedAt > created.updatedAt).toBe(true);
    expect(await json<Memory>(byKey('profile:city', '?userId=kim'))).toEqual(updated);

    // One memory, and recall finds it by its new words only: the vector and the words were replaced with the text.
    const all = await list('kim');
    expect(all.total).toBe(1);
    expect(all.memories[0]).toMatchObject({ id: created.id, key: 'profile:city' });
    const recall = async (query: string) =>
      (await json<{ memories: Memory[] }>('/v1/memories/recall', { method: 'POST', json: { userId: 'kim', query, minScore: 0 } })).memories;
    expect((await recall('Lisbon spring')).map((m) => m.id)).toEqual([created.id]);
    expect((await recall('Seattle')).filter((m) => m.text.includes('Seattle'))).toEqual([]);
    // The metadata index follows: the old value no longer matches a filter, the new one does.
    expect((await json<{ total: number }>(`/v1/memories?userId=kim&metadata=${encodeURIComponent('{"v":1}')}`)).total).toBe(0);
    expect((await json<{ total: number }>(`/v1/memories?userId=kim&metadata=${encodeURIComponent('{"v":2}')}`)).total).toBe(1);
  });

  it('replaces the memory whole: absent metadata and expiry are cleared, createdAt applies only on creation', async () => {
    const first = await json<Memory>(
      byKey('whole'),
      put({ userId: 'whole', text: 'First version.', metadata: { a: 1 }, ttlSeconds: 3600, createdAt: '2024-01-02T03:04:05Z' }),
      201,
    );
    expect(first).toMatchObject({ createdAt: '2024-01-02T03:04:05.000Z', metadata: { a: 1 } });
    expect(first.expiresAt).not.toBeNull();
    const second = await json<Memory>(byKey('whole'), put({ userId: 'whole', text: 'Second version.', createdAt: '2025-01-01T00:00:00Z' }));
    expect(second).toMatchObject({ id: first.id, createdAt: '2024-01-02T03:04:05.000Z', metadata: {}, expiresAt: null });
  });

  it('keeps keys apart by user and app, and a key lives on in its app only', async () => {
    const a = await json<Memory>(byKey('k'), put({ userId: 'ua', text: 'Same key, user a.' }), 201);
    const b = await json<Memory>(byKey('k'), put({ userId: 'ub', text: 'Same key, user b.' }), 201);
    const c = await json<Memory>(byKey('k'), put({ userId: 'ua', appId: 'notes', text: 'Same key, user a, app notes.' }), 201);
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect((await json<Memory>(byKey('k', '?userId=ua'))).id).toBe(a.id);
    expect((await json<Memory>(byKey('k', '?userId=ua&appId=notes'))).id).toBe(c.id);
    expect(await error(byKey('k', '?userId=uc'), {}, 404)).toMatchObject({ code: 'not_found' });
    expect(await error(byKey('k', '?userId=ua&appId=nowhere'), {}, 404)).toMatchObject({ code: 'not_found' });
  });

  it('takes any key a URL segment carries unchanged: spaces, unicode, "%", "?" and "#" percent-encoded', async () => {
    for (const key of ['a b', 'caf\u00e9 \u2615', '100%', 'what?', '#1', 'x'.repeat(LIMITS.memoryKeyMaxLength)]) {
      const made = await json<Memory>(byKey(key), put({ userId: 'odd-keys', text: `Stored under ${key.slice(0, 20)} ${key.length}.` }), 201);
      expect(made.key).toBe(key);
      expect((await json<Memory>(byKey(key, '?userId=odd-keys'))).id).toBe(made.id);
    }
  });

  it('ends with one memory when the same PUT arrives many times at once', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const res = await server.call(byKey('raced'), put({ userId: 'racer', text: `Raced write number ${i}.` }));
        const body = (await res.json()) as Memory;
        return { status: res.status, id: body.id };
      }),
    );
    expect(statuses.filter((s) => s.status === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s.status === 200)).toHaveLength(15);
    expect(new Set(statuses.map((s) => s.id)).size).toBe(1);
    expect((await list('racer')).total).toBe(1);
  });

  it('is not held to the duplicate-text rule: a keyed memory is addressed by its key; an unkeyed store of its text is the duplicate', async () => {
    const plain = await json<{ id: string; duplicate: boolean }>('/v1/memories', { method: 'POST', json: { userId: 'dup', text: 'Shared text.' } }, 201);
    const keyed = await json<Memory>(byKey('one'), put({ userId: 'dup', text: 'Shared text.' }), 201);
    const other = await json<Memory>(byKey('two'), put({ userId: 'dup', text: 'Shared text.' }), 201);
    expect(new Set([plain.id, keyed.id, other.id]).size).toBe(3);
    // Without a key, the oldest live holder of the text answers, as before.
    const again = await json<{ id: string; duplicate: boolean }>('/v1/memories', { method: 'POST', json: { userId: 'dup', text: 'Shared text.' } });
    expect(again).toMatchObject({ id: plain.id, duplicate: true });
  });

  it('gives an expired key a new memory (201, new id), and an expired one is not found', async () => {
    const brief = await json<Memory>(byKey('brief'), put({ userId: 'exp', text: 'Door code 4711 today.', ttlSeconds: 1 }), 201);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await error(byKey('brief', '?userId=exp'), {}, 404)).toMatchObject({ code: 'not_found' });
    expect(await json(byKey('brief', '?userId=exp'), { method: 'DELETE' })).toEqual({ deleted: 0 });
    const fresh = await json<Memory>(byKey('brief'), put({ userId: 'exp', text: 'Door code 4711 today.' }), 201);
    expect(fresh.id).not.toBe(brief.id);
    expect(fresh.expiresAt).toBeNull();
    expect((await list('exp')).memories.map((m) => m.id)).toEqual([fresh.id]);
  });

  it('stores through POST /v1/memories with key too: 201 created, then 200 updated with the same id', async () => {
    const body = { userId: 'poster', key: 'pref', text: 'Prefers tea.' };
    const first = await json<{ id: string; key: string; updated: boolean; duplicate: boolean }>('/v1/memories', { method: 'POST', json: body }, 201);
    expect(first).toMatchObject({ key: 'pref', updated: false, duplicate: false });
    const second = await json<{ id: string; updated: boolean }>('/v1/memories', { method: 'POST', json: { ...body, text: 'Prefers coffee now.' } });
    expect(second).toMatchObject({ id: first.id, updated: true });
    expect((await json<Memory>(byKey('pref', '?userId=poster'))).text).toBe('Prefers coffee now.');
  });
});

describe('GET and DELETE /v1/memories/by-key/{key}', () => {
  it('reads and deletes by key; deleting twice deletes nothing the second time', async () => {
    const made = await json<Memory>(byKey('to-go'), put({ userId: 'gone', text: 'Soon forgotten.' }), 201);
    expect(await json<Memory>(byKey('to-go', '?userId=gone'))).toEqual(made);
    expect(await json(byKey('to-go', '?userId=gone'), { method: 'DELETE' })).toEqual({ deleted: 1 });
    expect(await json(byKey('to-go', '?userId=gone'), { method: 'DELETE' })).toEqual({ deleted: 0 });
    const missing = await error(byKey('to-go', '?userId=gone'), {}, 404);
    expect(missing).toMatchObject({ code: 'not_found', message: expect.stringContaining('"to-go"') as unknown });
    expect((await list('gone')).total).toBe(0);
  });

  it('needs userId, and refuses unknown query fields', async () => {
    expect(await error(byKey('x'), {}, 422)).toMatchObject({ code: 'validation_error', details: [{ path: 'userId' }] });
    expect(await error(byKey('x', '?userId=u&page=2'), { method: 'DELETE' }, 422)).toMatchObject({ code: 'validation_error' });
  });
});

describe('app-bound API keys', () => {
  it('confine PUT, GET and DELETE by key to the bound app, as on every other route', async () => {
    const auth = { Authorization: `Bearer ${otherAppKey}` };
    const mine = await json<Memory>(byKey('bound'), put({ userId: 'bound-user', text: 'In the other app.' }, auth), 201);
    expect(mine.appId).toBe('other');
    expect((await json<Memory>(byKey('bound', '?userId=bound-user'), { headers: auth })).id).toBe(mine.id);
    expect(await error(byKey('bound'), put({ userId: 'bound-user', appId: 'default', text: 'Elsewhere.' }, auth), 403)).toMatchObject({ code: 'forbidden' });
    expect(await error(byKey('bound', '?userId=bound-user&appId=default'), { headers: auth }, 403)).toMatchObject({ code: 'forbidden' });
    expect(await error(byKey('bound', '?userId=bound-user&appId=default'), { method: 'DELETE', headers: auth }, 403)).toMatchObject({ code: 'forbidden' });
    // An unbound key names the app to see it; without appId it looks in "default", where the key is free.
    expect(await error(byKey('bound', '?userId=bound-user'), {}, 404)).toMatchObject({ code: 'not_found' });
    expect((await json<Memory>(byKey('bound', '?userId=bound-user&appId=other'))).id).toBe(mine.id);
    expect(await json(byKey('bound', '?userId=bound-user'), { method: 'DELETE', headers: auth })).toEqual({ deleted: 1 });
  });
});

describe('bad keys and bodies', () => {
  const tooLong = 'k'.repeat(LIMITS.memoryKeyMaxLength + 1);
  it.each([
    ['a%2Fb', 'key must not contain "/".'],
    ['%2F', 'key must not contain "/".'],
    ['tab%09key', 'key must not contain control characters.'],
    ['nul%00', 'key must not contain control characters.'],
    [tooLong, `key must be at most ${LIMITS.memoryKeyMaxLength} characters.`],
    ['%ED%A0%80', null],
  ])('refuses the key %s on PUT, GET and DELETE with validation_error', async (raw, message) => {
    const path = `/v1/memories/by-key/${raw}`;
    for (const init of [put({ userId: 'bad', text: 'Never stored.' }), {}, { method: 'DELETE' }]) {
      const res = await server.call(`${path}${'method' in init && init.method === 'PUT' ? '' : '?userId=bad'}`, init);
      const body = (await res.json()) as ErrorJson;
      expect([400, 422], JSON.stringify(body)).toContain(res.status);
      if (message !== null) expect(body.error).toMatchObject({ code: 'validation_error', message });
    }
    expect((await list('bad')).total).toBe(0);
  });

  it.each([
    [{ userId: 'b', text: 'x', key: '' }, 'key', 'key must not be empty.'],
    [{ userId: 'b', text: 'x', key: '..' }, 'key', 'key must not be "." or "..".'],
    [{ userId: 'b', text: 'x', key: 7 }, 'key', 'key must be a string.'],
  ])('refuses a bad key in a POST body: %j', async (body, path, message) => {
    expect(await error('/v1/memories', { method: 'POST', json: body }, 422)).toMatchObject({ code: 'validation_error', details: [{ path, message }] });
  });

  it('refuses a PUT body without text, with a key field, or with two expiries; nothing is stored', async () => {
    expect((await error(byKey('body'), put({ userId: 'body' }), 422)).details).toEqual([{ path: 'text', message: 'text is required.' }]);
    expect((await error(byKey('body'), put({ userId: 'body', text: 'x', key: 'other' }), 422)).details).toEqual([
      { path: '', message: 'Unknown field: key.' },
    ]);
    expect((await error(byKey('body'), put({ userId: 'body', text: 'x', ttlSeconds: 5, expiresAt: '2999-01-01T00:00:00Z' }), 422)).code).toBe(
      'validation_error',
    );
    expect((await list('body')).total).toBe(0);
  });
});
