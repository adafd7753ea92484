import type { TermMatches } from '../store.js';

/**
 * Which memories the word side hands to the ranker: the `k` that hold the most query information, from the
 * per-term lists the store found (each bounded, most recently stored first). A memory scores the sum of the
 * weights of the terms it contains, a term weighing ln(1 + n / df): df is how many memories hold it (its list's
 * length, a floor when the list was cut at its bound) and n how many distinct memories all the lists hold. So a
 * memory with two rare terms of the question beats one with a word found everywhere, as with BM25, without
 * reading every posting of a common word (which cost 50-200 ms at 100,000 memories in one user).
 *
 * Ties go to the memory nearer the head of a list (the more recently stored), then to the smaller id, so the pick
 * is deterministic and the same on every backend whenever the lists are.
 */
export function pickWordCandidates(matches: readonly TermMatches[], k: number): string[] {
  if (k <= 0) return [];
  const score = new Map<string, number>();
  const position = new Map<string, number>();
  for (const { ids } of matches) {
    ids.forEach((id, i) => {
      if ((position.get(id) ?? Infinity) > i) position.set(id, i);
    });
  }
  const n = position.size;
  for (const { ids } of matches) {
    if (ids.length === 0) continue;
    const weight = Math.log(1 + n / ids.length);
    for (const id of new Set(ids)) score.set(id, (score.get(id) ?? 0) + weight);
  }
  return [...score.keys()]
    .sort((a, b) => {
      const byScore = (score.get(b) ?? 0) - (score.get(a) ?? 0);
      if (byScore !== 0) return byScore;
      const byPosition = (position.get(a) ?? 0) - (position.get(b) ?? 0);
      if (byPosition !== 0) return byPosition;
      return a < b ? -1 : a > b ? 1 : 0;
    })
    .slice(0, k);
}
