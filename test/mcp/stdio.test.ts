/**
 * The real command over stdio: `node bin/agent-memory.js mcp`, spawned from the built dist/ (built by the
 * end-to-end project's global setup when missing or older than the sources).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { openStoreOnly } from '../../src/runtime/runtime.js';
import type { ListResult, RecallResult, StoreResult } from '../../src/core/schemas.js';
import { call, ok, tempDir } from './helpers.js';
import { TOOL_NAMES } from './tool-names.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/agent-memory.js');

const tmp = tempDir();
afterAll(() => tmp.remove());

interface Spawned {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
}

async function spawnClient(args: string[], env: Record<string, string> = {}): Promise<Spawned> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'agent-memory-stdio-test', version: '0.0.0' });
  await client.connect(transport);
  await client.listTools();
  return { client, transport, stderr: () => stderr };
}

/** Spawns the command with plain pipes, to see every byte it writes. */
function spawnRaw(args: string[], env: Record<string, string> = {}): { child: ChildProcess; stdout: () => string; stderr: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'mcp', ...args], { env: { ...getDefaultEnvironment(), ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

const message = (value: unknown) => `${JSON.stringify(value)}\n`;
const INITIALIZE = message({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
const INITIALIZED = message({ jsonrpc: '2.0', method: 'notifications/initialized' });

describe('agent-memory mcp (stdio)', () => {
  it('serves the tools to an SDK client, acting for --user-id', async () => {
    const { client, stderr } = await spawnClient(['--db', tmp.dbPath, '--user-id', 'u1']);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES]);
    const stored = ok<StoreResult>(await call(client, 'store_memory', { text: 'Priya is learning Japanese for a trip to Kyoto.' }));
    expect(stored.userId).toBe('u1');
    const recalled = ok<RecallResult>(await call(client, 'recall_memories', { query: 'Which language is Priya studying?', minScore: 0 }));
    expect(recalled.memories.map((m) => m.id)).toContain(stored.id);
    expect(ok<ListResult>(await call(client, 'list_memories', {})).total).toBe(1);
    await client.close();
    expect(stderr()).toContain('mcp server ready on stdio');
  });

  it('takes the default user from MEMORY_USER_ID and MEMORY_APP_ID', async () => {
    const { client } = await spawnClient(['--db', tmp.dbPath], { MEMORY_USER_ID: 'env-user', MEMORY_APP_ID: 'env-app' });
    expect(ok<StoreResult>(await call(client, 'store_memory', { text: 'Env user fact.' }))).toMatchObject({ userId: 'env-user', appId: 'env-app' });
    await client.close();
  });

  it('writes only protocol messages to stdout, and finishes a call in flight when stdin ends', async () => {
    const raw = spawnRaw(['--db', tmp.dbPath, '--user-id', 'piped']);
    const store = message({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'store_memory', arguments: { text: 'Written by a client that hung up at once.' } },
    });
    // Everything at once, then end of input: the store must still be answered and committed.
    raw.child.stdin?.end(INITIALIZE + INITIALIZED + store);
    expect(await raw.exit).toBe(0);
    const lines = raw.stdout().split('\n').filter((l) => l.length > 0);
    const parsed = lines.map((l) => JSON.parse(l) as { jsonrpc: string; id?: number; result?: { structuredContent?: StoreResult } });
    expect(parsed.every((m) => m.jsonrpc === '2.0')).toBe(true);
    expect(parsed.map((m) => m.id)).toEqual([1, 2]);
    expect(parsed[1]?.result?.structuredContent?.userId).toBe('piped');
    // Logs went to stderr, as JSON lines.
    expect(raw.stderr()).toContain('"message":"mcp stdio closing","reason":"input ended"');
    const store2 = await openStoreOnly({ dbPath: tmp.dbPath });
    try {
      const app = await store2.findApp('default');
      expect(app).toBeDefined();
      const page = await store2.listMemories({ userId: 'piped', scope: { appId: null }, offset: 0, limit: 10 });
      expect(page.items.map((m) => m.text)).toEqual(['Written by a client that hung up at once.']);
    } finally {
      await store2.close();
    }
  });

  it('serves a 2026-07-28 client that calls a tool at once (no handshake), and finishes the call when stdin ends', async () => {
    const raw = spawnRaw(['--db', tmp.dbPath, '--user-id', 'modern']);
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const store = message({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'store_memory', arguments: { text: 'Stored over 2026-07-28 on stdio.' }, _meta: envelope },
    });
    // A 2025 handshake on a connection that opened as 2026-07-28 is refused, not served.
    raw.child.stdin?.end(store + INITIALIZE);
    expect(await raw.exit).toBe(0);
    const parsed = raw
      .stdout()
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as { id?: number; result?: { structuredContent?: StoreResult }; error?: { code: number } });
    expect(parsed.find((m) => m.id === 7)?.result?.structuredContent).toMatchObject({ userId: 'modern', duplicate: false });
    expect(parsed.find((m) => m.id === 1)?.error).toBeDefined();
  });

  it('stops cleanly on SIGTERM while stdin is still open', async () => {
    const raw = spawnRaw(['--db', tmp.dbPath]);
    raw.child.stdin?.write(INITIALIZE);
    await expect.poll(() => raw.stdout(), { timeout: 20_000 }).toContain('"id":1');
    raw.child.kill('SIGTERM');
    expect(await raw.exit).toBe(0);
    expect(raw.stderr()).toContain('"reason":"SIGTERM"');
  });

  it('refuses an invalid --user-id at start, on stderr, with nothing on stdout', async () => {
    const raw = spawnRaw(['--db', tmp.dbPath, '--user-id', 'bad\u0001id']);
    expect(await raw.exit).toBe(1);
    expect(raw.stderr()).toContain('--user-id: userId must not contain control characters.');
    expect(raw.stdout()).toBe('');
  });

  it('runs two processes side by side on one database file without losing a write', async () => {
    const shared = tempDir();
    try {
      const [a, b] = await Promise.all([
        spawnClient(['--db', shared.dbPath, '--user-id', 'both']),
        spawnClient(['--db', shared.dbPath, '--user-id', 'both']),
      ]);
      const perProcess = 15;
      const writes = (side: Spawned, tag: string) =>
        Promise.all(Array.from({ length: perProcess }, (_, i) => call(side.client, 'store_memory', { text: `Fact ${i} from process ${tag}.` })));
      const results = (await Promise.all([writes(a, 'A'), writes(b, 'B')])).flat();
      expect(results.filter((r) => r.isError)).toEqual([]);
      const seenByA = ok<ListResult>(await call(a.client, 'list_memories', { pageSize: 100 }));
      const seenByB = ok<ListResult>(await call(b.client, 'list_memories', { pageSize: 100 }));
      expect(seenByA.total).toBe(2 * perProcess);
      expect(seenByB.total).toBe(2 * perProcess);
      await Promise.all([a.client.close(), b.client.close()]);
      expect(a.stderr() + b.stderr()).not.toMatch(/locked|SQLITE_BUSY/i);
    } finally {
      shared.remove();
    }
  });
});
