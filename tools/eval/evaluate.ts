/**
 * One evaluation pass: every query through a recall function, the metrics per category, the threshold outcome at
 * the requested limit/minScore and at the service defaults, and the off-topic rate. Shared by `tools/eval.ts`
 * (the real service) and the tuning harness (cached embeddings), so both report the same figures the same way.
 */
import type { EvalData, EvalQuery } from './dataset.js';
import { usersOf } from './dataset.js';
import { metricsTable, queryMetrics, summarize, thresholdOutcome, type MetricRow } from './metrics.js';
import type { RecallFn } from './service-recall.js';

export const DEFAULT_LIMIT = 5;
export const DEFAULT_MIN_SCORE = 0.7;

export interface EvalOptions {
  /** Results per query for the run file and the threshold line (metrics need at least 10). */
  limit: number;
  minScore: number;
  /** Questions that no memory answers, asked of every user at the defaults. */
  offTopic: readonly string[];
  /** Only these users' queries (robustness splits); all when undefined. */
  users?: readonly string[] | undefined;
  onProgress?: (done: number, total: number) => void;
}

export interface ThresholdLine {
  limit: number;
  minScore: number;
  /** Share of questions with at least one gold item among what recall returned. */
  anyGold: number;
  /** Share of questions for which recall returned nothing. */
  empty: number;
  /** Mean number of items returned. */
  meanReturned: number;
}

export interface EvalReport {
  rows: MetricRow[];
  run: { id: string; results: string[] }[];
  atOptions: ThresholdLine;
  atDefaults: ThresholdLine;
  /** Share of off-topic recalls (question x user) that returned nothing at the defaults. */
  offTopicEmpty: number;
  offTopicCount: number;
  /** The off-topic questions that returned something, with the best score, for inspection. */
  offTopicLeaks: { userId: string; query: string; top: string; score: number }[];
}

/** Queries that count: a gold answer exists (2 LoCoMo questions have none). */
export function scoredQueries(data: EvalData, users?: readonly string[]): EvalQuery[] {
  return data.queries.filter((q) => q.gold.length > 0 && (users === undefined || users.includes(q.userId)));
}

function line(limit: number, minScore: number, runs: { results: string[]; gold: string[] }[]): ThresholdLine {
  const meanReturned = runs.length === 0 ? 0 : runs.reduce((s, r) => s + r.results.length, 0) / runs.length;
  return { limit, minScore, ...thresholdOutcome(runs), meanReturned };
}

export async function evaluate(data: EvalData, recall: RecallFn, options: EvalOptions): Promise<EvalReport> {
  const queries = scoredQueries(data, options.users);
  const headline = queries.filter((q) => q.category !== 'adversarial');
  const depth = Math.max(10, options.limit);
  const total = queries.length + headline.length + options.offTopic.length * (options.users ?? usersOf(data.memories)).length;
  let done = 0;
  const tick = (): void => {
    done++;
    if (done % 50 === 0 || done === total) options.onProgress?.(done, total);
  };

  const ranked = new Map<string, string[]>();
  const run: { id: string; results: string[] }[] = [];
  for (const q of queries) {
    const hits = await recall(q.userId, q.query, depth, options.minScore);
    const ids = hits.map((h) => h.id);
    ranked.set(q.id, ids);
    run.push({ id: q.id, results: ids.slice(0, options.limit) });
    tick();
  }
  const rows = summarize(queries.map((q) => ({ category: q.category, metrics: queryMetrics(ranked.get(q.id) ?? [], q.gold) })));

  // Threshold lines count the headline questions (adversarial ones have no answer in the dialog by design).
  const atOptions = line(
    options.limit,
    options.minScore,
    headline.map((q) => ({ results: (ranked.get(q.id) ?? []).slice(0, options.limit), gold: q.gold })),
  );
  const defaults: { results: string[]; gold: string[] }[] = [];
  for (const q of headline) {
    const hits = await recall(q.userId, q.query, DEFAULT_LIMIT, DEFAULT_MIN_SCORE);
    defaults.push({ results: hits.map((h) => h.id), gold: q.gold });
    tick();
  }
  const atDefaults = line(DEFAULT_LIMIT, DEFAULT_MIN_SCORE, defaults);

  let empty = 0;
  const offTopicLeaks: EvalReport['offTopicLeaks'] = [];
  const users = options.users ?? usersOf(data.memories);
  for (const userId of users) {
    for (const query of options.offTopic) {
      const hits = await recall(userId, query, DEFAULT_LIMIT, DEFAULT_MIN_SCORE);
      const top = hits[0];
      if (top === undefined) empty++;
      else offTopicLeaks.push({ userId, query, top: top.id, score: top.score });
      tick();
    }
  }
  const offTopicCount = users.length * options.offTopic.length;
  return {
    rows,
    run,
    atOptions,
    atDefaults,
    offTopicEmpty: offTopicCount === 0 ? 1 : empty / offTopicCount,
    offTopicCount,
    offTopicLeaks,
  };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

function thresholdText(t: ThresholdLine): string {
  return (
    `| limit ${t.limit}, minScore ${t.minScore} | ${pct(t.anyGold)} | ${pct(t.empty)} | ${t.meanReturned.toFixed(2)} |`
  );
}

export function reportMarkdown(report: EvalReport): string {
  const { atOptions, atDefaults } = report;
  const sameAsDefaults = atOptions.limit === atDefaults.limit && atOptions.minScore === atDefaults.minScore;
  return [
    `Ranking metrics over the top ${Math.max(10, atOptions.limit)} results with minScore ${atOptions.minScore}:`,
    '',
    metricsTable(report.rows),
    '',
    '| returned list (questions excl. adversarial) | ≥1 gold | nothing | mean items |',
    '|---|---:|---:|---:|',
    thresholdText(atOptions),
    ...(sameAsDefaults ? [] : [thresholdText(atDefaults)]),
    '',
    `Off-topic questions returning nothing at the defaults: ${pct(report.offTopicEmpty)} of ${report.offTopicCount}.`,
  ].join('\n');
}
