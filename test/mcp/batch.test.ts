import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { createMcpHttpHandler } from '../../src/mcp/http.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';

const RATE = 20;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(
    { rateLimit: RATE },
    { mcpHandler: (service) => createMcpHttpHandler({ service, sessions: 'stateless' }) },
  );
});
afterAll(async () => {
  await server.stop();
});

const HEADERS = {
  Authorization: `Bearer ${TEST_KEY}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': '2025-06-18',
};

function storeCall(id: number) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'store_memory', arguments: { userId: 'batch', text: `Batch fact number ${id}.` } },
  };
}

function post(body: unknown | Buffer): Promise<Response> {
  return fetch(new URL('/mcp', server.url), {
    method: 'POST',
    headers: HEADERS,
    body: Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
}

/** Counted in process: a REST call would spend the key's tokens. */
async function stored(): Promise<number> {
  return (await server.runtime.service.list(LOCAL_CALLER, { userId: 'batch' })).total;
}

// In order, on one bucket of 20 tokens.
describe('a JSON-RPC batch on /mcp', () => {
  it('refuses a body that is not UTF-8 with a JSON-RPC parse error', async () => {
    const [head, tail] = JSON.stringify(storeCall(7)).split('number');
    const body = Buffer.concat([Buffer.from(head ?? ''), Buffer.from([0xff]), Buffer.from(tail ?? '')]);
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect(Number(res.headers.get('ratelimit-remaining'))).toBe(RATE - 1);
    expect(await stored()).toBe(0);
  });

  it('costs one token per tool call', async () => {
    const res = await post([storeCall(100), storeCall(101)]);
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('ratelimit-remaining'))).toBe(RATE - 3);
    await res.text();
    expect(await stored()).toBe(2);
  });

  it('is 429 when it has more tool calls than the bucket has tokens, and runs none of them', async () => {
    const res = await post(Array.from({ length: RATE }, (_, i) => storeCall(i + 1)));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limit');
    expect(await stored()).toBe(2);
  });
});
