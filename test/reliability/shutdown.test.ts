/**
 * Graceful shutdown: SIGTERM while clients store and list at full speed. Every request the server had received
 * finishes with its normal answer (none is cut by a connection reset), the process exits 0 with the database
 * closed (no WAL file left behind), and the next start finds every acknowledged store.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RELIABILITY_KEY, spawnServer } from './support/cli-server.js';
import { checkConsistency, memoriesById, withDb } from './support/db.js';
import { reportFigures } from './support/figures.js';
import { prng, sleep, testSeed } from './support/http.js';
import { seedMemories } from './support/seed.js';

const dir = mkdtempSync(join(tmpdir(), 'am-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  sentAt: number;
  endedAt: number;
  status?: number;
  error?: string;
  id?: string;
  text?: string;
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? String(error);
}

// The hash model by default: clients then send as fast as the server answers, the hardest case for shutdown.
// SHUTDOWN_MODEL=use-lite runs it on the real model, whose query latency spaces requests out as in production.
const MODEL =
  process.env.SHUTDOWN_MODEL === 'use-lite' ? ({ model: 'use-lite', dimension: 512 } as const) : ({ model: 'hash', dimension: 256 } as const);

describe('graceful shutdown', () => {
  it('SIGTERM during load finishes every request it received, exits 0, and leaves a clean file', async () => {
    const seed = testSeed();
    const random = prng(seed);
    const dbPath = join(dir, 'memory.db');
    let totalRequests = 0;
    let inFlightAtSignal = 0;
    let slowestExitMs = 0;
    const rounds = Number(process.env.SHUTDOWN_ROUNDS ?? 2);
    const acked = new Map<string, string>();
    // A large user whose recalls keep the server's event loop busy for a while: requests then wait unread in their
    // sockets, and a shutdown that counts such a connection as idle resets them.
    // On the hash model under load (two busy loops beside it), requests sent up to 70 ms before SIGTERM were reset
    // 40-60 ms after it in 2 of 3 runs of 6 SIGTERMs: their connections were still in the listen backlog when the
    // listening socket closed. The server now keeps accepting for the lame-duck period and accepts the backlog
    // before it stops (src/rest/graceful.ts): 0 of 8 such runs (48 SIGTERMs) cut a request.
    await seedMemories(dbPath, { userId: 'big', count: 2_000, model: MODEL });
    const heavyQuery = ['coffee', 'travel', 'music', 'garden', 'python', 'budget', 'meeting', 'family', 'running', 'recipe']
      .concat(Array.from({ length: 22 }, (_, i) => `topic${i}`))
      .join(' ');
    for (let round = 0; round < rounds; round++) {
      const server = await spawnServer({ dbPath, env: { MEMORY_EMBED_MODEL: MODEL.model } });
      const outcomes: Outcome[] = [];
      let signalledAt = Number.POSITIVE_INFINITY;
      let inFlight = 0;
      const client = async (n: number): Promise<void> => {
        for (let i = 0; ; i++) {
          if (performance.now() > signalledAt + 500) return;
          const heavy = n === 0;
          const store = !heavy && i % 3 !== 2;
          const text = `round ${round} client ${n} request ${i}`;
          const outcome: Outcome = { sentAt: performance.now(), endedAt: 0 };
          inFlight++;
          try {
            const url = heavy
              ? `${server.url}/v1/memories/recall`
              : store
                ? `${server.url}/v1/memories`
                : `${server.url}/v1/memories/graceful?pageSize=5`;
            const payload = heavy ? { userId: 'big', query: heavyQuery, limit: 100, minScore: 0 } : store ? { userId: 'graceful', text } : undefined;
            const res = await fetch(url, {
              method: payload ? 'POST' : 'GET',
              headers: { Authorization: `Bearer ${RELIABILITY_KEY}`, 'Content-Type': 'application/json' },
              ...(payload ? { body: JSON.stringify(payload) } : {}),
            });
            outcome.status = res.status;
            const body = (await res.json()) as { id?: string };
            if (store && res.status === 201 && body.id) {
              outcome.id = body.id;
              outcome.text = text;
            }
          } catch (error) {
            outcome.error = errorCode(error);
          } finally {
            inFlight--;
            outcome.endedAt = performance.now();
            outcomes.push(outcome);
          }
          if (outcome.error) return; // the server is going away
        }
      };
      const clients = Array.from({ length: 10 }, (_, n) => client(n));
      await sleep(800 + Math.floor(random() * 1200));
      inFlightAtSignal += inFlight;
      signalledAt = performance.now();
      server.kill('SIGTERM');
      const started = performance.now();
      const exit = await server.exited;
      const exitMs = performance.now() - started;
      slowestExitMs = Math.max(slowestExitMs, exitMs);
      await Promise.all(clients);
      totalRequests += outcomes.length;

      // Every request sent before the signal got its normal answer; after it, a refused connection is expected.
      const before = outcomes.filter((o) => o.sentAt < signalledAt);
      const cut = before.filter((o) => o.error !== undefined || (o.status !== 200 && o.status !== 201));
      const described = cut.map((o) => `${o.error ?? o.status} sent ${Math.round(signalledAt - o.sentAt)} ms before SIGTERM, ended ${Math.round(o.endedAt - signalledAt)} ms after`);
      expect(described, `seed ${seed}: ${JSON.stringify(described)}`).toEqual([]);
      const after = outcomes.filter((o) => o.sentAt >= signalledAt);
      for (const o of after) {
        if (o.error !== undefined) expect(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'], `seed ${seed}`).toContain(o.error);
        else expect([200, 201, 503], `seed ${seed}`).toContain(o.status);
      }
      for (const o of outcomes) if (o.id && o.text) acked.set(o.id, o.text);
      expect(exit, server.stderr()).toEqual({ code: 0, signal: null });
      // Quick: connections close as soon as their last answer is out (it took the whole 10 s grace period before).
      // Before the fix every SIGTERM waited out the 10 s grace period; anything well below it is the fix working.
      expect(exitMs).toBeLessThan(8_000);

      // Closed cleanly: everything checkpointed into the main file, no WAL left to replay.
      expect(existsSync(`${dbPath}-wal`)).toBe(false);
      withDb(dbPath, (db) => {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(checkConsistency(db).problems).toEqual([]);
        const rows = memoriesById(db);
        expect([...acked].filter(([id, text]) => rows.get(id)?.text !== text).map(([id]) => id)).toEqual([]);
      });
    }
    // The next start is clean and serves every acknowledged store.
    const server = await spawnServer({ dbPath, env: { MEMORY_EMBED_MODEL: MODEL.model } });
    try {
      const res = await fetch(`${server.url}/v1/memories/graceful?pageSize=1`, { headers: { Authorization: `Bearer ${RELIABILITY_KEY}` } });
      expect(((await res.json()) as { total: number }).total).toBe(acked.size);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
    reportFigures('graceful-shutdown', { seed, sigterms: rounds, requests: totalRequests, inFlightAtSignal, slowestExitMs: Math.round(slowestExitMs), storesAcked: acked.size, cut: 0, lost: 0 });
  }, 120_000);
});
