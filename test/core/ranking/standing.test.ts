import { describe, expect, it } from 'vitest';
import { HybridRanker } from '../../../src/core/ranking/hybrid-ranker.js';
import { STANDING_POOL, standsOut, withStanding } from '../../../src/core/ranking/standing.js';
import type { ScoredCandidate } from '../../../src/core/ranking/types.js';
import { scored } from '../../helpers/ranking.js';

/** The first memories of a pool of STANDING_POOL, the rest scoring 0 (which standing leaves at 0). */
function pool(...first: ScoredCandidate[]): ScoredCandidate[] {
  return [...first, ...Array.from({ length: Math.max(0, STANDING_POOL - first.length) }, (_, i) => scored(`z${i}`, 0))];
}

/** The scores of the named memories (not the pool's zeros). */
const scores = (ranked: readonly ScoredCandidate[]): [string, number][] =>
  ranked.filter((s) => !s.candidate.memory.id.startsWith('z')).map((s) => [s.candidate.memory.id, Math.round(s.score * 10_000) / 10_000]);

describe('withStanding', () => {
  it('lifts the first memory by its margin over the second, as agreement does, and lowers the rest by their distance below it', () => {
    const ranked = withStanding(pool(scored('m1', 0.6), scored('m2', 0.4), scored('m3', 0.3)), 1);
    // 0.6 + 1 x 0.2 x 0.4; 0.4 x (1 - 0.2); 0.3 x (1 - 0.3)
    expect(scores(ranked)).toEqual([
      ['m1', 0.68],
      ['m2', 0.32],
      ['m3', 0.21],
    ]);
    expect(ranked.slice(0, 3).map((s) => s.parts?.standing)).toEqual([0.08, -0.08, -0.09]);
  });

  it('keeps the order, and the score within [0, 1]', () => {
    const ranked = withStanding(pool(scored('m1', 0.99), scored('m2', 0.2), scored('m3', 0.19), scored('m4', 0.01)), 2);
    expect(ranked.slice(0, 4).map((s) => s.candidate.memory.id)).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(ranked[0]?.score).toBeLessThanOrEqual(1);
    expect(ranked[0]?.score).toBeGreaterThan(0.99);
    expect(ranked.slice(1).every((s) => s.score === 0)).toBe(true);
  });

  it('lifts nothing where two memories tie first', () => {
    expect(scores(withStanding(pool(scored('m1', 0.6), scored('m2', 0.6), scored('m3', 0.5)), 1))).toEqual([
      ['m1', 0.6],
      ['m2', 0.6],
      ['m3', 0.45],
    ]);
  });

  it('moves nothing among fewer than STANDING_POOL memories, where whatever ranks first stands far above the rest', () => {
    const few = [scored('m1', 0.62), scored('m2', 0.1), scored('m3', 0.05)];
    expect(scores(withStanding(few, 1))).toEqual(scores(few));
    expect(withStanding(few, 1).every((s) => s.parts?.standing === undefined)).toBe(true);
    expect(STANDING_POOL).toBe(10);
  });

  it('does not lift a first memory a rule found no answer (a near miss), but still lowers the rest', () => {
    for (const flag of [{ answer: 0 }, { nameOnly: 0.8 }, { otherPerson: 0.6 }, { otherRelative: 0.6 }, { general: 0.55 }, { question: 0.5 }]) {
      const ranked = withStanding(pool(scored('m1', 0.65, flag), scored('m2', 0.45)), 1);
      expect(scores(ranked)).toEqual([
        ['m1', 0.65],
        ['m2', 0.36],
      ]);
      expect(ranked[0]?.parts?.standing).toBeUndefined();
    }
    expect(withStanding(pool(scored('m1', 0.65, { answer: 1 }), scored('m2', 0.45)), 1)[0]?.score).toBeCloseTo(0.65 + 0.2 * 0.35, 10);
  });

  it('changes nothing at 0, and answers an empty ranking with an empty one', () => {
    const ranked = [scored('m1', 0.62), scored('m2', 0.42)];
    expect(scores(withStanding(ranked, 0))).toEqual(scores(ranked));
    expect(withStanding([], 1)).toEqual([]);
  });
});

describe('HybridRanker.fuse and standing', () => {
  const ranking = (): ScoredCandidate[] => pool(scored('m1', 0.6), scored('m2', 0.4));

  it('applies to a message typed as people type it, in a language the model understands', () => {
    const ranker = new HybridRanker({ standing: 1 });
    expect(ranker.fuse(['whats mick do for a crust'], [ranking()])[0]?.score).toBeCloseTo(0.68, 10);
    expect(ranker.fuse(['hi! what does Mick do?'], [ranking()])[0]?.score).toBeCloseTo(0.68, 10);
    expect(ranker.fuse(['What does Mick do'], [ranking()])[0]?.score).toBeCloseTo(0.68, 10);
  });

  it('leaves a clean question (between greetings and thanks too) as the score map scores it, and a language the model reads by the words only', () => {
    const ranker = new HybridRanker({ standing: 1 });
    expect(scores(ranker.fuse(['What does Mick do for a living?'], [ranking()]))).toEqual(scores(ranking()));
    expect(scores(ranker.fuse(['Hi! What does Mick do for a living? Thanks!'], [ranking()]))).toEqual(scores(ranking()));
    // USE-lite reads English only: a German message is ranked on its words, with their own map.
    expect(scores(ranker.fuse(['Was macht Anna beruflich'], [ranking()]))).toEqual(scores(ranking()));
    expect(scores(new HybridRanker({ standing: 0 }).fuse(['whats mick do for a crust'], [ranking()]))).toEqual(scores(ranking()));
  });

  it('applies after the parts are fused, so the margin is over the fused scores', () => {
    const ranker = new HybridRanker({ standing: 1, partAgreement: 0 });
    const fused = ranker.fuse(['Long day. what does mick do', 'what does mick do'], [pool(scored('m1', 0.5), scored('m2', 0.4)), [scored('m1', 0.6)]]);
    // m1 by its best part (0.6), then its margin over m2: 0.6 + 0.2 x 0.4; m2 0.4 x (1 - 0.2).
    expect(scores(fused)).toEqual([
      ['m1', 0.68],
      ['m2', 0.32],
    ]);
  });
});

describe('standsOut: which messages standing applies to', () => {
  it('is a message typed as people type it that asks or states something', () => {
    expect(standsOut('whats mick do for a crust')).toBe(true);
    expect(standsOut('hi! what does Mick do?')).toBe(true);
    expect(standsOut('mick is coming over. what does he do')).toBe(true);
    expect(standsOut("I'm on the bus home. What does Mick do?")).toBe(true);
  });

  it('is not a clean question, alone or between greetings and thanks, nor small talk only', () => {
    expect(standsOut('What does Mick do for a living?')).toBe(false);
    expect(standsOut('Hi! What does Mick do?')).toBe(false);
    expect(standsOut('hi there! Does Marta have any kids? Thanks!')).toBe(false);
    expect(standsOut("diolch cariad, that's me sorted")).toBe(false);
    expect(standsOut('thanks!')).toBe(false);
  });
});
