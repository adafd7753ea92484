/**
 * A memory's whole life over REST: read one, update, no duplicates (racing ones too), dated recall context,
 * expiry, and filters on list, recall and delete-all, with their unhappy paths. Runs on SQLite, and on PostgreSQL
 * with TEST_BACKEND=postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/core/key-admin.js';
import { startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

interface Memory {
  id: string;
  userId: string;
  appId: string;
  text: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
}
interface StoreJson {
  id: string;
  userId: string;
  appId: string;
  createdAt: string;
  duplicate: boolean;
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

async function store(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<StoreJson> {
  const res = await server.call('/v1/memories', { method: 'POST', json: body, headers });
  expect([200, 201]).toContain(res.status);
  return (await res.json()) as StoreJson;
}

async function json<T>(path: string, init: RequestInit & { json?: unknown } = {}, status = 200): Promise<T> {
  const res = await server.call(path, init);
  const body = (await res.json()) as T;
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body;
}

async function error(path: string, init: RequestInit & { json?: unknown }, status: number): Promise<ErrorJson['error']> {
  return (await json<ErrorJson>(path, init, status)).error;
}

const patch = (id: string, body: unknown) => ({ method: 'PATCH', json: body }) as const;

describe('GET /v1/memories/by-id/:id', () => {
  it('answers the whole record, and 404 not_found for an unknown id or another app\u2019s memory', async () => {
    const stored = await store({ userId: 'reader', text: 'Reads back whole.', metadata: { k: 'v' } });
    const memory = await json<Memory>(`/v1/memories/by-id/${stored.id}`);
    expect(memory).toEqual({
      id: stored.id,
      userId: 'reader',
      appId: 'default',
      text: 'Reads back whole.',
      metadata: { k: 'v' },
      createdAt: stored.createdAt,
      updatedAt: stored.createdAt,
      expiresAt: null,
    });
    expect(await error('/v1/memories/by-id/mem_AAAAAAAAAAAA', {}, 404)).toMatchObject({ code: 'not_found' });
    expect(await error('/v1/memories/by-id/00000000-0000-4000-8000-000000000000', {}, 404)).toMatchObject({ code: 'not_found' });
    const foreign = await error(`/v1/memories/by-id/${stored.id}`, { headers: { Authorization: `Bearer ${otherAppKey}` } }, 404);
    expect(foreign.code).toBe('not_found');
    expect(await error('/v1/memories/by-id/nope', {}, 422)).toMatchObject({ code: 'validation_error' });
  });

  it('never takes a user id for a memory id: the list route keeps every user', async () => {
    await store({ userId: 'mem_AAAAAAAAAAAA', text: 'A user whose id looks like a memory id.' });
    const list = await json<{ total: number }>('/v1/memories/mem_AAAAAAAAAAAA');
    expect(list.total).toBe(1);
  });
});

describe('PATCH /v1/memories/:id', () => {
  it('changes the text (re-embedded: recall finds the new one), keeps id and createdAt, sets updatedAt', async () => {
    const stored = await store({ userId: 'mover', text: 'Maria lives in Seattle.', createdAt: '2025-06-01T08:00:00.000Z' });
    const updated = await json<Memory>(`/v1/memories/${stored.id}`, patch(stored.id, { text: 'Maria moved to Lisbon.' }));
    expect(updated).toMatchObject({ id: stored.id, createdAt: '2025-06-01T08:00:00.000Z', text: 'Maria moved to Lisbon.', expiresAt: null });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(stored.createdAt));
    const recall = await json<{ memories: Memory[]; context: string }>(
      `/v1/memories/recall?userId=mover&query=${encodeURIComponent('Which city does Maria live in?')}&minScore=0`,
    );
    expect(recall.memories.map((m) => m.text)).toEqual(['Maria moved to Lisbon.']);
    expect(recall.context).toBe(`- [${updated.updatedAt.slice(0, 10)}] Maria moved to Lisbon.`);
    expect(recall.memories[0]?.updatedAt).toBe(updated.updatedAt);
  });

  it('replaces metadata whole, sets and clears the expiry, by id or from ttlSeconds', async () => {
    const stored = await store({ userId: 'patcher', text: 'Has metadata.', metadata: { a: 1, b: 2 } });
    const meta = await json<Memory>(`/v1/memories/${stored.id}`, patch(stored.id, { metadata: { c: 3 } }));
    expect(meta.metadata).toEqual({ c: 3 });
    expect(meta.text).toBe('Has metadata.');
    const ttl = await json<Memory>(`/v1/memories/${stored.id}`, patch(stored.id, { ttlSeconds: 60 }));
    expect(Date.parse(ttl.expiresAt ?? '') - Date.now()).toBeGreaterThan(55_000);
    const at = await json<Memory>(`/v1/memories/${stored.id}`, patch(stored.id, { expiresAt: '2999-01-01T00:00:00+01:00' }));
    expect(at.expiresAt).toBe('2998-12-31T23:00:00.000Z');
    const cleared = await json<Memory>(`/v1/memories/${stored.id}`, patch(stored.id, { expiresAt: null }));
    expect(cleared.expiresAt).toBeNull();
    expect(cleared.metadata).toEqual({ c: 3 });
  });

  it.each([
    [{}, 'Pass at least one of text, metadata, expiresAt or ttlSeconds.'],
    [{ expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt must be in the future.'],
    [{ expiresAt: '2999-01-01T00:00:00Z', ttlSeconds: 5 }, 'Pass expiresAt or ttlSeconds, not both.'],
    [{ ttlSeconds: 0 }, 'ttlSeconds must be an integer from 1 to 315360000.'],
    [{ text: '   ' }, 'text must not be empty or only whitespace.'],
    [{ metadata: [1] }, 'metadata must be a JSON object.'],
    [{ userId: 'someone-else' }, 'Unknown field: userId.'],
  ])('refuses %j with 422', async (body, message) => {
    const stored = await store({ userId: 'patcher', text: `Unhappy ${JSON.stringify(body)}` });
    const refused = await error(`/v1/memories/${stored.id}`, patch(stored.id, body), 422);
    expect(refused).toMatchObject({ code: 'validation_error', message });
  });

  it('answers 404 for an unknown, expired or another app\u2019s memory, 409 for another memory\u2019s text, 415 for non-JSON', async () => {
    expect(await error('/v1/memories/mem_AAAAAAAAAAAA', patch('', { text: 'x' }), 404)).toMatchObject({ code: 'not_found' });
    const mine = await store({ userId: 'guard', text: 'Guarded fact.' });
    const foreign = await error(`/v1/memories/${mine.id}`, { ...patch('', { text: 'hijacked' }), headers: { Authorization: `Bearer ${otherAppKey}` } }, 404);
    expect(foreign.code).toBe('not_found');
    expect((await json<Memory>(`/v1/memories/by-id/${mine.id}`)).text).toBe('Guarded fact.');
    const other = await store({ userId: 'guard', text: 'Other fact.' });
    const clash = await error(`/v1/memories/${other.id}`, patch('', { text: ' Guarded   fact. ' }), 409);
    expect(clash).toMatchObject({ code: 'duplicate_memory', details: [{ path: 'text' }] });
    expect(clash.message).toContain(mine.id);
    const res = await server.call(`/v1/memories/${mine.id}`, { method: 'PATCH', body: 'text=x', headers: { 'Content-Type': 'text/plain' } });
    expect(res.status).toBe(415);
    const brief = await store({ userId: 'guard', text: 'Short-lived fact.', ttlSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await error(`/v1/memories/${brief.id}`, patch('', { expiresAt: null }), 404)).toMatchObject({ code: 'not_found' });
  });
});

describe('no duplicates', () => {
  it('answers a store of a live memory\u2019s text (whitespace aside) with that memory: 200, duplicate, a header', async () => {
    const first = await server.call('/v1/memories', { method: 'POST', json: { userId: 'dan', text: 'Dan likes jazz.' } });
    expect(first.status).toBe(201);
    const created = (await first.json()) as StoreJson;
    expect(created.duplicate).toBe(false);
    const again = await server.call('/v1/memories', { method: 'POST', json: { userId: 'dan', text: '  Dan likes\n jazz. ', metadata: { x: 1 } } });
    expect(again.status).toBe(200);
    expect(again.headers.get('memory-duplicate')).toBe('true');
    expect(await again.json()).toEqual({ ...created, duplicate: true });
    // Nothing merged: the metadata of the duplicate is not added.
    expect((await json<Memory>(`/v1/memories/by-id/${created.id}`)).metadata).toEqual({});
    expect((await store({ userId: 'dan', text: 'Dan likes jazz.', appId: 'music' })).duplicate).toBe(false);
    const recall = await json<{ memories: Memory[] }>('/v1/memories/recall?userId=dan&query=jazz&minScore=0&appId=default');
    expect(recall.memories).toHaveLength(1);
  });

  it('stores one copy when duplicates race, and replays a keyed duplicate as it was answered', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => server.call('/v1/memories', { method: 'POST', json: { userId: 'racer', text: 'Raced fact.' } })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as StoreJson[];
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    expect((await json<{ total: number }>('/v1/memories/racer')).total).toBe(1);
    const keyed = () => server.call('/v1/memories', { method: 'POST', json: { userId: 'racer', text: 'Raced fact.' }, headers: { 'Idempotency-Key': 'dup-1' } });
    const firstKeyed = await keyed();
    expect(firstKeyed.status).toBe(200);
    const replay = await keyed();
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('memory-duplicate')).toBe('true');
    expect(await replay.json()).toEqual(await firstKeyed.json());
  });
});

describe('expiry', () => {
  it('hides a memory from every read once expiresAt has passed', async () => {
    const brief = await store({ userId: 'ephemeral', text: 'The door code is 4711 today.', ttlSeconds: 1 });
    const lasting = await store({ userId: 'ephemeral', text: 'The office is on the third floor.' });
    expect((await json<{ total: number }>('/v1/memories/ephemeral')).total).toBe(2);
    const read = await json<Memory>(`/v1/memories/by-id/${brief.id}`);
    expect(Date.parse(read.expiresAt ?? '') - Date.parse(read.createdAt)).toBe(1_000);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await error(`/v1/memories/by-id/${brief.id}`, {}, 404)).toMatchObject({ code: 'not_found' });
    const list = await json<{ memories: Memory[]; total: number }>('/v1/memories/ephemeral');
    expect(list.memories.map((m) => m.id)).toEqual([lasting.id]);
    expect(list.total).toBe(1);
    const recall = await json<{ memories: Memory[] }>('/v1/memories/recall?userId=ephemeral&query=door%20code&minScore=0');
    expect(recall.memories.map((m) => m.id)).toEqual([lasting.id]);
    expect(await json(`/v1/memories/${brief.id}`, { method: 'DELETE' })).toEqual({ deleted: 0 });
    // The text is free again.
    expect((await store({ userId: 'ephemeral', text: 'The door code is 4711 today.' })).duplicate).toBe(false);
  });

  it('refuses an expiry in the past, both expiry forms, and a bad ttl', async () => {
    const base = { userId: 'ephemeral', text: 'Never stored.' };
    expect(await error('/v1/memories', { method: 'POST', json: { ...base, expiresAt: '2001-01-01T00:00:00Z' } }, 422)).toMatchObject({
      message: 'expiresAt must be in the future.',
      details: [{ path: 'expiresAt' }],
    });
    expect((await error('/v1/memories', { method: 'POST', json: { ...base, expiresAt: '2999-01-01T00:00:00Z', ttlSeconds: 9 } }, 422)).details).toEqual([
      { path: 'ttlSeconds', message: 'Pass expiresAt or ttlSeconds, not both.' },
    ]);
    expect((await error('/v1/memories', { method: 'POST', json: { ...base, ttlSeconds: 1.5 } }, 422)).details?.[0]?.path).toBe('ttlSeconds');
    expect((await error('/v1/memories', { method: 'POST', json: { ...base, expiresAt: 'tomorrow' } }, 422)).details?.[0]?.path).toBe('expiresAt');
  });
});

describe('filters on list, recall and delete-all', () => {
  const user = 'filtered';
  const at = (day: number) => `2026-03-0${day}T10:00:00.000Z`;
  beforeAll(async () => {
    await store({ userId: user, text: 'Saw a jazz concert in Lisbon.', metadata: { topic: 'music', stars: 5 }, createdAt: at(1) });
    await store({ userId: user, text: 'Heard a rock concert in Porto.', metadata: { topic: 'music', stars: '5' }, createdAt: at(2) });
    await store({ userId: user, text: 'Wrote the concert review for work.', metadata: { topic: 'work' }, createdAt: at(3) });
  });
  const q = (params: Record<string, string>) => new URLSearchParams({ userId: user, ...params }).toString();

  it('lists by metadata (all keys, exact and typed) and by creation time, in GET and POST forms, with updatedAt', async () => {
    const texts = async (params: Record<string, string>) =>
      (await json<{ memories: Memory[] }>(`/v1/memories?${q(params)}`)).memories.map((m) => m.text);
    expect(await texts({ metadata: '{"topic":"music"}' })).toEqual(['Heard a rock concert in Porto.', 'Saw a jazz concert in Lisbon.']);
    expect(await texts({ metadata: '{"topic":"music","stars":5}' })).toEqual(['Saw a jazz concert in Lisbon.']);
    expect(await texts({ metadata: '{"stars":"5"}' })).toEqual(['Heard a rock concert in Porto.']);
    expect(await texts({ since: at(2) })).toEqual(['Wrote the concert review for work.', 'Heard a rock concert in Porto.']);
    expect(await texts({ since: at(2), until: at(3) })).toEqual(['Heard a rock concert in Porto.']);
    const posted = await json<{ memories: Memory[]; total: number }>('/v1/memories/list', {
      method: 'POST',
      json: { userId: user, metadata: { topic: 'music' }, until: at(2), pageSize: 5 },
    });
    expect(posted.total).toBe(1);
    expect(posted.memories[0]).toMatchObject({ text: 'Saw a jazz concert in Lisbon.', updatedAt: at(1), expiresAt: null });
    expect(Object.keys(posted.memories[0] ?? {}).sort()).toEqual(['appId', 'createdAt', 'expiresAt', 'id', 'metadata', 'text', 'updatedAt']);
  });

  it('recalls within the filter, GET and POST', async () => {
    const got = await json<{ memories: Memory[]; context: string }>(
      `/v1/memories/recall?${q({ query: 'concert', minScore: '0', metadata: '{"topic":"work"}' })}`,
    );
    expect(got.memories.map((m) => m.text)).toEqual(['Wrote the concert review for work.']);
    expect(got.context).toBe('- [2026-03-03] Wrote the concert review for work.');
    const posted = await json<{ memories: Memory[] }>('/v1/memories/recall', {
      method: 'POST',
      json: { userId: user, query: 'concert', minScore: 0, since: at(2), metadata: { topic: 'music' } },
    });
    expect(posted.memories.map((m) => m.text)).toEqual(['Heard a rock concert in Porto.']);
  });

  it.each([
    ['metadata=not-json', 'metadata must be a JSON object of keys and the values they must have.'],
    ['metadata=[1]', 'metadata must be a JSON object of keys and the values they must have.'],
    ['metadata={}', 'metadata must name 1 to 16 keys.'],
    ['metadata={"a":{"b":1}}', 'A metadata filter value must be a string, a number, true, false or null.'],
    ['since=yesterday', 'since must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-22T10:15:30.123Z.'],
    ['since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z', 'until must be later than since.'],
  ])('refuses %s with 422 on list, recall and delete-all', async (query, message) => {
    for (const path of ['/v1/memories', '/v1/memories/recall']) {
      const extra = path.endsWith('recall') ? '&query=concert' : '';
      expect(await error(`${path}?userId=${user}${extra}&${query}`, {}, 422)).toMatchObject({ code: 'validation_error', message });
    }
    expect(await error(`/v1/memories?userId=${user}&${query}`, { method: 'DELETE' }, 422)).toMatchObject({ message });
    expect((await json<{ total: number }>(`/v1/memories/${user}`)).total).toBe(3);
  });

  it('deletes only what the filter lets through, GET and POST forms', async () => {
    expect(await json(`/v1/memories?${q({ metadata: '{"stars":"5"}' })}`, { method: 'DELETE' })).toEqual({ deleted: 1 });
    expect(await json('/v1/memories/delete-all', { method: 'POST', json: { userId: user, until: at(2) } })).toEqual({ deleted: 1 });
    const left = await json<{ memories: Memory[] }>(`/v1/memories/${user}`);
    expect(left.memories.map((m) => m.text)).toEqual(['Wrote the concert review for work.']);
  });
});
