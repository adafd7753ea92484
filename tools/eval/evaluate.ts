/**
 * One evaluation pass: every query through a recall function, the metrics per category, the threshold outcome at
 * the requested limit/minScore and at the service defaults, and the off-topic rate. Shared by `tools/eval.ts`
 * (the real service) and the tuning harness (cached embeddings), so both report the same figures the same way.
 */
import type { EvalData, EvalQuery } from './dataset.js';
import { usersOf } from './dataset.js';
import { hitAt, metricsTable, queryMetrics, summarize, thresholdOutcome, type MetricRow } from './metrics.js';
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
  /** Ask the off-topic questions of at most this many users (the first ones); every user when undefined. */
  offTopicUsers?: number | undefined;
  /** Whether the set's gold labels are exhaustive, so that precision at the defaults means something. */
  exhaustive?: boolean | undefined;
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

/**
 * The figures the evaluation suite compares across sets (one row of `npm run eval`'s table). Ranking figures count
 * the questions with gold except adversarial ones; threshold figures are at the service defaults (limit 5,
 * minScore 0.7). A figure a set cannot measure is undefined (printed "n/a").
 */
export interface SuiteFigures {
  questions: number;
  /** Undefined on a row with no answerable question (a kind of chat message that no memory answers). */
  recall5: number | undefined;
  recall10: number | undefined;
  /** Share of answerable questions with at least one gold memory among what recall returns at the defaults. */
  hitAtDefaults: number | undefined;
  /**
   * Share of the memories returned at the defaults (answerable questions) that are gold: meaningful on sets whose
   * labels are exhaustive (fact lists); on dialogue sets a returned turn that is not cited may still be relevant.
   */
  precisionAtDefaults: number | undefined;
  /** Share of the set's unanswerable questions that return nothing at the defaults. */
  unanswerableEmpty: number | undefined;
  unanswerableCount: number;
  /** Undefined on a row of one kind of question (the off-topic questions are asked once a set). */
  offTopicEmpty: number | undefined;
  /** LongMemEval: share of questions with any turn of an answer session in the top 5. */
  sessionHit5: number | undefined;
}

export interface EvalReport {
  rows: MetricRow[];
  suite: SuiteFigures;
  /**
   * The suite's figures for each category on its own, in order of first appearance (off-topic undefined): the rows
   * of a set whose kinds of question are measured apart (the chat sets: plain, multi-sentence, implicit, unanswerable).
   */
  byCategory: { category: string; figures: SuiteFigures }[];
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
  const unanswerable = data.queries.filter((q) => q.unanswerable && (options.users === undefined || options.users.includes(q.userId)));
  const offTopicUsers = (options.users ?? usersOf(data.memories)).slice(0, options.offTopicUsers);
  const depth = Math.max(10, options.limit);
  const total = queries.length + headline.length + unanswerable.length + options.offTopic.length * offTopicUsers.length;
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
  const defaultsById = new Map<string, string[]>();
  for (const q of headline) {
    const hits = await recall(q.userId, q.query, DEFAULT_LIMIT, DEFAULT_MIN_SCORE);
    defaults.push({ results: hits.map((h) => h.id), gold: q.gold });
    defaultsById.set(q.id, hits.map((h) => h.id));
    tick();
  }
  const atDefaults = line(DEFAULT_LIMIT, DEFAULT_MIN_SCORE, defaults);

  const unanswerableWasEmpty: boolean[] = [];
  for (const q of unanswerable) {
    unanswerableWasEmpty.push((await recall(q.userId, q.query, DEFAULT_LIMIT, DEFAULT_MIN_SCORE)).length === 0);
    tick();
  }

  let empty = 0;
  const offTopicLeaks: EvalReport['offTopicLeaks'] = [];
  const users = offTopicUsers;
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
  const offTopicEmpty = offTopicCount === 0 ? 1 : empty / offTopicCount;
  const unanswerableRuns = new Map<string, boolean>(unanswerable.map((q, i) => [q.id, unanswerableWasEmpty[i] === true]));
  const figuresOf = (answerable: readonly EvalQuery[], unanswered: readonly EvalQuery[], metrics: MetricRow | undefined): SuiteFigures => {
    const atDefaultsOf = answerable.map((q) => ({ results: defaultsById.get(q.id) ?? [], gold: q.gold }));
    const returned = atDefaultsOf.reduce((sum, r) => sum + r.results.length, 0);
    const returnedGold = atDefaultsOf.reduce((sum, r) => sum + r.results.filter((id) => r.gold.includes(id)).length, 0);
    const withSessions = answerable.filter((q) => q.sessionGold !== undefined && q.sessionGold.length > 0);
    const empties = unanswered.filter((q) => unanswerableRuns.get(q.id) === true).length;
    return {
      questions: answerable.length,
      recall5: answerable.length === 0 ? undefined : (metrics?.recall5 ?? 0),
      recall10: answerable.length === 0 ? undefined : (metrics?.recall10 ?? 0),
      hitAtDefaults: answerable.length === 0 ? undefined : thresholdOutcome(atDefaultsOf).anyGold,
      precisionAtDefaults: options.exhaustive === true && answerable.length > 0 ? (returned === 0 ? 0 : returnedGold / returned) : undefined,
      unanswerableEmpty: unanswered.length === 0 ? undefined : empties / unanswered.length,
      unanswerableCount: unanswered.length,
      offTopicEmpty: undefined,
      sessionHit5:
        withSessions.length === 0
          ? undefined
          : withSessions.filter((q) => hitAt(ranked.get(q.id) ?? [], new Set(q.sessionGold), 5) === 1).length / withSessions.length,
    };
  };
  const suite: SuiteFigures = { ...figuresOf(headline, unanswerable, rows[rows.length - 1]), offTopicEmpty };
  const categories = [...new Set(data.queries.filter((q) => options.users === undefined || options.users.includes(q.userId)).map((q) => q.category))];
  const byCategory = categories.map((category) => ({
    category,
    figures: figuresOf(
      headline.filter((q) => q.category === category),
      unanswerable.filter((q) => q.category === category),
      rows.find((r) => r.label === category),
    ),
  }));
  return {
    rows,
    suite,
    byCategory,
    run,
    atOptions,
    atDefaults,
    offTopicEmpty,
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

export function reportMarkdown(report: EvalReport, rowPerCategory = false): string {
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
    '',
    suiteMarkdown(suiteRows('this set', report, rowPerCategory)),
  ].join('\n');
}

/**
 * A set's rows in the suite's table: the set as a whole, then (when the set asks for it) one row for each category
 * of question, named "<set>: <category>".
 */
export function suiteRows(name: string, report: EvalReport, rowPerCategory: boolean): { name: string; figures: SuiteFigures }[] {
  const kinds = rowPerCategory ? report.byCategory.map((k) => ({ name: `${name}: ${k.category}`, figures: k.figures })) : [];
  return [{ name, figures: report.suite }, ...kinds];
}

const fixed = (x: number | undefined): string => (x === undefined ? 'n/a' : x.toFixed(3));

/** One table over several sets: the suite's figures, one row a set. */
export function suiteMarkdown(rows: readonly { name: string; figures: SuiteFigures }[]): string {
  return [
    '| set | questions | recall@5 | recall@10 | hit at defaults | precision at defaults | unanswerable empty | off-topic empty | session hit@5 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(({ name, figures: f }) =>
      `| ${name} | ${f.questions} | ${fixed(f.recall5)} | ${fixed(f.recall10)} | ${fixed(f.hitAtDefaults)} | ${fixed(f.precisionAtDefaults)} | ` +
      `${f.unanswerableEmpty === undefined ? 'n/a' : `${fixed(f.unanswerableEmpty)} (${f.unanswerableCount})`} | ${fixed(f.offTopicEmpty)} | ${fixed(f.sessionHit5)} |`,
    ),
  ].join('\n');
}
