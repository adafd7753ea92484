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

/**
 * Why a memory scored what it did (recall's `explain`): the evidence the ranker combined, each in [0, 1] unless
 * said otherwise. `raw` is the calibration's input; the score is the model's calibration map of it.
 */
export interface ScoreParts {
  /** Cosine similarity of the memory and the query (without its question frame), in [-1, 1]. */
  cosine: number;
  /** The cosine on the model's calibrated scale. */
  semantic: number;
  /** Share of the query's word information (idf-weighted terms) the memory contains. */
  words: number;
  /** What reading the memory with a neighbouring turn of the same conversation added. */
  context: number;
  /** The factor for a memory with almost no content words (1: none applied). */
  brevity: number;
  /** Added because the memory is of (or names) the day or month the query names. */
  date: number;
  /** Taken off because the best match of the query is much stronger. */
  gap: number;
  /** Largest share of the query's word weight held by one query term the memory lacks. */
  missing: number;
  /** Share of the query's word weight held by terms that no memory contains. */
  absent: number;
  /**
   * For a question that asks for a kind of answer (a colour, a number, a name): 1 when the memory (or a turn beside
   * it) holds one, 0 when not (its evidence was discounted); absent for other questions.
   */
  answer?: number;
  /** The evidence before calibration. */
  raw: number;
  /** Score added to rank this memory above an older one that states the same thing (absent when none). */
  newer?: number;
}

export interface ScoredCandidate {
  candidate: Candidate;
  /** Calibrated relevance in [0, 1]. */
  score: number;
  parts?: ScoreParts;
}

/**
 * Turns a query into a search plan and scores the candidates the store found. Pure: no I/O, so the same ranking
 * runs over every backend and in the evaluation tool.
 */
export interface Ranker {
  plan(query: string, limit: number): QueryPlan;
  /** Candidates scored and sorted best first (ties: see compareScored in hybrid-ranker.ts). */
  rank(query: string, plan: QueryPlan, candidates: readonly Candidate[]): ScoredCandidate[];
}
