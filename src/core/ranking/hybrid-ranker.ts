import type { Candidate } from '../store.js';
import { queryTerms } from './terms.js';
import type { QueryPlan, Ranker, ScoredCandidate } from './types.js';

/**
 * First hybrid ranker: an absolute (not per-query normalised) fusion of cosine similarity and a saturating BM25
 * term, so that a score means the same thing for every query and a threshold can separate on- from off-topic.
 */
export class HybridRanker implements Ranker {
  plan(query: string, limit: number): QueryPlan {
    const k = Math.max(50, limit * 4);
    return { embedText: query, terms: queryTerms(query), vectorK: k, textK: k };
  }

  rank(_query: string, _plan: QueryPlan, candidates: readonly Candidate[]): ScoredCandidate[] {
    return candidates
      .map((candidate) => {
        const cos = Math.min(1, Math.max(0, (candidate.cosine - 0.1) / 0.6));
        const words = candidate.bm25 / (candidate.bm25 + 4);
        return { candidate, score: Math.min(1, Math.max(0, 0.6 * cos + 0.4 * words)) };
      })
      .sort(compareScored);
  }
}

export function compareScored(a: ScoredCandidate, b: ScoredCandidate): number {
  if (b.score !== a.score) return b.score - a.score;
  const am = a.candidate.memory;
  const bm = b.candidate.memory;
  if (am.createdAt !== bm.createdAt) return am.createdAt < bm.createdAt ? 1 : -1;
  return am.id < bm.id ? 1 : am.id > bm.id ? -1 : 0;
}
