import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryClient, UnprocessableEntityError, PermissionDeniedError, MemoryValidationError } from '../../src/client/index.js';
import { createApiKey } from '../../src/core/key-admin.js';
import { TEST_KEY, startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

interface UsersJson {
  users: Array<{ userId: string; memoryCount: number; newestMemoryAt: string }>;
  total: number;
  page: number;
  pageSize: number;
}

let server: TestServer;
let keyA: string; // bound to app-a
let appAUuid: string;

const at = (day: number): string => new Date(Date.UTC(2024, 0, day)).toISOString();

beforeAll(async () => {
  server = await startTestServer();
  keyA = (await createApiKey(server.runtime.store, { app: 'app-a', label: 'a' })).key;
  const memories = [
    { userId: 'alice', text: 'Alice likes tea.', appId: 'app-a', createdAt: at(1) },
    { userId: 'alice', text: 'Alice lives in Lyon.', appId: 'app-b', createdAt: at(5) },
    { userId: 'bob', text: 'Bob plays chess.', appId: 'app-a', createdAt: at(3) },
    { userId: 'carol', text: 'Carol runs marathons.', appId: 'app-b', createdAt: at(4) },
    { userId: 'bob', text: 'Bob has a dog.', appId: 'app-a', createdAt: at(2) },
  ];
  for (const json of memories) expect((await server.call('/v1/memories', { method: 'POST', json })).status).toBe(201);
  appAUuid = (await server.runtime.store.findApp('app-a'))?.id ?? '';
});
afterAll(async () => {
  await server.stop();
});

async function users(path: string, key = TEST_KEY): Promise<UsersJson> {
  const res = await server.call(path, { headers: { Authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as UsersJson;
}

describe('GET /v1/users', () => {
  it('lists every visible user with their count and newest memory, the most recently written to first', async () => {
    expect(await users('/v1/users')).toEqual({
      users: [
        { userId: 'alice', memoryCount: 2, newestMemoryAt: at(5) },
        { userId: 'carol', memoryCount: 1, newestMemoryAt: at(4) },
        { userId: 'bob', memoryCount: 2, newestMemoryAt: at(3) },
      ],
      total: 3,
      page: 0,
      pageSize: 20,
    });
  });

  it('pages like a memory list, with the true total past the end', async () => {
    expect(await users('/v1/users?page=1&pageSize=2')).toEqual({
      users: [{ userId: 'bob', memoryCount: 2, newestMemoryAt: at(3) }],
      total: 3,
      page: 1,
      pageSize: 2,
    });
    expect(await users('/v1/users?page=7&pageSize=2')).toEqual({ users: [], total: 3, page: 7, pageSize: 2 });
  });

  it('narrows to one app by slug or UUID; an unknown app has no users', async () => {
    const bySlug = await users('/v1/users?appId=app-b');
    expect(bySlug.users).toEqual([
      { userId: 'alice', memoryCount: 1, newestMemoryAt: at(5) },
      { userId: 'carol', memoryCount: 1, newestMemoryAt: at(4) },
    ]);
    expect((await users(`/v1/users?appId=${appAUuid}`)).users.map((u) => u.userId)).toEqual(['bob', 'alice']);
    expect(await users('/v1/users?appId=nobody-here')).toEqual({ users: [], total: 0, page: 0, pageSize: 20 });
  });

  it("a bound key sees only its app's users and counts", async () => {
    expect(await users('/v1/users', keyA)).toEqual({
      users: [
        { userId: 'bob', memoryCount: 2, newestMemoryAt: at(3) },
        { userId: 'alice', memoryCount: 1, newestMemoryAt: at(1) },
      ],
      total: 2,
      page: 0,
      pageSize: 20,
    });
    expect((await users('/v1/users?appId=app-a', keyA)).total).toBe(2);
  });

  it('a bound key naming another app is 403 forbidden', async () => {
    const res = await server.call('/v1/users?appId=app-b', { headers: { Authorization: `Bearer ${keyA}` } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as ErrorJson).error).toEqual({
      code: 'forbidden',
      message: 'This API key is bound to the app "app-a" and cannot use the app "app-b".',
    });
  });

  it('without a key is 401', async () => {
    const res = await server.call('/v1/users', { headers: { Authorization: '' } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as ErrorJson).error.code).toBe('auth_error');
  });

  it.each([
    ['page=-1', 'page', 'page must be an integer >= 0.'],
    ['page=1.5', 'page', 'page must be an integer >= 0.'],
    ['page=abc', 'page', 'page must be an integer >= 0.'],
    ['pageSize=0', 'pageSize', 'pageSize must be an integer from 1 to 100.'],
    ['pageSize=101', 'pageSize', 'pageSize must be an integer from 1 to 100.'],
    ['pageSize=1&pageSize=2', 'pageSize', 'pageSize must be an integer from 1 to 100.'],
    ['appId=Not%20A%20Slug', 'appId', 'appId must be an app slug (lower-case letters, digits, "-" and "_", 1 to 63 characters) or an app UUID.'],
    ['userId=alice', '', 'Unknown field: userId.'],
  ])('?%s is 422 validation_error on %s', async (query, path, message) => {
    const res = await server.call(`/v1/users?${query}`);
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorJson;
    expect(body.error.code).toBe('validation_error');
    expect(body.error.details).toEqual([{ path, message }]);
  });
});

describe('MemoryClient.listUsers', () => {
  it('answers the same envelope as the route, and checks its input first', async () => {
    const client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url, maxRetries: 0 });
    expect(await client.listUsers({ pageSize: 1 })).toEqual({
      users: [{ userId: 'alice', memoryCount: 2, newestMemoryAt: at(5) }],
      total: 3,
      page: 0,
      pageSize: 1,
    });
    expect((await client.listUsers()).total).toBe(3);
    await expect(client.listUsers({ pageSize: 0 })).rejects.toBeInstanceOf(MemoryValidationError);
    const bound = new MemoryClient({ apiKey: keyA, baseUrl: server.url, maxRetries: 0 });
    await expect(bound.listUsers({ appId: 'app-b' })).rejects.toBeInstanceOf(PermissionDeniedError);
    // Well-formed but too far out to be a row offset: the server's own refusal.
    await expect(client.listUsers({ page: Number.MAX_SAFE_INTEGER, pageSize: 100 })).rejects.toBeInstanceOf(UnprocessableEntityError);
  });
});
