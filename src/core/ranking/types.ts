import type { Candidate } from '../store.js';

/** What recall asks of the store for one query. */
export interface QueryPlan {
  /** The text to embed (may differ from the query: e.g. question words removed). */
  embedText: string;
  /** Normalised word terms for the full-text side. */
  terms: string[];
  /** How many nearest vectors and best word matches to take as candidates. */
  vectorK: number;
  textK: number;
  /** How many memories the store lists per term for the word side (see word-candidates.ts). */
  perTerm: number;
}

export interface ScoredCandidate {
  candidate: Candidate;
  /** Calibrated relevance in [0, 1]. */
  score: number;
}

/**
 * Turns a query into a search plan and scores the candidates the store found. Pure: no I/O, so the same ranking
 * runs over every backend and in the evaluation tool.
 */
export interface Ranker {
  plan(query: string, limit: number): QueryPlan;
  /** Candidates scored and sorted best first (ties broken by newer first, then id). */
  rank(query: string, plan: QueryPlan, candidates: readonly Candidate[]): ScoredCandidate[];
}
