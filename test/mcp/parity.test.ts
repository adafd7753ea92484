/** REST and MCP are two adapters over one service: the same failure reads the same, and data crosses over. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/core/key-admin.js';
import type { RecallResult, StoreResult } from '../../src/core/schemas.js';
import type { ErrorJson } from '../helpers/server.js';
import { call, connectHttp, errorOf, ok, startMcpTestServer, TEST_KEY, type McpTestServer } from './helpers.js';

let server: McpTestServer;
let keyA: string;
let mcpA: Client; // bound to app-a
let mcp: Client; // unbound

beforeAll(async () => {
  server = await startMcpTestServer();
  keyA = (await createApiKey(server.runtime.store, { app: 'app-a', label: 'a' })).key;
  mcpA = (await connectHttp(server.mcpUrl, keyA)).client;
  mcp = (await connectHttp(server.mcpUrl, TEST_KEY)).client;
});
afterAll(async () => {
  await Promise.all([mcpA.close(), mcp.close()]);
  await server.remove();
});

function rest(key: string, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const { json, ...rest } = init;
  return fetch(`${server.url}${path}`, {
    ...rest,
    headers: { Authorization: `Bearer ${key}`, ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
}

describe('REST and MCP agree', () => {
  it.each([
    ['a bound key naming another app', () => keyA, () => mcpA, { userId: 'p', text: 'x', appId: 'app-b' }, 403],
    ['an app UUID that does not exist', () => TEST_KEY, () => mcp, { userId: 'p', text: 'x', appId: '123e4567-e89b-12d3-a456-426614174000' }, 422],
    // Bad arguments: validated by our handler, not answered by the SDK's own -32602 text.
    ['an empty text', () => TEST_KEY, () => mcp, { userId: 'p', text: '' }, 422],
    ['a misspelt field', () => TEST_KEY, () => mcp, { userId: 'p', text: 'x', user_id: 'p' }, 422],
    ['several bad fields', () => TEST_KEY, () => mcp, { userId: '', text: 'x', appId: 'Not A Slug', metadata: [] }, 422],
  ])('give the same code, message and details for %s', async (_name, key, client, input, status) => {
    const res = await rest(key(), '/v1/memories', { method: 'POST', json: input });
    expect(res.status).toBe(status);
    const restError = ((await res.json()) as ErrorJson).error;
    const mcpError = errorOf(await call(client(), 'store_memory', input));
    expect(mcpError).toEqual(restError);
  });

  it('give the same not_found for another app\u2019s memory, and the same duplicate_memory, on update', async () => {
    const other = await rest(TEST_KEY, '/v1/memories', { method: 'POST', json: { userId: 'p', text: 'In app b.', appId: 'app-b' } });
    const { id } = (await other.json()) as StoreResult;
    const restMissing = await rest(keyA, `/v1/memories/${id}`, { method: 'PATCH', json: { text: 'taken over' } });
    expect(restMissing.status).toBe(404);
    expect(errorOf(await call(mcpA, 'update_memory', { id, text: 'taken over' }))).toEqual(((await restMissing.json()) as ErrorJson).error);
    const second = await rest(TEST_KEY, '/v1/memories', { method: 'POST', json: { userId: 'p', text: 'Also in app b.', appId: 'app-b' } });
    const secondId = ((await second.json()) as StoreResult).id;
    const restClash = await rest(TEST_KEY, `/v1/memories/${secondId}`, { method: 'PATCH', json: { text: 'In app b.' } });
    expect(restClash.status).toBe(409);
    expect(errorOf(await call(mcp, 'update_memory', { id: secondId, text: 'In app b.' }))).toEqual(((await restClash.json()) as ErrorJson).error);
  });

  it('give the same validation_error for a bad update', async () => {
    const stored = await rest(TEST_KEY, '/v1/memories', { method: 'POST', json: { userId: 'p', text: 'To be updated badly.' } });
    const { id } = (await stored.json()) as StoreResult;
    for (const patch of [{}, { ttlSeconds: 0, expiresAt: null }, { text: '', appId: 'app-b' }]) {
      const res = await rest(TEST_KEY, `/v1/memories/${id}`, { method: 'PATCH', json: patch });
      expect(res.status).toBe(422);
      expect(errorOf(await call(mcp, 'update_memory', { id, ...patch }))).toEqual(((await res.json()) as ErrorJson).error);
    }
  });

  it('recalls over REST a memory stored over MCP', async () => {
    const stored = ok<StoreResult>(await call(mcp, 'store_memory', { userId: 'cross', text: 'Noor is vegetarian and avoids fish.' }));
    const query = new URLSearchParams({ userId: 'cross', query: 'Does Noor eat meat?', minScore: '0' });
    const res = await rest(TEST_KEY, `/v1/memories/recall?${query.toString()}`);
    expect(res.status).toBe(200);
    const recalled = (await res.json()) as RecallResult;
    expect(recalled.memories.map((m) => m.id)).toContain(stored.id);
  });

  it('recalls over MCP a memory stored over REST', async () => {
    const res = await rest(TEST_KEY, '/v1/memories', { method: 'POST', json: { userId: 'cross', text: 'Noor\u2019s sister Leila lives in Montreal.' } });
    expect(res.status).toBe(201);
    const stored = (await res.json()) as StoreResult;
    const recalled = ok<RecallResult>(await call(mcp, 'recall_memories', { userId: 'cross', query: 'Where does Noor\u2019s sibling live?', minScore: 0 }));
    expect(recalled.memories.map((m) => m.id)).toContain(stored.id);
  });
});

describe('caller keys: REST and MCP agree', () => {
  interface Keyed {
    id: string;
    key?: string;
    text: string;
    updated?: boolean;
  }

  it('store_memory with key and PUT by key address one memory; get_memory and forget_memory take the key', async () => {
    const first = ok<StoreResult & { key: string; updated: boolean }>(
      await call(mcp, 'store_memory', { userId: 'keyed', key: 'diet', text: 'Noor eats fish.' }),
    );
    expect(first).toMatchObject({ key: 'diet', updated: false, duplicate: false });
    const put = await rest(TEST_KEY, '/v1/memories/by-key/diet', { method: 'PUT', json: { userId: 'keyed', text: 'Noor is vegetarian now.' } });
    expect(put.status).toBe(200);
    const replaced = (await put.json()) as Keyed;
    expect(replaced).toMatchObject({ id: first.id, key: 'diet', text: 'Noor is vegetarian now.' });
    const again = ok<{ id: string; updated: boolean }>(await call(mcp, 'store_memory', { userId: 'keyed', key: 'diet', text: 'Noor is vegan.' }));
    expect(again).toMatchObject({ id: first.id, updated: true });

    const restRead = await rest(TEST_KEY, '/v1/memories/by-key/diet?userId=keyed');
    expect(ok(await call(mcp, 'get_memory', { key: 'diet', userId: 'keyed' }))).toEqual(await restRead.json());
    expect(ok(await call(mcp, 'forget_memory', { key: 'diet', userId: 'keyed' }))).toEqual({ deleted: 1 });
    expect(ok(await call(mcp, 'forget_memory', { key: 'diet', userId: 'keyed' }))).toEqual({ deleted: 0 });
    const restMissing = await rest(TEST_KEY, '/v1/memories/by-key/diet?userId=keyed');
    expect(restMissing.status).toBe(404);
    expect(errorOf(await call(mcp, 'get_memory', { key: 'diet', userId: 'keyed' }))).toEqual(((await restMissing.json()) as ErrorJson).error);
  });

  it('give the same validation_error for a bad key and the same forbidden for another app', async () => {
    for (const key of ['a/b', '', 'x'.repeat(257), 'tab\there']) {
      const res = await rest(TEST_KEY, '/v1/memories', { method: 'POST', json: { userId: 'p', key, text: 'Never stored.' } });
      expect(res.status).toBe(422);
      expect(errorOf(await call(mcp, 'store_memory', { userId: 'p', key, text: 'Never stored.' }))).toEqual(((await res.json()) as ErrorJson).error);
    }
    const restForbidden = await rest(keyA, '/v1/memories/by-key/k?userId=p&appId=app-b');
    expect(restForbidden.status).toBe(403);
    expect(errorOf(await call(mcpA, 'get_memory', { key: 'k', userId: 'p', appId: 'app-b' }))).toEqual(
      ((await restForbidden.json()) as ErrorJson).error,
    );
    expect(errorOf(await call(mcpA, 'forget_memory', { key: 'k', userId: 'p', appId: 'app-b' }))).toMatchObject({ code: 'forbidden' });
  });

  it('refuses get_memory and forget_memory with both id and key, or userId beside an id', async () => {
    const stored = ok<StoreResult>(await call(mcp, 'store_memory', { userId: 'p', text: 'Addressed by id.' }));
    for (const args of [{ id: stored.id, key: 'k' }, { id: stored.id, userId: 'p' }, {}]) {
      expect(errorOf(await call(mcp, 'get_memory', args))).toMatchObject({ code: 'validation_error' });
    }
    for (const args of [{ id: stored.id, key: 'k' }, { ids: [stored.id], key: 'k' }, { id: stored.id, appId: 'default' }]) {
      expect(errorOf(await call(mcp, 'forget_memory', args))).toMatchObject({ code: 'validation_error' });
    }
    // Nothing was deleted by the refused calls.
    expect(ok(await call(mcp, 'get_memory', { id: stored.id }))).toMatchObject({ id: stored.id });
  });
});
