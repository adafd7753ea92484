import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/core/key-admin.js';
import { loopbackHostnames } from '../../src/mcp/host-guard.js';
import type { ListResult, RecallResult, StoreResult } from '../../src/core/schemas.js';
import { call, connectHttp, errorOf, ok, startMcpTestServer, TEST_KEY, type McpTestServer } from './helpers.js';
import { TOOL_NAMES } from './tool-names.js';

let server: McpTestServer;
let keyA: string; // bound to app-a
let keyB: string; // bound to app-b

const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

beforeAll(async () => {
  server = await startMcpTestServer();
  keyA = (await createApiKey(server.runtime.store, { app: 'app-a', label: 'a' })).key;
  keyB = (await createApiKey(server.runtime.store, { app: 'app-b', label: 'b' })).key;
});
afterAll(async () => {
  await server.remove();
});

function post(key: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.mcpUrl, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
}

/** Opens a session by hand and returns its id. */
async function initialize(key: string): Promise<string> {
  const res = await post(key, INITIALIZE);
  expect(res.status).toBe(200);
  await res.body?.cancel();
  const id = res.headers.get('mcp-session-id');
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  return id ?? '';
}

/** node:http, because fetch does not let a test choose the Host header. */
function rawStatus(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(server.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, Authorization: `Bearer ${TEST_KEY}`, ...headers } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end(JSON.stringify(INITIALIZE));
  });
}

const SESSION_NOT_FOUND = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null };

describe('MCP over streamable HTTP at /mcp', () => {
  it('refuses a request without a valid key with the REST 401, before any MCP handling', async () => {
    for (const key of [undefined, `amk_${'x'.repeat(40)}`]) {
      const res = await post(key, INITIALIZE);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('auth_error');
    }
    expect(server.runtime).toBeDefined();
  });

  it('serves the tools to an SDK client over a session', async () => {
    const { client, transport } = await connectHttp(server.mcpUrl, TEST_KEY);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const stored = ok<StoreResult>(await call(client, 'store_memory', { userId: 'http-user', text: 'Marta commutes to work by bike.' }));
    const recalled = ok<RecallResult>(
      await call(client, 'recall_memories', { userId: 'http-user', query: 'How does Marta get to her job?', minScore: 0 }),
    );
    expect(recalled.memories.map((m) => m.id)).toContain(stored.id);
    expect(ok<ListResult>(await call(client, 'list_memories', { userId: 'http-user' })).total).toBe(1);
    expect(ok(await call(client, 'forget_memory', { id: stored.id }))).toEqual({ deleted: 1 });
    expect(errorOf(await call(client, 'list_memories', {})).code).toBe('validation_error');
    await client.close();
  });

  it('acts as the session\u2019s key: a bound key stays in its app, another app is forbidden', async () => {
    const { client } = await connectHttp(server.mcpUrl, keyA);
    expect(ok<StoreResult>(await call(client, 'store_memory', { userId: 'u', text: 'A fact for app A.' })).appId).toBe('app-a');
    const forbidden = errorOf(await call(client, 'store_memory', { userId: 'u', text: 'x', appId: 'app-b' }));
    expect(forbidden).toEqual({ code: 'forbidden', message: 'This API key is bound to the app "app-a" and cannot use the app "app-b".' });
    const page = ok<ListResult>(await call(client, 'list_memories', { userId: 'u' }));
    expect(page.memories.map((m) => m.appId)).toEqual(['app-a']);
    await client.close();
  });

  it('lets only the key that created a session use it; to any other key it does not exist', async () => {
    const sessionId = await initialize(keyA);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const asB = await post(keyB, list, { 'Mcp-Session-Id': sessionId });
    expect(asB.status).toBe(404);
    expect(await asB.json()).toEqual(SESSION_NOT_FOUND);
    const unknown = await post(keyA, list, { 'Mcp-Session-Id': '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual(SESSION_NOT_FOUND);
    // Still alive for its owner.
    await post(keyA, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'Mcp-Session-Id': sessionId });
    const asA = await post(keyA, list, { 'Mcp-Session-Id': sessionId });
    expect(asA.status).toBe(200);
    expect(await asA.text()).toContain('store_memory');
  });

  it('opens the event stream with GET and ends the session with DELETE', async () => {
    const sessionId = await initialize(TEST_KEY);
    const auth = { Authorization: `Bearer ${TEST_KEY}`, 'Mcp-Session-Id': sessionId };
    const controller = new AbortController();
    const stream = await fetch(server.mcpUrl, { headers: { ...auth, Accept: 'text/event-stream' }, signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    controller.abort();
    const end = await fetch(server.mcpUrl, { method: 'DELETE', headers: auth });
    expect(end.status).toBe(200);
    const after = await post(TEST_KEY, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'Mcp-Session-Id': sessionId });
    expect(after.status).toBe(404);
  });

  it('answers requests outside a session as the SDK does', async () => {
    const noSession = await post(TEST_KEY, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(noSession.status).toBe(400);
    expect(((await noSession.json()) as { error: { message: string } }).error.message).toBe('Bad Request: Server not initialized');
    const get = await fetch(server.mcpUrl, { headers: { Authorization: `Bearer ${TEST_KEY}`, Accept: 'text/event-stream' } });
    expect(get.status).toBe(400);
    const put = await fetch(server.mcpUrl, { method: 'PUT', headers: { Authorization: `Bearer ${TEST_KEY}` } });
    expect(put.status).toBe(405);
    const badAccept = await post(TEST_KEY, INITIALIZE, { Accept: 'application/json' });
    expect(badAccept.status).toBe(406);
  });

  it('guards a loopback server against DNS rebinding: Host and Origin must be local', async () => {
    expect((await rawStatus({ Host: 'evil.example:8787' })).status).toBe(403);
    expect((await rawStatus({ Origin: 'http://evil.example' })).status).toBe(403);
    expect((await rawStatus({ Host: `localhost:${server.port}`, Origin: 'http://localhost:6274' })).status).toBe(200);
    // The CLI turns the guard on for loopback listen addresses only; elsewhere the API key is the protection.
    expect(loopbackHostnames('127.0.0.1')).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(loopbackHostnames('::1')).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(loopbackHostnames('0.0.0.0')).toBeUndefined();
  });
});

describe('session bounds and shutdown', () => {
  /** Opens a session with a raw initialize on `url` (no event stream: the session stays idle). */
  async function rawSession(url: URL, key: string): Promise<string> {
    const res = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, Authorization: `Bearer ${key}` }, body: JSON.stringify(INITIALIZE) });
    expect(res.status).toBe(200);
    await res.body?.cancel();
    return res.headers.get('mcp-session-id') ?? '';
  }

  async function listStatus(url: URL, key: string, session: string): Promise<number> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, Authorization: `Bearer ${key}`, 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    await res.body?.cancel();
    return res.status;
  }

  it('closes the least recently used idle session beyond the cap', async () => {
    const small = await startMcpTestServer({ maxSessions: 2 });
    try {
      const first = await rawSession(small.mcpUrl, TEST_KEY);
      const second = await rawSession(small.mcpUrl, TEST_KEY);
      const third = await rawSession(small.mcpUrl, TEST_KEY);
      // The first session was evicted: its id is now unknown.
      expect(await listStatus(small.mcpUrl, TEST_KEY, first)).toBe(404);
      expect(await listStatus(small.mcpUrl, TEST_KEY, second)).toBe(200);
      expect(await listStatus(small.mcpUrl, TEST_KEY, third)).toBe(200);
    } finally {
      await small.remove();
    }
  });

  it('never evicts a session in use: a full node refuses the new session with 503 and Retry-After', async () => {
    const small = await startMcpTestServer({ maxSessions: 2 });
    try {
      // SDK clients keep an event stream open on their session: both are in use.
      const first = await connectHttp(small.mcpUrl, TEST_KEY);
      const second = await connectHttp(small.mcpUrl, TEST_KEY);
      const res = await fetch(small.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, Authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify(INITIALIZE) });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('30');
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      expect((await first.client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
      expect((await second.client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
      await Promise.all([first.client.close(), second.client.close()]);
    } finally {
      await small.remove();
    }
  });

  it('holds each key to its own quota: one key opening many sessions never evicts another key\u2019s', async () => {
    const small = await startMcpTestServer({ maxSessions: 10, maxSessionsPerKey: 2 });
    try {
      const a = (await createApiKey(small.runtime.store, { label: 'a' })).key;
      const b = (await createApiKey(small.runtime.store, { label: 'b' })).key;
      const others = [await rawSession(small.mcpUrl, b), await rawSession(small.mcpUrl, b)];
      const mine: string[] = [];
      for (let i = 0; i < 12; i++) mine.push(await rawSession(small.mcpUrl, a));
      for (const session of others) expect(await listStatus(small.mcpUrl, b, session)).toBe(200);
      // Key a keeps its two newest sessions.
      expect(await listStatus(small.mcpUrl, a, mine[0] ?? '')).toBe(404);
      expect(await listStatus(small.mcpUrl, a, mine[11] ?? '')).toBe(200);
      // With both of key a's sessions in use, its next one is refused with 429.
      const busy = [await connectHttp(small.mcpUrl, a), await connectHttp(small.mcpUrl, a)];
      const res = await fetch(small.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, Authorization: `Bearer ${a}` }, body: JSON.stringify(INITIALIZE) });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('60');
      await res.body?.cancel();
      for (const session of others) expect(await listStatus(small.mcpUrl, b, session)).toBe(200);
      await Promise.all(busy.map((c) => c.client.close()));
    } finally {
      await small.remove();
    }
  });

  it('ends open sessions and their event streams when the server closes', async () => {
    const closing = await startMcpTestServer();
    const { client } = await connectHttp(closing.mcpUrl, TEST_KEY);
    // The SDK client keeps a GET event stream open: without closing the sessions, close would wait the full grace.
    const started = Date.now();
    await closing.close(20_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    await client.close().catch(() => undefined);
    await closing.remove();
  });
});
