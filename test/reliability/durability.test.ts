/**
 * Durability: a store the server acknowledged (201) survives `kill -9` of the server at any moment, and so does an
 * acknowledged delete. Concurrent clients store, delete one by one and in batches against the real CLI process;
 * the process is SIGKILLed mid-flight at a random moment, restarted on the same file, and the file is audited:
 * every acknowledged memory is present with its exact text, a unit vector and a word-index row; no memory lacks a
 * vector or words and no index row lacks a memory; a batch delete is all or nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RELIABILITY_KEY, spawnServer, type CliServer } from './support/cli-server.js';
import { checkConsistency, memoriesById, wordIndexFinds, withDb } from './support/db.js';
import { reportFigures } from './support/figures.js';
import { callJson, prng, sleep, testSeed } from './support/http.js';

const dir = mkdtempSync(join(tmpdir(), 'am-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Acked {
  id: string;
  userId: string;
  text: string;
  token: string;
}

const CYCLES = 4;
const CLIENTS = 8;

describe('durability under kill -9', () => {
  it('keeps every acknowledged store and delete across SIGKILLs at random moments', async () => {
    const seed = testSeed();
    const random = prng(seed);
    const dbPath = join(dir, 'memory.db');
    const stored = new Map<string, Acked>(); // acknowledged and not (acknowledged-)deleted
    const deleted = new Set<string>(); // acknowledged deletes
    /** Batch deletes whose answer never came: after restart, all of their ids or none may be gone. */
    const unackedBatches: string[][] = [];
    const maybeDeleted = new Set<string>();
    let requests = 0;
    let storesAcked = 0;
    let cutOff = 0;
    let kills = 0;

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const server: CliServer = await spawnServer({ dbPath });
      let dead = false;
      const client = async (n: number): Promise<void> => {
        for (let i = 0; !dead; i++) {
          const userId = `user-${n % 3}`;
          const roll = random();
          try {
            if (roll < 0.75 || stored.size < 8) {
              const token = `tok${cycle}x${n}x${i}x${Math.floor(random() * 1e9).toString(36)}`;
              const text = `Durable fact ${token}: client ${n} wrote number ${i} in cycle ${cycle} \u00e9\u6f22\u{1F600}`;
              requests++;
              const res = await callJson<{ id: string }>(server.url, RELIABILITY_KEY, '/v1/memories', {
                method: 'POST',
                json: { userId, text, metadata: { cycle, n, i } },
              });
              expect(res.status, res.text).toBe(201);
              stored.set(res.body.id, { id: res.body.id, userId, text, token });
              storesAcked++;
            } else if (roll < 0.82) {
              const victim = [...stored.keys()][Math.floor(random() * stored.size)];
              if (!victim || maybeDeleted.has(victim)) continue;
              maybeDeleted.add(victim);
              requests++;
              const res = await callJson<{ deleted: number }>(server.url, RELIABILITY_KEY, `/v1/memories/${victim}`, { method: 'DELETE' });
              expect(res.status, res.text).toBe(200);
              expect(res.body.deleted).toBe(1);
              stored.delete(victim);
              maybeDeleted.delete(victim);
              deleted.add(victim);
            } else {
              const ids = [...stored.keys()].filter((id) => !maybeDeleted.has(id)).slice(0, 1 + Math.floor(random() * 4));
              if (ids.length === 0) continue;
              for (const id of ids) maybeDeleted.add(id);
              requests++;
              let answered = false;
              try {
                const res = await callJson<{ deleted: number }>(server.url, RELIABILITY_KEY, '/v1/memories/batch-delete', {
                  method: 'POST',
                  json: { ids },
                });
                answered = true;
                expect(res.status, res.text).toBe(200);
                expect(res.body.deleted).toBe(ids.length);
                for (const id of ids) {
                  stored.delete(id);
                  maybeDeleted.delete(id);
                  deleted.add(id);
                }
              } finally {
                if (!answered) unackedBatches.push(ids);
              }
            }
          } catch (error) {
            // Only the kill may interrupt a request; anything else is a failure of the test.
            if (!dead) throw error;
            cutOff++;
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
      // Kill at a random moment once this cycle has had some acknowledged writes, however slow the machine is.
      const ackedAtStart = storesAcked + deleted.size;
      const deadline = Date.now() + 20_000;
      while (storesAcked + deleted.size < ackedAtStart + 6 && Date.now() < deadline) await sleep(20);
      await sleep(Math.floor(random() * 1_000));
      dead = true;
      server.kill('SIGKILL');
      kills++;
      expect((await server.exited).signal).toBe('SIGKILL');
      await Promise.all(clients);

      // Audit the file as the next process will find it (opening it replays the WAL).
      withDb(dbPath, (db) => {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const report = checkConsistency(db);
        expect(report.problems).toEqual([]);
        const rows = memoriesById(db);
        const missing = [...stored.values()].filter((m) => !maybeDeleted.has(m.id) && rows.get(m.id)?.text !== m.text);
        expect(missing.map((m) => m.id)).toEqual([]);
        for (const m of stored.values()) {
          const row = rows.get(m.id);
          if (!row) continue;
          expect(row.userId).toBe(m.userId);
          expect(wordIndexFinds(db, row.rowid, m.token)).toBe(true);
        }
        expect([...deleted].filter((id) => rows.has(id))).toEqual([]);
        for (const batch of unackedBatches) {
          const present = batch.filter((id) => rows.has(id)).length;
          expect([0, batch.length]).toContain(present);
        }
        // What the kill cut off is settled now: present or not, it is consistent; resolve it for the next cycle.
        for (const id of maybeDeleted) {
          if (rows.has(id)) continue;
          stored.delete(id);
          deleted.add(id);
        }
        maybeDeleted.clear();
        unackedBatches.length = 0;
      });
    }

    // A last, clean restart: the service itself answers for every acknowledged memory.
    const server = await spawnServer({ dbPath });
    try {
      const byUser = new Map<string, Set<string>>();
      for (const m of stored.values()) byUser.set(m.userId, (byUser.get(m.userId) ?? new Set()).add(m.id));
      for (const [userId, ids] of byUser) {
        const seen = new Set<string>();
        for (let page = 0; ; page++) {
          const res = await callJson<{ memories: Array<{ id: string; text: string }>; total: number }>(
            server.url,
            RELIABILITY_KEY,
            `/v1/memories/${userId}?pageSize=100&page=${page}`,
          );
          expect(res.status).toBe(200);
          for (const m of res.body.memories) {
            seen.add(m.id);
            if (ids.has(m.id)) expect(m.text).toBe(stored.get(m.id)?.text);
          }
          if (res.body.memories.length < 100) break;
        }
        expect([...ids].filter((id) => !seen.has(id))).toEqual([]);
      }
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
    reportFigures('durability', {
      seed,
      sigkills: kills,
      requests,
      storesAcked,
      deletesAcked: deleted.size,
      inFlightCutOff: cutOff,
      survivingMemories: stored.size,
      lost: 0,
    });
  }, 120_000);
});
