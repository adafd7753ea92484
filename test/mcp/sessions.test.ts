import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { SessionRegistry } from '../../src/mcp/sessions.js';

function entry(owner = 'key_a') {
  const server = new McpServer({ name: 't', version: '0' });
  let closed = false;
  server.server.onclose = () => (closed = true);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'x' });
  return { server, transport, owner, closed: () => closed, connect: () => server.connect(transport) };
}

describe('SessionRegistry', () => {
  it('closes the least recently used session beyond the cap', async () => {
    const evicted: string[] = [];
    const registry = new SessionRegistry({ maxSessions: 2, idleMs: 1_000, onEvict: (id, reason) => evicted.push(`${id}:${reason}`) });
    const [a, b, c] = [entry(), entry(), entry()];
    await Promise.all([a, b, c].map((e) => e.connect()));
    registry.add('a', a);
    registry.add('b', b);
    registry.acquire('a'); // a is now the most recently used
    registry.release('a');
    registry.add('c', c);
    expect(evicted).toEqual(['b:capacity']);
    expect(registry.size).toBe(2);
    await expect.poll(() => b.closed()).toBe(true);
    expect(registry.acquire('b')).toBeUndefined();
  });

  it('closes idle sessions, but never one with a request or stream open', async () => {
    let now = 0;
    const registry = new SessionRegistry({ maxSessions: 10, idleMs: 1_000, now: () => now });
    const [idle, busy, fresh] = [entry(), entry(), entry()];
    await Promise.all([idle, busy, fresh].map((e) => e.connect()));
    registry.add('idle', idle);
    registry.add('busy', busy);
    registry.acquire('busy'); // e.g. an open GET event stream
    now = 900;
    registry.add('fresh', fresh);
    now = 1_500;
    registry.sweep();
    expect(registry.acquire('idle')).toBeUndefined();
    expect(registry.acquire('busy')?.owner).toBe('key_a');
    expect(registry.acquire('fresh')).toBeDefined();
    await registry.closeAll();
    expect(registry.size).toBe(0);
    expect(busy.closed() && fresh.closed()).toBe(true);
  });
});
