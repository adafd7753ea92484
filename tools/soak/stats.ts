/** Latency percentiles, throughput and memory trend for the soak report. */

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export interface RouteStats {
  route: string;
  requests: number;
  errors: number;
  limited: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function routeStats(route: string, latencies: number[], errors: number, limited: number, seconds: number): RouteStats {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    route,
    requests: latencies.length,
    errors,
    limited,
    perSecond: latencies.length / seconds,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export interface RssSample {
  atMs: number;
  rssMb: number;
}

export interface MemoryTrend {
  samples: number;
  firstMb: number;
  lastMb: number;
  minMb: number;
  maxMb: number;
  /** Mean of the first third of the samples, and of the last third. */
  earlyMeanMb: number;
  lateMeanMb: number;
  /** Least-squares slope over the whole run, in MB per minute. */
  slopeMbPerMin: number;
}

export function memoryTrend(samples: readonly RssSample[]): MemoryTrend {
  const n = samples.length;
  const values = samples.map((s) => s.rssMb);
  const mean = (xs: number[]) => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
  const third = Math.max(1, Math.floor(n / 3));
  const xs = samples.map((s) => s.atMs / 60_000);
  const mx = mean(xs);
  const my = mean(values);
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += ((xs[i] ?? 0) - mx) * ((values[i] ?? 0) - my);
    den += ((xs[i] ?? 0) - mx) ** 2;
  }
  return {
    samples: n,
    firstMb: values[0] ?? Number.NaN,
    lastMb: values[n - 1] ?? Number.NaN,
    minMb: Math.min(...values),
    maxMb: Math.max(...values),
    earlyMeanMb: mean(values.slice(0, third)),
    lateMeanMb: mean(values.slice(n - third)),
    slopeMbPerMin: den === 0 ? 0 : num / den,
  };
}
