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
  it('makes room beyond the cap by closing the least recently used idle session', async () => {
    const evicted: string[] = [];
    const registry = new SessionRegistry({ maxSessions: 2, maxPerOwner: 10, idleMs: 1_000, onEvict: (id, reason) => evicted.push(`${id}:${reason}`) });
    const [a, b, c] = [entry(), entry(), entry()];
    await Promise.all([a, b, c].map((e) => e.connect()));
    registry.add('a', a);
    registry.add('b', b);
    registry.acquire('a'); // a is now the most recently used
    registry.release('a');
    expect(registry.admit('key_a')).toBe('ok');
    registry.add('c', c);
    expect(evicted).toEqual(['b:capacity']);
    expect(registry.size).toBe(2);
    await expect.poll(() => b.closed()).toBe(true);
    expect(registry.acquire('b')).toBeUndefined();
  });

  it('never closes a session in use to make room: the new one is refused instead', async () => {
    const registry = new SessionRegistry({ maxSessions: 2, maxPerOwner: 10, idleMs: 1_000 });
    const [a, b] = [entry('key_a'), entry('key_b')];
    await Promise.all([a, b].map((e) => e.connect()));
    registry.add('a', a);
    registry.add('b', b);
    registry.acquire('a'); // a request in progress, or an open event stream
    registry.acquire('b');
    expect(registry.admit('key_c')).toBe('capacity');
    expect(registry.size).toBe(2);
    expect(a.closed() || b.closed()).toBe(false);
  });

  it('holds each key to its quota: a key beyond it gives up its own idle session, never another key\u2019s', async () => {
    const evicted: string[] = [];
    const registry = new SessionRegistry({ maxSessions: 100, maxPerOwner: 2, idleMs: 1_000, onEvict: (id, reason) => evicted.push(`${id}:${reason}`) });
    const other = entry('key_other');
    await other.connect();
    registry.add('other', other); // the oldest session of all
    for (let i = 0; i < 5; i++) {
      const mine = entry('key_greedy');
      await mine.connect();
      expect(registry.admit('key_greedy')).toBe('ok');
      registry.add(`g${i}`, mine);
    }
    expect(registry.countOf('key_greedy')).toBe(2);
    expect(registry.acquire('other')?.owner).toBe('key_other');
    expect(evicted).toEqual(['g0:key-quota', 'g1:key-quota', 'g2:key-quota']);
    // Both of its sessions in use: its next one is refused, and nobody else's is touched.
    registry.acquire('g3');
    registry.acquire('g4');
    expect(registry.admit('key_greedy')).toBe('key-quota');
  });

  it('a full node takes room from the key that holds the most sessions', async () => {
    const registry = new SessionRegistry({ maxSessions: 3, maxPerOwner: 3, idleMs: 1_000 });
    const sessions = [entry('key_small'), entry('key_big'), entry('key_big')];
    await Promise.all(sessions.map((e) => e.connect()));
    sessions.forEach((e, i) => registry.add(`s${i}`, e)); // key_small's is the least recently used
    expect(registry.admit('key_new')).toBe('ok');
    expect(registry.acquire('s0')?.owner).toBe('key_small');
    expect(registry.acquire('s1')).toBeUndefined();
    expect(registry.countOf('key_big')).toBe(1);
  });

  it('closes idle sessions, but never one with a request or stream open', async () => {
    let now = 0;
    const registry = new SessionRegistry({ maxSessions: 10, maxPerOwner: 10, idleMs: 1_000, now: () => now });
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
