/**
 * MCP 2026-07-28 next to the 2025 revisions on one /mcp endpoint: the same tool call gives the same result JSON over
 * a v1 SDK client (2025-11-25, a session) and a v2 SDK client pinned to 2026-07-28 (stateless, the _meta envelope),
 * failures included, and the 2026-07-28 path sits behind the same key check as the 2025 one.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernToolCall } from '../helpers/mcp-modern.js';
import { connectHttp, startMcpTestServer, TEST_KEY, type McpTestServer } from './helpers.js';

let server: McpTestServer;
let v1: Client;
let v2: ModernClient;

beforeAll(async () => {
  server = await startMcpTestServer();
  v1 = (await connectHttp(server.mcpUrl, TEST_KEY)).client;
  v2 = new ModernClient({ name: 'agent-memory-test', version: '0.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await v2.connect(new ModernTransport(server.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${TEST_KEY}` } } }));
});

afterAll(async () => {
  await v1?.close();
  await v2?.close();
  await server?.remove();
});

/** A result without what the protocol itself adds to it (`_meta` keys under io.modelcontextprotocol/, e.g. serverInfo). */
function ours(result: unknown): Record<string, unknown> {
  const { _meta, ...rest } = result as { _meta?: Record<string, unknown> };
  const meta = Object.fromEntries(Object.entries(_meta ?? {}).filter(([key]) => !key.startsWith('io.modelcontextprotocol/')));
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}

const callV1 = async (name: string, args: Record<string, unknown>) => ours(await v1.callTool({ name, arguments: args }));
const callV2 = async (name: string, args: Record<string, unknown>) => ours(await v2.callTool({ name, arguments: args }));

/** Calls the tool over both revisions and expects the same result; returns it. */
async function same(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const [old, modern] = [await callV1(name, args), await callV2(name, args)];
  expect(modern).toEqual(old);
  return old;
}

describe('MCP 2026-07-28 and 2025-11-25 on one endpoint', () => {
  it('negotiated what each client speaks', () => {
    expect(v2.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  });

  it('lists the same tools, with the same schemas and annotations', async () => {
    expect((await v2.listTools()).tools).toEqual((await v1.listTools()).tools);
  });

  it('answers the same successful calls with the same result JSON', async () => {
    const userId = 'parity-user';
    const stored = await callV1('store_memory', { userId, text: 'Noor plays the oud on Sundays.', metadata: { topic: 'music' } });
    const storedToo = await callV2('store_memory', { userId, text: 'Noor plays the oud on Sundays.', metadata: { topic: 'music' } });
    // The second store finds the first: same memory, flagged as a duplicate, over the other revision.
    expect(storedToo).toEqual({
      ...stored,
      structuredContent: { ...(stored.structuredContent as object), duplicate: true },
      content: [{ type: 'text', text: JSON.stringify({ ...(stored.structuredContent as object), duplicate: true }) }],
    });
    const id = (stored.structuredContent as { id: string }).id;
    await same('get_memory', { id });
    await same('list_memories', { userId });
    await same('recall_memories', { userId, query: 'Which instrument does Noor play?', minScore: 0 });
    await same('recall_memories', { userId, query: 'Which instrument does Noor play?', minScore: 0, format: 'raw' });
    const updated = await callV1('update_memory', { id, metadata: { topic: 'music', day: 'sunday' } });
    expect(ours(await v2.callTool({ name: 'get_memory', arguments: { id } })).structuredContent).toEqual(updated.structuredContent);
    expect((await callV2('forget_memory', { id })).structuredContent).toEqual({ deleted: 1 });
    await same('forget_memory', { id });
  });

  it('answers the same failures with the same result JSON: validation, not found, unknown tool, too many elements', async () => {
    const failures: Array<[string, Record<string, unknown>]> = [
      ['store_memory', { userId: 'parity-user', text: '' }],
      ['store_memory', { user_id: 'parity-user', text: 'misspelt field' }],
      ['store_memory', {}],
      ['recall_memories', { userId: 'parity-user', query: 'x', limit: 0 }],
      ['get_memory', { id: 'mem_doesnotexist' }],
      ['forget_memory', { id: 'mem_a', ids: ['mem_b'] }],
      ['update_memory', { text: 'no id' }],
      ['remember_everything', {}],
      // Past the bound on argument elements (10,000), refused before any validation.
      ['list_memories', { userId: 'parity-user', metadata: Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, i])) }],
    ];
    for (const [name, args] of failures) {
      const result = await same(name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
    }
  });
});

describe('the 2026-07-28 path behind the same guards', () => {
  const modernCall = (headers: Record<string, string>) =>
    fetch(server.mcpUrl, modernToolCall('list_memories', { userId: 'parity-user' }, headers));

  it('refuses a request without a valid key with the same 401 and WWW-Authenticate as a 2025 request', async () => {
    for (const key of [undefined, `amk_${'x'.repeat(40)}`]) {
      const res = await modernCall(key ? { Authorization: `Bearer ${key}` } : {});
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('auth_error');
    }
  });

  it('serves the same request with a key, without a session', async () => {
    const res = await modernCall({ Authorization: `Bearer ${TEST_KEY}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = (await res.json()) as { result: { structuredContent: { total: number } } };
    expect(body.result.structuredContent.total).toBe(0);
  });

  it('keeps the DNS-rebinding guard', async () => {
    const res = await modernCall({ Authorization: `Bearer ${TEST_KEY}`, Origin: 'http://evil.example' });
    expect(res.status).toBe(403);
  });
});
