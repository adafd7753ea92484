/**
 * Concurrency on one database file: several `agent-memory serve` processes (and, once the `mcp` command exists,
 * several `agent-memory mcp` stdio processes) write at once. No request may fail with "database is locked" (a 503
 * `unavailable`) or anything else, no acknowledged write may be lost, and long recalls must not stall writes.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_MODEL } from '../helpers/server.js';
import { CLI, RELIABILITY_KEY, REPO_ROOT, spawnServer, type CliServer } from './support/cli-server.js';
import { checkConsistency, memoriesById, withDb } from './support/db.js';
import { reportFigures } from './support/figures.js';
import { callJson, percentile, sleep } from './support/http.js';
import { seedMemories } from './support/seed.js';

const dir = mkdtempSync(join(tmpdir(), 'am-concurrency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Ack {
  id: string;
  text: string;
  userId: string;
}

async function storeLoop(server: CliServer, label: string, count: number, acks: Ack[], failures: string[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    const userId = `shared-${i % 4}`;
    const text = `${label} wrote fact ${i} about shared state`;
    const res = await callJson<{ id: string }>(server.url, RELIABILITY_KEY, '/v1/memories', {
      method: 'POST',
      json: { userId, text },
    });
    if (res.status !== 201) failures.push(`${label} store ${i}: ${res.status} ${res.text}`);
    else acks.push({ id: res.body.id, text, userId });
  }
}

describe('several processes on one database file', () => {
  it('three HTTP servers started together write, list and delete at once with no lock failure and no lost write', async () => {
    const dbPath = join(dir, 'multi.db');
    // Started together on a file that does not exist yet: they race to create it, migrate it and declare the model.
    const servers = await Promise.all([0, 1, 2].map(() => spawnServer({ dbPath })));
    const acks: Ack[] = [];
    const failures: string[] = [];
    let requests = 0;
    const deletedByOthers = new Set<string>();
    try {
      const writers = servers.flatMap((server, s) => [0, 1, 2].map((c) => storeLoop(server, `server${s}-client${c}`, 8, acks, failures)));
      // Readers and deleters on every server meanwhile: a delete goes through another server than the store did.
      let writing = true;
      const readers = servers.map(async (server, s) => {
        while (writing) {
          requests++;
          const list = await callJson<{ memories: Ack[]; total: number }>(server.url, RELIABILITY_KEY, `/v1/memories/shared-${s}?pageSize=5`);
          if (list.status !== 200) failures.push(`list on server ${s}: ${list.status} ${list.text}`);
          const victim = acks.find((a, i) => i % 7 === s && !deletedByOthers.has(a.id));
          if (victim) {
            deletedByOthers.add(victim.id);
            requests++;
            const del = await callJson<{ deleted: number }>(server.url, RELIABILITY_KEY, `/v1/memories/${victim.id}`, { method: 'DELETE' });
            if (del.status !== 200 || del.body.deleted !== 1) failures.push(`delete on server ${s}: ${del.status} ${del.text}`);
          }
        }
      });
      await Promise.all(writers);
      writing = false;
      await Promise.all(readers);
      requests += acks.length + failures.length;
      expect(failures).toEqual([]);
      expect(acks).toHaveLength(3 * 3 * 8);
    } finally {
      const exits = await Promise.all(servers.map((s) => s.stop()));
      expect(exits.map((e) => e.code)).toEqual([0, 0, 0]);
    }
    withDb(dbPath, (db) => {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(checkConsistency(db).problems).toEqual([]);
      const rows = memoriesById(db);
      for (const ack of acks) {
        if (deletedByOthers.has(ack.id)) expect(rows.has(ack.id)).toBe(false);
        else expect(rows.get(ack.id)?.text).toBe(ack.text);
      }
      expect(rows.size).toBe(acks.length - deletedByOthers.size);
    });
    // A clean stop of every process leaves no WAL behind.
    expect(existsSync(`${dbPath}-wal`)).toBe(false);
    reportFigures('concurrency/http-processes', {
      processes: 3,
      requests,
      storesAcked: acks.length,
      deletesAcked: deletedByOthers.size,
      lockFailures: 0,
      lost: 0,
    });
  }, 120_000);

  it('long recalls over a large user do not stall writes, in the same process or another one', async () => {
    const dbPath = join(dir, 'recall.db');
    const seeded = await seedMemories(dbPath, { userId: 'big', count: 2000 });
    const [a, b] = await Promise.all([spawnServer({ dbPath }), spawnServer({ dbPath })]);
    if (!a || !b) throw new Error('servers did not start');
    // The recall with the most database work: the most candidates (limit 100), the most query terms the ranker
    // keeps (32), every seeded memory matching some of them. The text stays short, so that the time measured is
    // the database's, not the model's (a 16,000-character query spends over a second in the embedding worker,
    // and a store queued behind it waits for that: a model-queue matter, not a database stall).
    const vocabulary = ['coffee', 'travel', 'music', 'garden', 'python', 'budget', 'meeting', 'family', 'running', 'recipe'];
    const longQuery = [...vocabulary, ...Array.from({ length: 30 }, (_, i) => `topic${i}`)].join(' ');
    try {
      const storeLatencies = async (server: CliServer, label: string, count: number): Promise<number[]> => {
        const ms: number[] = [];
        for (let i = 0; i < count; i++) {
          const started = performance.now();
          const res = await callJson(server.url, RELIABILITY_KEY, '/v1/memories', {
            method: 'POST',
            json: { userId: 'writer', text: `${label} write ${i} during recalls` },
          });
          expect(res.status, res.text).toBe(201);
          ms.push(performance.now() - started);
        }
        return ms.sort((x, y) => x - y);
      };
      const baseline = await storeLatencies(a, 'baseline', 10);

      let recalling = true;
      const recallMs: number[] = [];
      const recallers = [0, 1].map(async () => {
        while (recalling) {
          const started = performance.now();
          const res = await callJson<{ memories: unknown[] }>(a.url, RELIABILITY_KEY, '/v1/memories/recall', {
            method: 'POST',
            json: { userId: 'big', query: longQuery, limit: 100, minScore: 0 },
          });
          expect(res.status, res.text).toBe(200);
          expect(res.body.memories.length).toBe(100);
          recallMs.push(performance.now() - started);
        }
      });
      // Deletes are writes that need no model: their latency in the recalling process is the database's alone.
      const deleteLatencies = async (server: CliServer, ids: string[]): Promise<number[]> => {
        const ms: number[] = [];
        for (const id of ids) {
          const started = performance.now();
          const res = await callJson<{ deleted: number }>(server.url, RELIABILITY_KEY, `/v1/memories/${id}`, { method: 'DELETE' });
          expect(res.status, res.text).toBe(200);
          expect(res.body.deleted).toBe(1);
          ms.push(performance.now() - started);
          await sleep(50);
        }
        return ms.sort((x, y) => x - y);
      };
      await sleep(300);
      const [sameProcess, otherProcess, sameProcessDeletes] = await Promise.all([
        storeLatencies(a, 'same', 10),
        storeLatencies(b, 'other', 10),
        deleteLatencies(a, seeded.slice(0, 20)),
      ]);
      recalling = false;
      await Promise.all(recallers);
      recallMs.sort((x, y) => x - y);

      const figures = {
        baselineStoreP95Ms: Math.round(percentile(baseline, 95)),
        sameProcessStoreP95Ms: Math.round(percentile(sameProcess, 95)),
        sameProcessDeleteP95Ms: Math.round(percentile(sameProcessDeletes, 95)),
        otherProcessStoreP95Ms: Math.round(percentile(otherProcess, 95)),
        recalls: recallMs.length,
        recallP50Ms: Math.round(percentile(recallMs, 50)),
      };
      reportFigures('concurrency/long-recalls', figures);
      // Generous bounds for a busy 2-core runner. A write in the recalling process waits for the database work of
      // the recalls ahead of it (under 250 ms each for this user; seconds each before recall stopped re-running its
      // word query once per vector candidate: 3.9 s measured at 3,000 memories); a store there also queues behind the
      // recalls' query embeddings in the model worker, so its bound is looser. Another process is not held by
      // readers at all (WAL).
      // The figures are reported, not judged tightly: this machine is shared, and speed belongs to benchmarks. The
      // bounds only catch a stall (a write held for the whole recall run, as before the fix above).
      expect(figures.sameProcessDeleteP95Ms).toBeLessThan(8_000);
      expect(figures.otherProcessStoreP95Ms).toBeLessThan(8_000);
      expect(figures.sameProcessStoreP95Ms).toBeLessThan(15_000);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);


  it(
    'HTTP server and three `agent-memory mcp` stdio processes store at once on one file with no lock failure and no lost write',
    async () => {
      const dbPath = join(dir, 'mcp.db');
      const server = await spawnServer({ dbPath });
      const clients: Client[] = [];
      const acks: Ack[] = [];
      const failures: string[] = [];
      try {
        for (let n = 0; n < 3; n++) {
          const transport = new StdioClientTransport({
            command: process.execPath,
            args: [CLI, 'mcp', '--db', dbPath, '--user-id', `mcp-user-${n}`],
            cwd: REPO_ROOT,
            env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MEMORY_LOG_LEVEL: 'warn', MEMORY_EMBED_MODEL: TEST_MODEL },
            stderr: 'pipe',
          });
          const client = new Client({ name: `reliability-${n}`, version: '1.0.0' });
          await client.connect(transport);
          clients.push(client);
        }
        const mcpWriter = async (client: Client, n: number, lane: number): Promise<void> => {
          for (let i = 0; i < 4; i++) {
            const text = `mcp process ${n} lane ${lane} stored fact ${i}`;
            const result = (await client.callTool({ name: 'store_memory', arguments: { text } }, undefined, { timeout: 60_000 })) as {
              isError?: boolean;
              structuredContent?: { id?: string };
              content?: Array<{ text?: string }>;
            };
            const id = result.structuredContent?.id;
            if (result.isError || typeof id !== 'string') failures.push(`mcp ${n}/${lane} store ${i}: ${JSON.stringify(result.content)}`);
            else acks.push({ id, text, userId: `mcp-user-${n}` });
          }
        };
        await Promise.all([
          ...clients.flatMap((client, n) => [0, 1].map((lane) => mcpWriter(client, n, lane))),
          storeLoop(server, 'http-a', 8, acks, failures),
          storeLoop(server, 'http-b', 8, acks, failures),
        ]);
        expect(failures).toEqual([]);
        expect(acks).toHaveLength(3 * 2 * 4 + 2 * 8);
        // Every process sees the others' writes: the HTTP server lists what the MCP processes stored.
        for (let n = 0; n < 3; n++) {
          const list = await callJson<{ total: number }>(server.url, RELIABILITY_KEY, `/v1/memories/mcp-user-${n}`);
          expect(list.body.total).toBe(8);
        }
      } finally {
        await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
        expect((await server.stop()).code).toBe(0);
      }
      withDb(dbPath, (db) => {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(checkConsistency(db).problems).toEqual([]);
        const rows = memoriesById(db);
        expect(acks.filter((a) => rows.get(a.id)?.text !== a.text)).toEqual([]);
      });
      reportFigures('concurrency/mcp-and-http', { mcpProcesses: 3, httpProcesses: 1, storesAcked: acks.length, lockFailures: 0, lost: 0 });
    },
    120_000,
  );
});
