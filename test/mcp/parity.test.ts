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
