import { describe, expect, it } from 'vitest';
import type { EvalData } from '../../tools/eval/dataset.js';
import { evaluate, reportMarkdown, suiteMarkdown, suiteRows } from '../../tools/eval/evaluate.js';
import type { RecallFn } from '../../tools/eval/service-recall.js';

const data: EvalData = {
  memories: [
    { userId: 'u1', id: 'm1', text: 'Ana likes pottery', createdAt: '2024-01-01T00:00:00.000Z' },
    { userId: 'u1', id: 'm2', text: 'Ana runs', createdAt: '2024-01-02T00:00:00.000Z' },
    { userId: 'u2', id: 'm3', text: 'Ben swims', createdAt: '2024-01-03T00:00:00.000Z' },
  ],
  queries: [
    { id: 'q1', userId: 'u1', query: 'pottery', gold: ['m1'], category: 'single-hop', unanswerable: false },
    { id: 'q2', userId: 'u1', query: 'running', gold: ['m2'], category: 'single-hop', unanswerable: false },
    { id: 'q3', userId: 'u2', query: 'nothing', gold: [], category: 'single-hop', unanswerable: false },
    { id: 'q4', userId: 'u2', query: 'trick', gold: ['m3'], category: 'adversarial', unanswerable: false },
  ],
};

/** A fake recall: "pottery" finds m1 with a high score, "running" finds m2 below the threshold, off-topic nothing. */
const recall: RecallFn = (_userId, query, limit, minScore) => {
  const hits =
    query === 'pottery' ? [{ id: 'm1', score: 0.9 }] : query === 'running' ? [{ id: 'x', score: 0.8 }, { id: 'm2', score: 0.5 }] : [];
  return Promise.resolve(hits.filter((h) => h.score >= minScore).slice(0, limit));
};

describe('evaluate', () => {
  it('scores every query with gold, reports thresholds and the off-topic rate', async () => {
    const report = await evaluate(data, recall, { limit: 10, minScore: 0, offTopic: ['capital of Mongolia?'] });
    expect(report.run.map((r) => r.id)).toEqual(['q1', 'q2', 'q4']);
    const overall = report.rows.find((r) => r.label.startsWith('overall'));
    expect(overall).toMatchObject({ count: 2, recall5: 1, mrr10: 0.75 });
    expect(report.atOptions).toMatchObject({ anyGold: 1, empty: 0 });
    // At the defaults (0.7) the second question keeps only the wrong item.
    expect(report.atDefaults).toMatchObject({ limit: 5, minScore: 0.7, anyGold: 0.5, empty: 0 });
    expect(report.offTopicEmpty).toBe(1);
    expect(report.offTopicCount).toBe(2);
    expect(reportMarkdown(report)).toContain('Off-topic questions returning nothing at the defaults: 100.0% of 2.');
  });

  it('can be restricted to some users', async () => {
    const report = await evaluate(data, recall, { limit: 5, minScore: 0, offTopic: ['x'], users: ['u2'] });
    expect(report.run.map((r) => r.id)).toEqual(['q4']);
    expect(report.offTopicCount).toBe(1);
  });

  it('gives the figures of each category on its own, with the unanswerable ones apart', async () => {
    const chat: EvalData = {
      memories: data.memories,
      queries: [
        { id: 'c1', userId: 'u1', query: 'pottery', gold: ['m1'], category: 'plain', unanswerable: false },
        { id: 'c2', userId: 'u1', query: 'running', gold: ['m2'], category: 'multi-sentence', unanswerable: false },
        { id: 'c3', userId: 'u1', query: 'pottery', gold: [], category: 'unanswerable', unanswerable: true },
        { id: 'c4', userId: 'u2', query: 'nothing', gold: [], category: 'unanswerable', unanswerable: true },
      ],
    };
    const report = await evaluate(chat, recall, { limit: 10, minScore: 0, offTopic: [], exhaustive: true });
    expect(report.byCategory.map((k) => k.category)).toEqual(['plain', 'multi-sentence', 'unanswerable']);
    expect(report.byCategory[0]?.figures).toMatchObject({ questions: 1, recall5: 1, hitAtDefaults: 1, precisionAtDefaults: 1, unanswerableEmpty: undefined });
    // "running" returns only the wrong item at the defaults.
    expect(report.byCategory[1]?.figures).toMatchObject({ questions: 1, recall5: 1, hitAtDefaults: 0, precisionAtDefaults: 0 });
    // "pottery" with no gold returns m1 (not empty); "nothing" returns nothing.
    expect(report.byCategory[2]?.figures).toMatchObject({ questions: 0, recall5: undefined, hitAtDefaults: undefined, unanswerableEmpty: 0.5, unanswerableCount: 2 });
    expect(report.suite).toMatchObject({ questions: 2, hitAtDefaults: 0.5, precisionAtDefaults: 0.5, unanswerableEmpty: 0.5, offTopicEmpty: 1 });
    const rows = suiteRows('chat', report, true);
    expect(rows.map((r) => r.name)).toEqual(['chat', 'chat: plain', 'chat: multi-sentence', 'chat: unanswerable']);
    expect(suiteRows('chat', report, false).map((r) => r.name)).toEqual(['chat']);
    expect(suiteMarkdown(rows)).toContain('| chat: unanswerable | 0 | n/a | n/a | n/a | n/a | 0.500 (2) | n/a | n/a |');
  });
});
