import { isCleanQuestion, said } from '../text/statements.js';
import type { ScoredCandidate, ScoreParts } from './types.js';

/**
 * How far a memory stands from the user's other memories for a typed message, as evidence of its own.
 *
 * The score map was fitted on clean questions (LoCoMo, LongMemEval, the people-facts sets: "What does Aiko do for a
 * living?"), where the words a question shares with its answer carry most of the evidence. What people type into a
 * chat ("whats mick do for a crust", "the dog's meds when do i give them") shares fewer words with the memory that
 * answers it, so the right memory often ranks first but scores 0.55-0.70: the map reads it as less sure than it is.
 * What does not depend on the wording is how far that memory stands above the same user's other memories. So, for a
 * typed message, with s1 and s2 the two best scores:
 *
 * - the first memory rises by its margin, as a second part's agreement lifts it: s1 + standing x (s1 - s2) x (1 - s1);
 * - every other memory falls by its distance below the first: s x (1 - standing x (s1 - s)), at least 0.
 *
 * The order never changes, and no score leaves [0, 1]. Nothing moves among fewer than STANDING_POOL memories. The
 * first memory does not rise where two tie first, nor where a rule already found it no answer (the kind of answer
 * asked is missing, it is about someone else, it meets the question through a name only, the question is about the
 * world, it is itself a question): the margin of a near miss is no evidence.
 *
 * Fitted on the read chat sets (the model's calibration: calibrations/use-lite.json). Clean questions keep the map as
 * fitted for them: at USE-lite's standing they would lose hits where several memories answer (LoCoMo turns 0.705 ->
 * 0.641, facts 0.740 -> 0.704) and people-facts its unanswerable questions answered with nothing (0.538 -> 0.462).
 */
export function withStanding(ranked: readonly ScoredCandidate[], standing: number): ScoredCandidate[] {
  const moved = standingScores(
    ranked.map((s) => s.score),
    noAnswer(ranked[0]?.parts),
    standing,
  );
  return ranked.map((s, i) => {
    const score = moved[i] ?? s.score;
    if (score === s.score) return s;
    return { ...s, score, ...(s.parts ? { parts: { ...s.parts, standing: Math.round((score - s.score) * 10_000) / 10_000 } } : {}) };
  });
}

/** The largest standing a calibration may hold (and the calibration fit tries). */
export const MAX_STANDING = 3;

/**
 * The fewest memories ranked for standing to say anything. Among a handful, whatever ranks first stands far above the
 * rest (a new user's four memories, stored in one go: "when is my dentist appointment" lifted "User works as a
 * nurse." 0.42 -> 0.62); the chat sets' people have 14 to 22 memories (chat-check-21: 14), so no measured figure depends on it.
 */
export const STANDING_POOL = 10;

/**
 * The arithmetic of withStanding over scores sorted best first (the calibration fits `standing` with it): the first
 * rises by its margin unless `firstIsNoAnswer`, the rest fall by their distance below it.
 */
export function standingScores(scores: readonly number[], firstIsNoAnswer: boolean, standing: number): number[] {
  const top = scores[0];
  if (standing <= 0 || top === undefined || scores.length < STANDING_POOL) return [...scores];
  // A tie: no margin.
  const second = scores[1] ?? top;
  const lift = firstIsNoAnswer ? 0 : standing * (top - second) * (1 - top);
  return scores.map((score) => (score === top ? Math.min(1, top + lift) : score * Math.max(0, 1 - standing * (top - score))));
}

/**
 * Whether a message's scores move by their standing: it asks or states something (a message of small talk only,
 * "diolch cariad, that's me sorted", needs no memory: the one that stands out is merely the nearest), typed as people
 * type it: not one clean question, alone or between greetings and thanks ("hi there! Does Marta have any kids?
 * Thanks!" asks what the clean question asks, and is scored as it is).
 */
export function standsOut(message: string): boolean {
  const asked = said(message, 2);
  return asked.length > 1 || (asked.length === 1 && !isCleanQuestion(asked[0]?.text ?? ''));
}

/** A rule of the ranker judged the memory no answer to the question (hybrid-ranker.ts discounts). */
export function noAnswer(parts: ScoreParts | undefined): boolean {
  if (parts === undefined) return false;
  return parts.answer === 0 || NEAR_MISS_DISCOUNTS.some((discount) => parts[discount] !== undefined);
}

/** The parts that a discount for a near miss sets (hybrid-ranker.ts); `answer` is 0 or 1, and 0 is the discount. */
const NEAR_MISS_DISCOUNTS = ['nameOnly', 'otherPerson', 'otherRelative', 'general', 'question', 'nameMemory'] as const satisfies readonly (keyof ScoreParts)[];
