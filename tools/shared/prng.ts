/**
 * Seeded pseudo-random numbers in [0, 1) (mulberry32), for everything that must be the same on every run or
 * replayable from a printed seed: benchmark and soak data, randomised tests, generated fixtures.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
