/**
 * Retrieval metrics with binary relevance, as the LoCoMo retrieval results are reported: recall@k (share of a
 * question's gold found in the top k), hit@k (any gold in the top k), MRR@k and nDCG@k. Pure functions.
 */

export interface QueryMetrics {
  recall5: number;
  recall10: number;
  hit5: number;
  mrr10: number;
  ndcg10: number;
}

export const METRIC_NAMES: readonly (keyof QueryMetrics)[] = ['recall5', 'recall10', 'hit5', 'mrr10', 'ndcg10'];

/** Share of the gold ids found among the first k results (duplicates in results count once). */
export function recallAt(results: readonly string[], gold: ReadonlySet<string>, k: number): number {
  if (gold.size === 0) return 0;
  const found = new Set(results.slice(0, k).filter((id) => gold.has(id)));
  return found.size / gold.size;
}

export function hitAt(results: readonly string[], gold: ReadonlySet<string>, k: number): number {
  return results.slice(0, k).some((id) => gold.has(id)) ? 1 : 0;
}

/** Reciprocal rank of the first gold result within the first k, 0 when none. */
export function mrrAt(results: readonly string[], gold: ReadonlySet<string>, k: number): number {
  const rank = results.slice(0, k).findIndex((id) => gold.has(id));
  return rank < 0 ? 0 : 1 / (rank + 1);
}

/** nDCG@k with binary gains: DCG of the results over DCG of an ideal list holding every gold item first. */
export function ndcgAt(results: readonly string[], gold: ReadonlySet<string>, k: number): number {
  if (gold.size === 0) return 0;
  const seen = new Set<string>();
  let dcg = 0;
  results.slice(0, k).forEach((id, i) => {
    if (gold.has(id) && !seen.has(id)) dcg += 1 / Math.log2(i + 2);
    seen.add(id);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, gold.size); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

export function queryMetrics(results: readonly string[], goldIds: readonly string[]): QueryMetrics {
  const gold = new Set(goldIds);
  return {
    recall5: recallAt(results, gold, 5),
    recall10: recallAt(results, gold, 10),
    hit5: hitAt(results, gold, 5),
    mrr10: mrrAt(results, gold, 10),
    ndcg10: ndcgAt(results, gold, 10),
  };
}

export interface MetricRow extends QueryMetrics {
  /** Category name, or "overall". */
  label: string;
  count: number;
}

/** Means of the metrics over a group of queries; all zeros for an empty group. */
export function meanMetrics(label: string, rows: readonly QueryMetrics[]): MetricRow {
  const mean = (name: keyof QueryMetrics): number =>
    rows.length === 0 ? 0 : rows.reduce((sum, r) => sum + r[name], 0) / rows.length;
  return {
    label,
    count: rows.length,
    recall5: mean('recall5'),
    recall10: mean('recall10'),
    hit5: mean('hit5'),
    mrr10: mean('mrr10'),
    ndcg10: mean('ndcg10'),
  };
}

export interface ScoredQuery {
  category: string;
  metrics: QueryMetrics;
}

/**
 * One row per category (in order of first appearance) and an "overall" row over every category except the
 * excluded ones (LoCoMo's headline figure leaves out adversarial questions, whose answers are not in the dialog).
 */
export function summarize(queries: readonly ScoredQuery[], excluded: readonly string[] = ['adversarial']): MetricRow[] {
  const categories = [...new Set(queries.map((q) => q.category))];
  const rows = categories.map((c) => meanMetrics(c, queries.filter((q) => q.category === c).map((q) => q.metrics)));
  const counted = queries.filter((q) => !excluded.includes(q.category)).map((q) => q.metrics);
  rows.push(meanMetrics(excluded.length > 0 ? `overall (excl. ${excluded.join(', ')})` : 'overall', counted));
  return rows;
}

/** Share of questions whose returned list holds at least one gold item, and share that got nothing at all. */
export function thresholdOutcome(runs: readonly { results: readonly string[]; gold: readonly string[] }[]): {
  anyGold: number;
  empty: number;
} {
  if (runs.length === 0) return { anyGold: 0, empty: 0 };
  const anyGold = runs.filter((r) => r.results.some((id) => r.gold.includes(id))).length;
  const empty = runs.filter((r) => r.results.length === 0).length;
  return { anyGold: anyGold / runs.length, empty: empty / runs.length };
}

/** A markdown table of metric rows, three decimals. */
export function metricsTable(rows: readonly MetricRow[]): string {
  const header = '| category | n | recall@5 | recall@10 | hit@5 | MRR@10 | nDCG@10 |\n|---|---:|---:|---:|---:|---:|---:|';
  const lines = rows.map(
    (r) =>
      `| ${r.label} | ${r.count} | ${r.recall5.toFixed(3)} | ${r.recall10.toFixed(3)} | ${r.hit5.toFixed(3)} | ${r.mrr10.toFixed(3)} | ${r.ndcg10.toFixed(3)} |`,
  );
  return [header, ...lines].join('\n');
}
