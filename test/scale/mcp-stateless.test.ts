/**
 * MCP over streamable HTTP without sessions (`--mcp-sessions stateless`, the default on PostgreSQL): each POST is
 * served by a server and transport of its own, so no request depends on the node that saw the previous one. Run
 * on SQLite, which is enough for the HTTP side; two-nodes.test.ts alternates a client between two real nodes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpSessionMode } from '../../src/cli/commands/mcp.js';
import { ConfigError } from '../../src/runtime/config.js';
import { createApiKey } from '../../src/core/key-admin.js';
import type { ListResult, StoreResult } from '../../src/core/schemas.js';
import { call, connectHttp, errorOf, ok, startMcpTestServer, TEST_KEY, type McpTestServer } from '../mcp/helpers.js';

let server: McpTestServer;
let keyA: string;

const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

beforeAll(async () => {
  server = await startMcpTestServer({ sessions: 'stateless' });
  keyA = (await createApiKey(server.runtime.store, { app: 'app-a', label: 'a' })).key;
});
afterAll(async () => {
  await server.remove();
});

function post(key: string, body: unknown): Promise<Response> {
  return fetch(server.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, Authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
}

describe('MCP over HTTP, stateless', () => {
  it('answers each POST by itself: no session id is issued, and none is needed', async () => {
    const init = await post(TEST_KEY, INITIALIZE);
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(await init.text()).toContain('"serverInfo"');
    // A request that no initialize preceded on this node (another node may have seen it) is served.
    const list = await post(TEST_KEY, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('store_memory');
  });

  it('answers GET and DELETE with 405 and a JSON-RPC error body: there is no stream or session to open or end', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(server.mcpUrl, { method, headers: { Authorization: `Bearer ${TEST_KEY}`, Accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    }
    // The key check still comes first.
    const anonymous = await fetch(server.mcpUrl, { method: 'GET' });
    expect(anonymous.status).toBe(401);
  });

  it('acts as the key of each request: a bound key stays in its app, another app is forbidden', async () => {
    const { client, transport } = await connectHttp(server.mcpUrl, keyA);
    try {
      expect(transport.sessionId).toBeUndefined();
      expect(ok<StoreResult>(await call(client, 'store_memory', { userId: 'u', text: 'A fact for app A.' })).appId).toBe('app-a');
      expect(errorOf(await call(client, 'store_memory', { userId: 'u', text: 'x', appId: 'app-b' }))).toEqual({
        code: 'forbidden',
        message: 'This API key is bound to the app "app-a" and cannot use the app "app-b".',
      });
      expect(ok<ListResult>(await call(client, 'list_memories', { userId: 'u' })).memories.map((m) => m.appId)).toEqual(['app-a']);
    } finally {
      await client.close();
    }
    // The same client with the unbound key sees every app: nothing of the bound key's requests stayed behind.
    const { client: unbound } = await connectHttp(server.mcpUrl, TEST_KEY);
    try {
      await call(unbound, 'store_memory', { userId: 'u', text: 'A fact for app B.', appId: 'app-b' });
      expect(ok<ListResult>(await call(unbound, 'list_memories', { userId: 'u' })).total).toBe(2);
    } finally {
      await unbound.close();
    }
  });

  it('stops at once, with no event streams to end', async () => {
    const other = await startMcpTestServer({ sessions: 'stateless' });
    const { client } = await connectHttp(other.mcpUrl, TEST_KEY);
    const started = Date.now();
    await other.close(20_000);
    // Far within the 20 s grace: nothing held the close (the bound is loose for a busy machine).
    expect(Date.now() - started).toBeLessThan(5_000);
    await client.close().catch(() => undefined);
    await other.remove();
  });
});

describe('choosing the mode', () => {
  it('defaults to stateless on PostgreSQL and stateful on SQLite; the flag beats the environment', () => {
    const pg = { databaseUrl: 'postgres://u:p@db/memory' };
    const sqlite = { databaseUrl: undefined };
    expect(mcpSessionMode({}, {}, pg)).toBe('stateless');
    expect(mcpSessionMode({}, {}, sqlite)).toBe('stateful');
    expect(mcpSessionMode({}, { MEMORY_MCP_SESSIONS: 'stateful' }, pg)).toBe('stateful');
    expect(mcpSessionMode({}, { MEMORY_MCP_SESSIONS: 'stateless' }, sqlite)).toBe('stateless');
    expect(mcpSessionMode({ 'mcp-sessions': 'stateful' }, { MEMORY_MCP_SESSIONS: 'stateless' }, sqlite)).toBe('stateful');
    expect(mcpSessionMode({}, { MEMORY_MCP_SESSIONS: '' }, pg)).toBe('stateless');
    expect(() => mcpSessionMode({ 'mcp-sessions': 'sticky' }, {}, sqlite)).toThrow(ConfigError);
    expect(() => mcpSessionMode({ 'mcp-sessions': 'sticky' }, {}, sqlite)).toThrow('--mcp-sessions must be stateful or stateless, not "sticky".');
  });
});
