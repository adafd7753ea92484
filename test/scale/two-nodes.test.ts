/**
 * Scaling out: several stateless agent-memory nodes on one PostgreSQL database. Two in-process servers (A, B)
 * and, for the crash, a spawned `agent-memory serve` process, all on one database, answer for each other: data,
 * idempotency, the rate limit, key revocation and MCP (stateless, no sticky sessions) hold across nodes; a node
 * killed mid-write loses no acknowledged store; a database outage gives 503s in the contract's shape, then heals.
 *
 * The suite runs twice: on PGlite (test/helpers/postgres.ts) in `npm test`'s main lane, and on a real PostgreSQL
 * server without pgvector (plain vectors, exact scans) in `npm run test:postgres-server`. What PGlite weakens,
 * honestly: it serves every connection from ONE session and runs one transaction at a time, so there the nodes'
 * requests reach the database one after the other and the tests show that the state is shared; on the real server
 * they are parallel sessions, and the row locks and ON CONFLICT clauses settle real races. The crash test kills a
 * node, never the database (a throwaway cluster without fsync): it proves "acknowledged means committed", not
 * PostgreSQL's own durability.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHttpHandler } from '../../src/runtime/mcp.js';
import { startServer, type RunningServer } from '../../src/runtime/serve.js';
import type { ServeConfig } from '../../src/runtime/config.js';
import { createApiKey } from '../../src/core/key-admin.js';
import { silentLogger } from '../../src/core/logger.js';
import type { ListResult, RecallResult, StoreResult } from '../../src/core/schemas.js';
import { startTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { TEST_KEY, TEST_MODEL, type ErrorJson } from '../helpers/server.js';
import { announcedUrl } from '../../tools/shared/listening.js';
import { TOOL_NAMES } from '../mcp/tool-names.js';

const CLI = new URL('./support/cli.ts', import.meta.url).pathname;

let db: TestDatabase;
let dir: string;
let a: RunningServer;
let b: RunningServer;
/** Spawned nodes, killed at the end whatever happened. */
const children = new Set<ChildProcess>();

function config(overrides: Partial<ServeConfig> = {}): ServeConfig {
  return {
    dbPath: join(dir, 'unused.db'),
    databaseUrl: db.url,
    pgPoolSize: 4,
    model: TEST_MODEL,
    modelDir: undefined,
    logLevel: 'error',
    port: 0,
    host: '127.0.0.1',
    apiKey: TEST_KEY,
    rateLimit: 0,
    ...overrides,
  };
}

/** A node as `serve` builds it, in this process: MCP in its default mode for PostgreSQL (stateless). */
async function startNode(overrides: Partial<ServeConfig> = {}): Promise<RunningServer> {
  const settings = config(overrides);
  return startServer(settings, { logger: silentLogger, output: { print() {}, notice() {} }, mcpHandler: mcpHttpHandler(settings, {}) });
}

function call(node: { url: string }, path: string, init: RequestInit & { json?: unknown; key?: string } = {}): Promise<Response> {
  const { json, key, headers, ...rest } = init;
  const merged = new Headers({ Authorization: `Bearer ${key ?? TEST_KEY}` });
  if (json !== undefined) merged.set('Content-Type', 'application/json');
  new Headers(headers).forEach((value, name) => merged.set(name, value));
  return fetch(`${node.url}${path}`, { ...rest, headers: merged, ...(json === undefined ? {} : { body: JSON.stringify(json) }) });
}

async function listAll(node: { url: string }, userId: string): Promise<ListResult['memories']> {
  const out: ListResult['memories'] = [];
  for (let page = 0; ; page++) {
    const res = await call(node, `/v1/memories?userId=${encodeURIComponent(userId)}&pageSize=100&page=${page}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as ListResult;
    out.push(...body.memories);
    if (body.memories.length < 100) return out;
  }
}

beforeAll(async () => {
  db = await startTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-nodes-'));
  // Together, as a rolling deploy would: both migrate (one waits for the other) and declare the model.
  [a, b] = await Promise.all([startNode(), startNode()]);
  await Promise.all([a.runtime.modelReady, b.runtime.modelReady]);
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.allSettled([a?.close(1_000), b?.close(1_000)]);
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('two nodes on one PostgreSQL database', () => {
  it('stores on one node; lists, recalls and deletes on the other', async () => {
    const res = await call(a, '/v1/memories', { method: 'POST', json: { userId: 'ana', text: 'Ana keeps bees on her roof in Lyon.' } });
    expect(res.status).toBe(201);
    const stored = (await res.json()) as StoreResult;
    expect((await listAll(b, 'ana')).map((m) => m.id)).toEqual([stored.id]);
    const recall = await call(b, `/v1/memories/recall?userId=ana&query=${encodeURIComponent('Does Ana have any hobbies with insects?')}&minScore=0`);
    expect(((await recall.json()) as RecallResult).memories.map((m) => m.id)).toContain(stored.id);
    const deleted = await call(b, `/v1/memories/${stored.id}`, { method: 'DELETE' });
    expect(await deleted.json()).toEqual({ deleted: 1 });
    expect(await listAll(a, 'ana')).toEqual([]);
  });

  it('answers an idempotent retry on the other node with the same memory', async () => {
    const store = { userId: 'retry', text: 'Bo prefers aisle seats on long flights.' };
    const first = await call(a, '/v1/memories', { method: 'POST', json: store, headers: { 'Idempotency-Key': 'trip-42' } });
    const retry = await call(b, '/v1/memories', { method: 'POST', json: store, headers: { 'Idempotency-Key': 'trip-42' } });
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(await first.json());
    const reuse = await call(b, '/v1/memories', { method: 'POST', json: { ...store, text: 'other' }, headers: { 'Idempotency-Key': 'trip-42' } });
    expect(reuse.status).toBe(409);
    expect(await listAll(b, 'retry')).toHaveLength(1);
  });

  it('stores once when retries with one Idempotency-Key race on both nodes at once', async () => {
    const store = { userId: 'race', text: 'Cy is flying to Oslo on Friday.' };
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(i % 2 === 0 ? a : b, '/v1/memories', { method: 'POST', json: store, headers: { 'Idempotency-Key': 'race-1' } }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(201));
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as StoreResult[];
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
    expect((await listAll(a, 'race')).map((m) => m.id)).toEqual([bodies[0]!.id]);
  });

  it('keeps one memory per caller key when the same PUT reaches both nodes at once, round after round', async () => {
    const rounds = 12;
    const perRound = 8;
    for (let round = 0; round < rounds; round++) {
      const path = `/v1/memories/by-key/slot-${round}`;
      const answers = await Promise.all(
        Array.from({ length: perRound }, (_, i) =>
          call(i % 2 === 0 ? a : b, path, { method: 'PUT', json: { userId: 'keyed-race', text: `Round ${round}: the value written by writer ${i}.` } }),
        ),
      );
      const statuses = answers.map((r) => r.status).sort();
      // One writer created the memory; every other one replaced it.
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      const ids = new Set(((await Promise.all(answers.map((r) => r.json()))) as Array<{ id: string }>).map((m) => m.id));
      expect(ids.size).toBe(1);
      const [readA, readB] = await Promise.all([call(a, `${path}?userId=keyed-race`), call(b, `${path}?userId=keyed-race`)]);
      const [memA, memB] = (await Promise.all([readA.json(), readB.json()])) as Array<{ id: string; text: string }>;
      expect(memA).toEqual(memB);
      expect(ids.has(memA!.id)).toBe(true);
      expect(memA!.text).toMatch(new RegExp(`^Round ${round}: the value written by writer \\d\\.$`));
    }
    const listed = await listAll(a, 'keyed-race');
    expect(listed).toHaveLength(rounds);
    expect(new Set(listed.map((m) => (m as { key?: string }).key)).size).toBe(rounds);
  });

  it('refuses a revoked key on both nodes within 2 s', async () => {
    const { key, record } = await createApiKey(a.runtime.store, { label: 'soon revoked' });
    for (const node of [a, b]) expect((await call(node, '/v1/memories?userId=x', { key })).status).toBe(200);
    // `agent-memory keys revoke` on any machine: a write to the shared table, nothing sent to the nodes.
    await b.runtime.store.revokeKey(record.id, new Date().toISOString());
    const revokedAt = Date.now();
    for (const node of [a, b]) {
      for (;;) {
        const res = await call(node, '/v1/memories?userId=x', { key });
        if (res.status === 401) {
          expect(((await res.json()) as ErrorJson).error.code).toBe('auth_error');
          break;
        }
        expect(Date.now() - revokedAt).toBeLessThan(2_000);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    expect(Date.now() - revokedAt).toBeLessThan(2_000);
  });

  it('serves an MCP client whose requests alternate between the nodes (stateless, no sticky sessions)', async () => {
    const { key } = await createApiKey(a.runtime.store, { app: 'app-mcp', label: 'mcp agent' });
    const hits = { [a.url]: 0, [b.url]: 0 };
    let turn = 0;
    // A load balancer without affinity: every HTTP request goes to the next node.
    const roundRobin: FetchLike = (url, init) => {
      const node = turn++ % 2 === 0 ? a : b;
      hits[node.url] = (hits[node.url] ?? 0) + 1;
      const target = new URL(url);
      target.host = new URL(node.url).host;
      return fetch(target, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', a.url), {
      fetch: roundRobin,
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'round-robin', version: '0.0.0' });
    await client.connect(transport);
    try {
      expect(transport.sessionId).toBeUndefined();
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES]);
      const tool = async <T>(name: string, args: Record<string, unknown>): Promise<{ result: CallToolResult; data: T }> => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        return { result, data: result.structuredContent as T };
      };
      const stored = await tool<StoreResult>('store_memory', { userId: 'mcp-user', text: 'Chen is allergic to peanuts.' });
      expect(stored.result.isError).toBeFalsy();
      // The key's binding holds on every node, request by request.
      expect(stored.data.appId).toBe('app-mcp');
      const forbidden = await tool('store_memory', { userId: 'mcp-user', text: 'x', appId: 'default' });
      expect(forbidden.result.isError).toBe(true);
      expect(JSON.stringify(forbidden.result.content)).toContain('forbidden');
      const recalled = await tool<RecallResult>('recall_memories', { userId: 'mcp-user', query: 'What food must Chen avoid?', format: 'raw', minScore: 0 });
      expect(recalled.data.memories.map((m) => m.id)).toContain(stored.data.id);
      const listed = await tool<ListResult>('list_memories', { userId: 'mcp-user' });
      expect(listed.data.total).toBe(1);
      expect((await tool('forget_memory', { id: stored.data.id })).data).toEqual({ deleted: 1 });
    } finally {
      await client.close();
    }
    // Both nodes served a fair share (initialize, initialized, the GET that 405s, tools/list and five calls).
    expect(hits[a.url]).toBeGreaterThanOrEqual(4);
    expect(hits[b.url]).toBeGreaterThanOrEqual(4);
  });

  it('holds one rate-limit budget across nodes', async () => {
    // Two more nodes with a limit of 6 a minute (a burst of 6, then one every 10 s). They need no model here.
    const limited = await Promise.all([startNode({ rateLimit: 6 }), startNode({ rateLimit: 6 })]);
    try {
      const { key } = await createApiKey(a.runtime.store, { label: 'limited' });
      const remaining: string[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await call(limited[i % 2]!, '/v1/memories?userId=x', { key });
        expect(res.status).toBe(200);
        remaining.push(res.headers.get('ratelimit-remaining') ?? '');
      }
      expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);
      for (const node of limited) {
        const refused = await call(node, '/v1/memories?userId=x', { key });
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(((await refused.json()) as ErrorJson).error.code).toBe('rate_limit');
      }
    } finally {
      await Promise.all(limited.map((node) => node.close(1_000)));
    }
  });

  it('answers every store of 8 parallel clients (4 per node) with 201 or 503 + Retry-After, never 500', async () => {
    const statuses = new Map<number, number>();
    const created: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, c) => {
        for (let i = 0; i < 40; i++) {
          const text = `client ${c} fact ${i}: the parallel stores test keeps this.`;
          const res = await call(c % 2 === 0 ? a : b, '/v1/memories', { method: 'POST', json: { userId: `load-${c}`, text } });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 201) created.push(((await res.json()) as StoreResult).id);
          else if (res.status === 503) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          else expect({ status: res.status, body: await res.text() }).toBeUndefined();
        }
      }),
    );
    console.log(`8 clients x 40 stores on two nodes (${db.kind}): ${JSON.stringify(Object.fromEntries(statuses))}`);
    // Every acknowledged store is there, once.
    const listed = (await Promise.all(Array.from({ length: 8 }, (_, c) => listAll(b, `load-${c}`)))).flat();
    expect(listed.map((m) => m.id).sort()).toEqual(created.sort());
    expect(statuses.get(201)).toBeGreaterThanOrEqual(300);
  });

  it('holds one rate-limit budget across nodes under a parallel burst', async () => {
    const limited = await Promise.all([startNode({ rateLimit: 60 }), startNode({ rateLimit: 60 })]);
    try {
      const { key } = await createApiKey(a.runtime.store, { label: 'burst' });
      const started = Date.now();
      const statuses = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const res = await call(limited[i % 2]!, '/v1/memories?userId=x', { key });
          if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          await res.body?.cancel();
          return res.status;
        }),
      );
      const seconds = (Date.now() - started) / 1000;
      const served = statuses.filter((s) => s === 200).length;
      console.log(`burst of 200 at 60/min on two nodes (${db.kind}): ${served} served, ${statuses.filter((s) => s === 429).length} x 429 in ${seconds.toFixed(1)} s`);
      expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
      // The burst (60) plus what refilled while the burst lasted (one a second), never a budget per node.
      expect(served).toBeLessThanOrEqual(60 + Math.ceil(seconds));
      expect(served).toBeGreaterThanOrEqual(60);
    } finally {
      await Promise.all(limited.map((node) => node.close(1_000)));
    }
  });

  it('loses no acknowledged store when a node is killed (kill -9) mid-writes', async () => {
    const node = await spawnNode();
    const acked: Array<{ id: string; text: string }> = [];
    let sent = 0;
    let killed = false;
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        const text = `writer ${w} fact ${i}: the crash test stores this.`;
        sent++;
        try {
          const res = await call(node, '/v1/memories', { method: 'POST', json: { userId: 'crash', text } });
          if (res.status === 201) acked.push({ id: ((await res.json()) as StoreResult).id, text });
        } catch {
          return; // the connection died with the node
        }
      }
    };
    const writers = Array.from({ length: 6 }, (_, w) => writer(w));
    while (acked.length < 30) await new Promise((r) => setTimeout(r, 20));
    node.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    await node.exited;
    // Whatever the killed node acknowledged is on the database, whole, for the other nodes.
    const stored = await listAll(a, 'crash');
    const byId = new Map(stored.map((m) => [m.id, m.text]));
    for (const ack of acked) expect(byId.get(ack.id)).toBe(ack.text);
    // Stored but not acknowledged (the answer was lost with the node) is allowed; more than was sent is not.
    expect(stored.length).toBeGreaterThanOrEqual(acked.length);
    expect(stored.length).toBeLessThanOrEqual(sent);
    console.log(`kill -9: ${acked.length} stores acknowledged, ${stored.length} on the database, ${sent} sent`);
  });

  it('answers 503 unavailable while the database is down, never 500 or a hang, and recovers by itself', async () => {
    const { key } = await createApiKey(a.runtime.store, { label: 'outage' });
    await db.proxy.stop();
    try {
      const started = Date.now();
      for (const [path, init] of [
        ['/v1/memories?userId=ana', {}],
        ['/v1/memories', { method: 'POST', json: { userId: 'ana', text: 'written during the outage' } }],
        // A key that must be looked up: unavailable too, not a 401 that would tell the client its key is bad.
        ['/v1/memories?userId=ana', { key }],
      ] as const) {
        const res = await call(a, path, init);
        expect(res.status).toBe(503);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        const body = (await res.json()) as ErrorJson;
        expect(body).toEqual({ error: { code: 'unavailable', message: 'The database is unavailable; retry shortly.' } });
      }
      const health = await fetch(`${b.url}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'unavailable', store: 'unavailable', reason: 'The database is not answering.' });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await db.proxy.start();
    }
    // Back by itself: the pools open fresh connections, nothing restarts.
    const back = Date.now();
    for (const node of [a, b]) {
      while ((await fetch(`${node.url}/healthz`)).status !== 200) {
        expect(Date.now() - back).toBeLessThan(10_000);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const res = await call(b, '/v1/memories', { method: 'POST', json: { userId: 'ana', text: 'Ana is back after the outage.' }, key });
    expect(res.status).toBe(201);
  });
});

interface SpawnedNode {
  url: string;
  child: ChildProcess;
  exited: Promise<void>;
}

/** `agent-memory serve` as its own process, on the shared database, ready to store (model loaded). */
async function spawnNode(): Promise<SpawnedNode> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', '0', '--host', '127.0.0.1'], {
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      MEMORY_API_KEY: TEST_KEY,
      MEMORY_PG_POOL: '4',
      MEMORY_RATE_LIMIT: '0',
      MEMORY_LOG_LEVEL: 'error',
      MEMORY_EMBED_MODEL: TEST_MODEL,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await announcedUrl(child, 60_000);
  for (const started = Date.now(); (await fetch(`${url}/healthz`)).status !== 200; ) {
    if (Date.now() - started > 60_000) throw new Error('the node never became healthy');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, child, exited };
}
