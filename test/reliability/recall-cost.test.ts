/**
 * Recall's database work on a large user, in process: it is synchronous (better-sqlite3), so every millisecond of it
 * holds the server's event loop, writes included. The BM25 of vector hits outside the word top-k used to be read
 * with `MATCH ? AND rowid IN (...)`, which FTS5 runs as one full-text query per listed rowid: seconds per recall at
 * a few thousand memories. It is now one pass over the user's matches, with the same scores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridRanker } from '../../src/core/ranking/hybrid-ranker.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { wordQuery } from '../../src/storage/sqlite/words.js';
import { reportFigures } from './support/figures.js';
import { seedMemories, USE_LITE } from './support/seed.js';

const dir = mkdtempSync(join(tmpdir(), 'am-recall-cost-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('recall database cost', () => {
  it('stays far below the per-rowid cost for 2,000 memories, 32 query terms and 400 candidates a side, with unchanged word scores', async () => {
    const dbPath = join(dir, 'recall.db');
    await seedMemories(dbPath, { userId: 'big', count: 2_000 });
    const store = SqliteStore.open({ path: dbPath });
    try {
      const query = ['coffee', 'travel', 'music', 'garden', 'python', 'budget', 'meeting', 'family', 'running', 'recipe']
        .concat(Array.from({ length: 30 }, (_, i) => `topic${i}`))
        .join(' ');
      const plan = new HybridRanker().plan(query, 100);
      const embedding = new Float32Array(USE_LITE.dimension).fill(1 / Math.sqrt(USE_LITE.dimension));
      // 400 candidates from each side, whatever the ranker plans today: the store's cost is what is measured.
      const run = () => store.recallCandidates({ userId: 'big', scope: { appId: null }, embedding, terms: plan.terms, vectorK: 400, textK: 400 });
      await run(); // warm the page cache
      const started = performance.now();
      const candidates = await run();
      const ms = performance.now() - started;
      reportFigures('recall-cost', { memories: 2_000, terms: plan.terms.length, candidates: candidates.length, ms: Math.round(ms) });
      // About 100 ms here; the per-rowid query alone took 770 ms for these 400 vector hits.
      expect(candidates.length).toBeGreaterThan(400);
      // A loose bound on a shared machine: it catches the per-rowid regression (seconds), not noise.
      expect(ms).toBeLessThan(1_500);

      // The scores are those the per-rowid query gives (checked on a sample: that query is the slow one).
      const match = wordQuery('big', plan.terms);
      const sample = candidates.slice(0, 40);
      const expected = new Map(
        (
          store.database
            .prepare(
              `SELECT rowid, -bm25(memory_words, 1.0, 0.0) AS score FROM memory_words
               WHERE memory_words MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
            )
            .all(match, JSON.stringify(sample.map((c) => rowidOf(store, c.memory.id)))) as Array<{ rowid: number; score: number }>
        ).map((r) => [r.rowid, Math.max(0, r.score)]),
      );
      for (const c of sample) expect(c.bm25).toBeCloseTo(expected.get(rowidOf(store, c.memory.id)) ?? 0, 9);
    } finally {
      await store.close();
    }
  }, 60_000);
});

function rowidOf(store: SqliteStore, id: string): number {
  return (store.database.prepare('SELECT rowid FROM memories WHERE id = ?').get(id) as { rowid: number }).rowid;
}
