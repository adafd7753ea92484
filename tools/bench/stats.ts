/** Small statistics and formatting helpers for the benchmark. */

export interface Summary {
  n: number;
  median: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    median: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean,
    min: sorted[0] ?? Number.NaN,
  };
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

export function seconds(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value >= 100 ? `${value.toFixed(0)} s` : `${value.toFixed(1)} s`;
}

export function ratio(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return 'n/a';
  return `${value.toFixed(digits)}x`;
}

export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

export function rate(perSecond: number): string {
  if (!Number.isFinite(perSecond)) return 'n/a';
  return perSecond >= 100 ? `${perSecond.toFixed(0)}/s` : `${perSecond.toFixed(1)}/s`;
}


/** recall@k: share of the gold ids among the first k results. */
export function recallAt(results: readonly string[], gold: readonly string[], k: number): number {
  if (gold.length === 0) return 0;
  const top = new Set(results.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((s, v) => s + v, 0) / values.length;
}

/** Deterministic pseudo-random numbers, so two runs build the same data. */
export { mulberry32 as rng } from '../shared/prng.js';
