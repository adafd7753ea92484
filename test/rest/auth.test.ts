import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/core/key-admin.js';
import { startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

let server: TestServer;
let keyA: string; // bound to app-a
let keyB: string; // bound to app-b
let unbound: string;
let revoked: string;
let memA: string;

beforeAll(async () => {
  server = await startTestServer();
  const store = server.runtime.store;
  keyA = (await createApiKey(store, { app: 'app-a', label: 'a' })).key;
  keyB = (await createApiKey(store, { app: 'app-b', label: 'b' })).key;
  unbound = (await createApiKey(store, { label: 'all' })).key;
  const r = await createApiKey(store, { label: 'old' });
  revoked = r.key;
  await store.revokeKey(r.record.id, new Date().toISOString());
  const res = await as(keyA, '/v1/memories', { method: 'POST', json: { userId: 'shared-user', text: 'Secret of app A: the vault code is 1234.' } });
  memA = ((await res.json()) as { id: string }).id;
  await as(keyB, '/v1/memories', { method: 'POST', json: { userId: 'shared-user', text: 'App B knows the user likes jazz.' } });
});
afterAll(async () => {
  await server.stop();
});

function as(key: string | null, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (key === null) headers.set('Authorization', '');
  else headers.set('Authorization', `Bearer ${key}`);
  return server.call(path, { ...init, headers });
}

async function expectAuthError(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
  expect(((await res.json()) as ErrorJson).error.code).toBe('auth_error');
}

describe('API keys', () => {
  it.each([
    ['missing', null],
    ['unknown', `amk_${'x'.repeat(40)}`],
    ['malformed', 'not-a-key'],
  ])('refuses a %s key with 401', async (_name, key) => {
    await expectAuthError(await as(key, '/v1/memories/shared-user'));
  });

  it('refuses a revoked key at once', async () => {
    await expectAuthError(await as(revoked, '/v1/memories/shared-user'));
  });

  it('refuses a non-Bearer scheme', async () => {
    await expectAuthError(await server.call('/v1/memories/shared-user', { headers: { Authorization: `Basic ${keyA}` } }));
  });

  it('checks the key before reading the body', async () => {
    await expectAuthError(await as(null, '/v1/memories', { method: 'POST', body: '{not json', headers: { 'Content-Type': 'application/json' } }));
  });

  it('health answers without a key', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});

describe('app isolation', () => {
  it('a bound key stores into its own app by default', async () => {
    const res = await as(keyA, '/v1/memories', { method: 'POST', json: { userId: 'u', text: 'x' } });
    expect(((await res.json()) as { appId: string }).appId).toBe('app-a');
  });

  it('a bound key naming another app is 403 on every route', async () => {
    const attempts = [
      as(keyA, '/v1/memories', { method: 'POST', json: { userId: 'u', text: 'x', appId: 'app-b' } }),
      as(keyA, '/v1/memories/shared-user?appId=app-b'),
      as(keyA, '/v1/memories/recall?userId=shared-user&query=jazz&appId=app-b'),
      as(keyA, '/v1/memories?userId=shared-user&appId=app-b', { method: 'DELETE' }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(((await res.json()) as ErrorJson).error.code).toBe('forbidden');
    }
  });

  it('a bound key sees only its app in list and recall', async () => {
    const list = (await (await as(keyB, '/v1/memories/shared-user')).json()) as { memories: Array<{ text: string }>; total: number };
    expect(list.total).toBe(1);
    expect(list.memories[0]?.text).toContain('jazz');
    const recall = (await (await as(keyB, '/v1/memories/recall?userId=shared-user&query=vault%20code&minScore=0')).json()) as {
      memories: Array<{ text: string }>;
    };
    expect(recall.memories.every((m) => !m.text.includes('vault'))).toBe(true);
  });

  it("another app's memory id behaves as if it did not exist", async () => {
    expect(await (await as(keyB, `/v1/memories/${memA}`, { method: 'DELETE' })).json()).toEqual({ deleted: 0 });
    expect(await (await as(keyB, '/v1/memories/batch-delete', { method: 'POST', json: { ids: [memA] } })).json()).toEqual({ deleted: 0 });
    expect(await (await as(keyB, '/v1/memories?userId=shared-user', { method: 'DELETE' })).json()).toEqual({ deleted: 1 });
    const stillThere = (await (await as(keyA, '/v1/memories/shared-user')).json()) as { total: number };
    expect(stillThere.total).toBe(1);
  });

  it('an unbound key sees every app, and names apps by slug or UUID', async () => {
    const list = (await (await as(unbound, '/v1/memories/shared-user')).json()) as { memories: Array<{ appId: string }> };
    expect(list.memories.map((m) => m.appId)).toContain('app-a');
    const app = await server.runtime.store.findApp('app-a');
    const byUuid = (await (await as(unbound, `/v1/memories/shared-user?appId=${app?.id}`)).json()) as { total: number };
    expect(byUuid.total).toBe(1);
  });
});
