/**
 * Recall's database work on a large user, in process: it is synchronous (better-sqlite3), so every millisecond of it
 * holds the server's event loop, writes included. Two regressions it guards against: the BM25 of vector hits once
 * read with `MATCH ? AND rowid IN (...)`, which FTS5 runs as one full-text query per listed rowid (seconds per
 * recall), and the word side's pick once looked up by walking the user's whole index instead of by id. The word
 * side reads bounded lists per term; they must be exactly what a plain (slow) query over all matches gives.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { searchCandidates } from '../../src/core/candidates.js';
import { HybridRanker } from '../../src/core/ranking/hybrid-ranker.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { reportFigures } from './support/figures.js';
import { seedMemories, SEED_MODEL } from './support/seed.js';

const dir = mkdtempSync(join(tmpdir(), 'am-recall-cost-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('recall database cost', () => {
  it('stays far below the per-rowid cost for 2,000 memories, 32 query terms and 400 candidates a side, with exact word lists', async () => {
    const dbPath = join(dir, 'recall.db');
    await seedMemories(dbPath, { userId: 'big', count: 2_000 });
    const store = SqliteStore.open({ path: dbPath });
    try {
      const query = ['coffee', 'travel', 'music', 'garden', 'python', 'budget', 'meeting', 'family', 'running', 'recipe']
        .concat(Array.from({ length: 30 }, (_, i) => `topic${i}`))
        .join(' ');
      const plan = { ...new HybridRanker().plan(query, 100), vectorK: 400, textK: 400, perTerm: 400 };
      const embedding = new Float32Array(SEED_MODEL.dimension).fill(1 / Math.sqrt(SEED_MODEL.dimension));
      // 400 candidates from each side, whatever the ranker plans today: the store's cost is what is measured.
      const run = () => searchCandidates(store, { userId: 'big', scope: { appId: null }, plan, embedding: Promise.resolve(embedding) });
      await run(); // warm the page cache
      const started = performance.now();
      const candidates = await run();
      const ms = performance.now() - started;
      reportFigures('recall-cost', { memories: 2_000, terms: plan.terms.length, candidates: candidates.length, ms: Math.round(ms) });
      expect(candidates.length).toBeGreaterThan(400);
      // A loose bound on a shared machine: it catches the regressions above (seconds), not noise.
      expect(ms).toBeLessThan(1_500);

      // Each term's list is the newest perTerm of all its matches, as a query that reads every match gives it.
      const lists = await store.findWordMatches({ userId: 'big', scope: { appId: null }, terms: plan.terms, perTerm: 50 });
      const reference = store.database.prepare(
        `SELECT m.id AS id FROM memories m WHERE m.user_id = ? AND m.rowid IN (SELECT rowid FROM memory_words WHERE memory_words MATCH ?)
         ORDER BY m.rowid DESC LIMIT 50`,
      );
      expect(lists.some((l) => l.ids.length === 50)).toBe(true);
      for (const l of lists) {
        const expected = (reference.all('big', `text : "${l.term}"`) as Array<{ id: string }>).map((r) => r.id);
        expect(l.ids).toEqual(expected);
      }
    } finally {
      await store.close();
    }
  }, 60_000);
});
