import { describe, expect, it } from 'vitest';
import {
  hitAt,
  meanMetrics,
  metricsTable,
  mrrAt,
  ndcgAt,
  queryMetrics,
  recallAt,
  summarize,
  thresholdOutcome,
} from '../../tools/eval/metrics.js';

const gold = (...ids: string[]): Set<string> => new Set(ids);

describe('recall@k and hit@k', () => {
  it('counts the share of gold found in the top k', () => {
    expect(recallAt(['a', 'x', 'b'], gold('a', 'b'), 2)).toBe(0.5);
    expect(recallAt(['a', 'x', 'b'], gold('a', 'b'), 3)).toBe(1);
    expect(recallAt([], gold('a'), 5)).toBe(0);
  });

  it('counts a repeated gold id once', () => {
    expect(recallAt(['a', 'a'], gold('a', 'b'), 5)).toBe(0.5);
  });

  it('is 0 for a query without gold rather than NaN', () => {
    expect(recallAt(['a'], gold(), 5)).toBe(0);
    expect(ndcgAt(['a'], gold(), 5)).toBe(0);
  });

  it('hit@k is 1 as soon as one gold item is in the top k', () => {
    expect(hitAt(['x', 'y', 'a'], gold('a'), 2)).toBe(0);
    expect(hitAt(['x', 'y', 'a'], gold('a'), 3)).toBe(1);
  });
});

describe('MRR@k', () => {
  it('is the reciprocal rank of the first gold item within k', () => {
    expect(mrrAt(['a'], gold('a'), 10)).toBe(1);
    expect(mrrAt(['x', 'y', 'a', 'b'], gold('a', 'b'), 10)).toBeCloseTo(1 / 3);
    expect(mrrAt(['x', 'y', 'a'], gold('a'), 2)).toBe(0);
  });
});

describe('nDCG@k', () => {
  it('is 1 for a perfect list and below 1 when gold comes later', () => {
    expect(ndcgAt(['a', 'b', 'x'], gold('a', 'b'), 10)).toBeCloseTo(1);
    const late = ndcgAt(['x', 'a'], gold('a'), 10);
    expect(late).toBeCloseTo(1 / Math.log2(3));
  });

  it('normalises by the ideal list cut at k when there is more gold than k', () => {
    expect(ndcgAt(['a', 'b'], gold('a', 'b', 'c'), 2)).toBeCloseTo(1);
  });
});

describe('aggregation', () => {
  it('computes all metrics of one query', () => {
    const m = queryMetrics(['x', 'a', 'y', 'z', 'w', 'b'], ['a', 'b']);
    expect(m).toMatchObject({ recall5: 0.5, recall10: 1, hit5: 1, mrr10: 0.5 });
  });

  it('averages per category and overall without the excluded category', () => {
    const perfect = queryMetrics(['a'], ['a']);
    const miss = queryMetrics(['x'], ['a']);
    const rows = summarize([
      { category: 'single-hop', metrics: perfect },
      { category: 'single-hop', metrics: miss },
      { category: 'adversarial', metrics: miss },
    ]);
    expect(rows.map((r) => r.label)).toEqual(['single-hop', 'adversarial', 'overall (excl. adversarial)']);
    expect(rows[0]?.recall5).toBe(0.5);
    expect(rows[2]).toMatchObject({ count: 2, recall5: 0.5 });
  });

  it('gives zeros for an empty group', () => {
    expect(meanMetrics('none', [])).toMatchObject({ count: 0, recall5: 0, ndcg10: 0 });
  });

  it('reports the share of lists with a gold item and of empty lists', () => {
    const outcome = thresholdOutcome([
      { results: ['a'], gold: ['a'] },
      { results: [], gold: ['a'] },
      { results: ['x'], gold: ['a'] },
      { results: ['x', 'b'], gold: ['b'] },
    ]);
    expect(outcome).toEqual({ anyGold: 0.5, empty: 0.25 });
    expect(thresholdOutcome([])).toEqual({ anyGold: 0, empty: 0 });
  });

  it('renders a markdown table with three decimals', () => {
    const table = metricsTable([meanMetrics('overall', [queryMetrics(['a'], ['a'])])]);
    expect(table).toContain('| overall | 1 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |');
  });
});
