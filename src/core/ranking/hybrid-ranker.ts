import type { Candidate } from '../store.js';
import { TermWeights } from './coverage.js';
import { dateSpanOf, inSpan } from './dates.js';
import { stripQuestionFrame } from './question.js';
import { queryTerms, Stemmer } from './terms.js';
import type { QueryPlan, Ranker, ScoredCandidate } from './types.js';

/** The tunable constants of the ranker (the values in use are DEFAULT_RANKER_PARAMS). */
export interface RankerParams {
  /** Candidates per side of the search (at least; more when a large `limit` asks for more). */
  depth: number;
  /** Memories per query term the word side reads (its cost is bounded by terms x this, whatever the user's size). */
  perTerm: number;
  /** Cosine at or below which a memory has no semantic evidence, and at or above which it has full evidence. */
  cosineFloor: number;
  cosineCeiling: number;
  /** Weight of semantic evidence; lexical coverage has the rest. */
  semanticWeight: number;
  /** Discount of a memory read together with the turn before it, and with the turn after it. */
  contextBefore: number;
  contextAfter: number;
  /** Extra weight of the context before when that turn asks a question (the memory is then likely its answer). */
  answerLift: number;
  /** Memories shorter than this many characters get a brevity discount of (length / brevityLength)^brevityExponent. */
  brevityLength: number;
  brevityExponent: number;
  /** Added to memories stored on the day (or in the month) that the query names. */
  dateBonus: number;
  /** Piecewise-linear map from the raw evidence to the calibrated score: (raw, score) knots, increasing. */
  calibration: readonly (readonly [number, number])[];
}

/**
 * Tuned with `npm run eval` on the LoCoMo dev split for the default model (USE-lite) and checked on held-out
 * conversations (README, "How recall ranks, and what the score means"). The cosine constants and the calibration belong to that model: another
 * model's cosines spread differently and need their own values.
 */
export const DEFAULT_RANKER_PARAMS: RankerParams = {
  // 150 scored as 200 on LoCoMo (one conversation = ~600 memories) but lost 0.017 of recall@10 at 100,000
  // memories in one user (npm run bench), where near-duplicates crowd the vector side: kept at 200.
  depth: 200,
  perTerm: 400,
  cosineFloor: 0.2,
  cosineCeiling: 0.6,
  semanticWeight: 0.4,
  contextBefore: 0.7,
  contextAfter: 0.5,
  answerLift: 0.3,
  brevityLength: 150,
  brevityExponent: 0.15,
  dateBonus: 0.2,
  calibration: [
    [0, 0],
    [0.42, 0.7],
    // Above the highest raw value possible ((1 + answerLift) x contextBefore + dateBonus), so that the map stays
    // strictly increasing and never flattens the order of strong matches.
    [1.25, 1],
  ],
};

/** What the ranker derives from one candidate before combining. */
interface Features {
  candidate: Candidate;
  stems: Set<string>;
  semantic: number;
  asks: boolean;
}

/** A turn that ends by asking something (closing quotes, brackets and spaces aside). */
export function isQuestion(text: string): boolean {
  return /\?["'\u201d\u2019)\]\s]*$/u.test(text);
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** Piecewise-linear interpolation through increasing knots, flat beyond the ends. */
export function piecewise(knots: readonly (readonly [number, number])[], x: number): number {
  const first = knots[0];
  const last = knots[knots.length - 1];
  if (first === undefined || last === undefined) return x;
  if (x <= first[0]) return first[1];
  for (let i = 1; i < knots.length; i++) {
    const [x1, y1] = knots[i] as readonly [number, number];
    const [x0, y0] = knots[i - 1] as readonly [number, number];
    if (x <= x1) return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return last[1];
}

/**
 * The recall ranker. Each candidate's score is an absolute measure of evidence, computed from the candidate and
 * the query alone (never normalised by the other candidates' scores), so that one threshold means the same thing
 * for every query and an unrelated question scores low everywhere:
 *
 * 1. semantic = clamp((cosine - cosineFloor) / (cosineCeiling - cosineFloor), 0, 1), with the query embedded
 *    without its question frame ("When did Jo move" -> "Jo move");
 * 2. lexical = idf-weighted coverage of the query's terms (Porter stems, stop words dropped) by the memory
 *    (see coverage.ts), in [0, 1];
 * 3. own = semanticWeight x semantic + (1 - semanticWeight) x lexical;
 * 4. conversations answer in pairs, so a memory is also read together with the turn stored just before it and the
 *    one just after it (when those are candidates too): context = the same formula with the higher semantic of the
 *    two and the coverage of both texts together, discounted by contextBefore (x (1 + answerLift) when the turn
 *    before asks a question) or contextAfter; evidence = max(own, context before, context after);
 * 5. raw = evidence x min(1, (length / brevityLength)^brevityExponent) (a short turn such as "Thanks!" rarely
 *    answers anything), + dateBonus when the query names a calendar day or month and the memory was stored then
 *    (give or take a day, for time zones);
 * 6. score = a fixed piecewise-linear map of raw to [0, 1] (the `calibration` knots: raw 0 -> 0, 0.42 -> 0.7,
 *    1.25 -> 1), placed so that unrelated questions (general-knowledge and how-to questions asked of a personal
 *    memory) almost never reach the default minScore 0.7 while most answerable ones do.
 *
 * The score is monotone in each kind of evidence, in [0, 1], and ties are broken newest first. The word search
 * only contributes candidates (no BM25 value: its scale grows with the query's length and depends on the corpus,
 * so no fixed threshold could apply to it).
 */
export class HybridRanker implements Ranker {
  readonly params: RankerParams;

  constructor(params: Partial<RankerParams> = {}) {
    this.params = { ...DEFAULT_RANKER_PARAMS, ...params };
  }

  plan(query: string, limit: number): QueryPlan {
    const k = Math.max(this.params.depth, limit * 2);
    return { embedText: stripQuestionFrame(query), terms: queryTerms(query), vectorK: k, textK: k, perTerm: Math.max(this.params.perTerm, k) };
  }

  rank(query: string, plan: QueryPlan, candidates: readonly Candidate[]): ScoredCandidate[] {
    const p = this.params;
    const stemmer = new Stemmer();
    const features: Features[] = candidates.map((candidate) => ({
      candidate,
      stems: stemmer.stems(candidate.memory.text),
      semantic: clamp01((candidate.cosine - p.cosineFloor) / (p.cosineCeiling - p.cosineFloor)),
      asks: isQuestion(candidate.memory.text),
    }));
    const byId = new Map(features.map((f) => [f.candidate.memory.id, f]));
    const weights = new TermWeights(
      plan.terms.map((t) => stemmer.stem(t)),
      features.map((f) => f.stems),
    );
    const span = dateSpanOf(query);
    const w = p.semanticWeight;
    const evidence = (semantic: number, coverage: number): number => w * semantic + (1 - w) * coverage;

    return features
      .map((f): ScoredCandidate => {
        let best = evidence(f.semantic, weights.coverage(f.stems));
        const before = f.candidate.prevId === null ? undefined : byId.get(f.candidate.prevId);
        if (before) {
          const lift = p.contextBefore * (before.asks ? 1 + p.answerLift : 1);
          best = Math.max(best, lift * evidence(Math.max(f.semantic, before.semantic), weights.coverage(f.stems, before.stems)));
        }
        const after = f.candidate.nextId === null ? undefined : byId.get(f.candidate.nextId);
        if (after) {
          best = Math.max(best, p.contextAfter * evidence(Math.max(f.semantic, after.semantic), weights.coverage(f.stems, after.stems)));
        }
        const brevity = Math.min(1, (f.candidate.memory.text.length / p.brevityLength) ** p.brevityExponent);
        const dated = span !== undefined && inSpan(f.candidate.memory.createdAt, span) ? p.dateBonus : 0;
        const raw = best * brevity + dated;
        return { candidate: f.candidate, score: clamp01(piecewise(p.calibration, raw)) };
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
