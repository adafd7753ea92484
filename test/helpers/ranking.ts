/** Ranker test stand-ins: a candidate as the store hands it over, and one query's ranking by memory id. */
import { HybridRanker, type RankerParams } from '../../src/core/ranking/hybrid-ranker.js';
import type { ScoredCandidate, ScoreParts } from '../../src/core/ranking/types.js';
import type { Candidate } from '../../src/core/store.js';

const APP = { id: '00000000-0000-4000-8000-000000000000', slug: 'default', createdAt: '2024-01-01T00:00:00.000Z' };

/** A memory of user `u` found at `cosine`, stored at `at`; `extra` sets its neighbours (prevId, nextId) and the like. */
export function candidate(id: string, text: string, cosine: number, extra: Partial<Candidate> = {}, at = '2025-01-10T09:00:00.000Z'): Candidate {
  return {
    memory: { id, uuid: `uuid-${id}`, userId: 'u', app: APP, text, metadata: {}, createdAt: at, updatedAt: at, expiresAt: null },
    cosine,
    prevId: null,
    nextId: null,
    ...extra,
  };
}

/** The ranking of one query (limit 5) over the candidates, by memory id. */
export function rankedById(query: string, candidates: readonly Candidate[], params: Partial<RankerParams> = {}): Map<string, ScoredCandidate> {
  const ranker = new HybridRanker(params);
  return new Map(ranker.rank(query, ranker.plan(query, 5), candidates).map((s) => [s.candidate.memory.id, s]));
}

/** A memory already ranked at `score` (its text is its id), with the score parts a ranking gives and `extra` ones. */
export function scored(id: string, score: number, extra: Partial<ScoreParts> = {}): ScoredCandidate {
  return {
    candidate: candidate(id, id, 0.5),
    score,
    parts: { cosine: 0.5, semantic: 0, words: 0, context: 0, brevity: 1, date: 0, gap: 0, missing: 0, absent: 0, raw: score, ...extra },
  };
}
