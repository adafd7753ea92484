/**
 * Online backup: `agent-memory backup PATH` copies the database while the server keeps serving writes. The copy
 * opens, passes `PRAGMA integrity_check`, is consistent (every memory has its vector and words), and holds every
 * memory acknowledged before the backup started.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RELIABILITY_KEY, runCli, spawnServer } from './support/cli-server.js';
import { checkConsistency, memoriesById, withDb } from './support/db.js';
import { reportFigures } from './support/figures.js';
import { callJson, sleep } from './support/http.js';
import { seedMemories } from './support/seed.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'am-backup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('online backup', () => {
  it('takes a consistent copy while the server writes, holding everything acknowledged before it started', async () => {
    const dbPath = join(dir, 'live.db');
    // A few megabytes, so that the copy takes many pages while writes land.
    const seeded = await seedMemories(dbPath, { userId: 'bulk', count: 2_000 });
    const server = await spawnServer({ dbPath });
    const acked: Array<{ id: string; text: string; at: number }> = [];
    let deletes = 0;
    let writing = true;
    const failures: string[] = [];
    // Stores through the model, and deletes (writes with no model work, so they come fast).
    const storer = async (n: number) => {
      for (let i = 0; writing; i++) {
        const text = `written during backup by ${n}: ${i}`;
        const res = await callJson<{ id: string }>(server.url, RELIABILITY_KEY, '/v1/memories', { method: 'POST', json: { userId: 'live', text } });
        if (res.status !== 201) failures.push(`store ${res.status} ${res.text}`);
        else acked.push({ id: res.body.id, text, at: performance.now() });
      }
    };
    const deleter = async () => {
      for (let i = 0; writing && i < seeded.length; i++) {
        const res = await callJson<{ deleted: number }>(server.url, RELIABILITY_KEY, `/v1/memories/${seeded[seeded.length - 1 - i]}`, { method: 'DELETE' });
        if (res.status !== 200) failures.push(`delete ${res.status} ${res.text}`);
        else deletes++;
      }
    };
    const writers = [storer(0), storer(1), storer(2), deleter(), deleter()];
    try {
      await sleep(1_000);
      const copies: Array<{ path: string; startedAt: number; ms: number }> = [];
      for (let round = 0; round < 1; round++) {
        const target = join(dir, `copy-${round}.db`);
        const startedAt = performance.now();
        const result = await runCli(['backup', target, '--db', dbPath], { timeoutMs: 90_000 });
        expect(result.code, result.stderr).toBe(0);
        copies.push({ path: target, startedAt, ms: result.ms });
      }

      // The store's own backup (one step, one snapshot) against the copy in small steps that better-sqlite3 does by
      // default: with steps this small (as 100-page steps are on a database of a hundred megabytes and more), every
      // write of the server between two steps restarts the stepwise copy from the first page.
      const local = SqliteStore.open({ path: dbPath });
      let stepwise = { steps: 0, restarts: 0, finished: false };
      try {
        let last = Number.POSITIVE_INFINITY;
        await local.database
          .backup(join(dir, 'stepwise.db'), {
            progress: ({ remainingPages }) => {
              stepwise.steps++;
              if (remainingPages > last) stepwise.restarts++;
              last = remainingPages;
              if (stepwise.steps >= 1_000) throw new Error('gave up');
              return 5;
            },
          })
          .then(
            () => (stepwise = { ...stepwise, finished: true }),
            () => undefined,
          );
        const startedAt = performance.now();
        const { totalPages } = await local.backup(join(dir, 'single-step.db'));
        expect(totalPages).toBeGreaterThan(100);
        copies.push({ path: join(dir, 'single-step.db'), startedAt, ms: Math.round(performance.now() - startedAt) });
      } finally {
        await local.close();
      }

      writing = false;
      await Promise.all(writers);
      expect(failures).toEqual([]);

      expect(copies).toHaveLength(2);
      for (const copy of copies) {
        expect(existsSync(copy.path)).toBe(true);
        withDb(copy.path, (db) => {
          expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
          const report = checkConsistency(db);
          expect(report.problems).toEqual([]);
          const rows = memoriesById(db);
          const before = acked.filter((a) => a.at < copy.startedAt);
          expect(before.filter((a) => rows.get(a.id)?.text !== a.text).map((a) => a.id)).toEqual([]);
          expect(rows.size).toBeGreaterThan(0);
        });
      }
      // A backup never overwrites a file.
      const again = await runCli(['backup', copies[0]?.path ?? '', '--db', dbPath]);
      expect(again.code).toBe(1);
      reportFigures('backup', {
        backups: copies.length,
        dbMb: (statSync(dbPath).size / 1e6).toFixed(1),
        slowestBackupMs: Math.max(...copies.map((c) => c.ms)),
        storesDuringRun: acked.length,
        deletesDuringRun: deletes,
        missingFromCopies: 0,
        stepwiseCopySteps: stepwise.steps,
        stepwiseCopyRestarts: stepwise.restarts,
        stepwiseCopyFinished: stepwise.finished,
      });
    } finally {
      writing = false;
      await Promise.allSettled(writers);
      await server.stop();
    }
  }, 180_000);
});
