import type { Relation } from './relatives.js';
import type { z } from 'zod';
import type { scorePartsSchema } from '../schemas.js';
import type { Candidate } from '../store.js';
import type { Language } from '../text/languages.js';

/** What recall asks of the store for one query. */
export interface QueryPlan {
  /** The text to embed (may differ from the query: e.g. question words removed). */
  embedText: string;
  /** The query's language (text/analyze.ts), which decides how its words are read. */
  language: Language;
  /** The query's terms as the word index holds them (text/analyze.ts termsOf: stems, stop words dropped). */
  terms: string[];
  /** How many nearest vectors and best word matches to take as candidates. */
  vectorK: number;
  textK: number;
  /** How many memories the store lists per term for the word side (see word-candidates.ts). */
  perTerm: number;
  /** The query could not be embedded: every candidate is read by its words (explain's path 'words'). */
  wordsOnly?: boolean | undefined;
  /**
   * Only memories whose text this matches may answer (an implied question of the message: ranking/needs.ts).
   * Set by the ranker's plan for a part it implied, never for a part the person typed.
   */
  answeredBy?: RegExp | undefined;
  /**
   * For an implied question: a memory this matches answers it whatever its words (an allergy for a dinner), and
   * earns RankerParams.impliedCoverage of the word side, unless it is about a relative the message does not bring.
   */
  settles?: { answers: RegExp; relations: ReadonlySet<Relation> | 'anyone'; person?: string } | undefined;
}

/**
 * Why a memory scored what it did (recall's `explain`): the evidence the ranker combined, each in [0, 1] unless
 * said otherwise. `raw` is the calibration's input; the score is the model's calibration map of it. One shape for
 * the ranker and the API: the schema's (core/schemas.ts, where each part is described).
 */
export type ScoreParts = z.infer<typeof scorePartsSchema>;

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
  /**
   * What of a message to recall, part by part (the first part is the message itself); recall ranks each part and a
   * memory scores by the part it answers best. One part: the message is one query.
   */
  parts(query: string): string[];
  /** The parts' rankings (in the order of `parts`; one for a message of one part) as one, best first. */
  fuse(parts: readonly string[], rankings: readonly (readonly ScoredCandidate[])[]): ScoredCandidate[];
  /**
   * The parts read as an agent's note about the user ("what am I allergic to?" -> "what is user allergic to?",
   * ranking/self.ts): one entry per part (`undefined` where a part has no first-person word); `undefined` when no
   * part speaks in the first person.
   */
  asUser(parts: readonly string[]): (string | undefined)[] | undefined;
  /**
   * The parts with their typos corrected to the words of the memories found for them ("what am I alergic to?" ->
   * "what am I allergic to?", text/typos.ts): one entry per part (`undefined` where a part has none); `undefined`
   * when none has any.
   */
  corrected(parts: readonly string[], candidates: readonly Candidate[]): (string | undefined)[] | undefined;
  /** The plan of a query, or of a part of `message` (an implied part's plan says which memories may answer it). */
  plan(query: string, limit: number, message?: string): QueryPlan;
  /** Candidates scored and sorted best first (ties: see compareScored in hybrid-ranker.ts). */
  rank(query: string, plan: QueryPlan, candidates: readonly Candidate[]): ScoredCandidate[];
  /** Where its score map comes from, for /healthz (calibrated-ranker.ts); absent: a fixed ranker. */
  calibrationStatus?(): 'builtin' | 'fitted' | 'pending' | 'failed';
}
