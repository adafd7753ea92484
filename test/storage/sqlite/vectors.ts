/** Vectors for the search tests: seeded, so a failure reproduces. */

/** The dimension the search tests use unless they say otherwise. */
export const DIM = 64;

/** Deterministic pseudo-random numbers, so a failure reproduces. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

export function unitVector(next: () => number, dim = DIM): Float32Array {
  const v = Float32Array.from({ length: dim }, () => next() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

export function near(v: Float32Array, next: () => number, amount: number): Float32Array {
  const noise = unitVector(next, v.length);
  const w = v.map((x, i) => x + amount * (noise[i] ?? 0));
  const norm = Math.hypot(...w);
  return w.map((x) => x / norm);
}

export function exactTop(vectors: Map<number, Float32Array>, q: Float32Array, k: number): number[] {
  const scored = [...vectors].map(([rowid, v]) => [rowid, v.reduce((s, x, i) => s + x * (q[i] ?? 0), 0)] as const);
  return scored.sort((a, b) => b[1] - a[1]).slice(0, k).map(([rowid]) => rowid);
}

