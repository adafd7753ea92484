/**
 * Fitting a model's score map from labelled outcomes: pure arithmetic over numbers the caller measured
 * (calibrate.ts embeds and ranks; this file only decides). Four decisions:
 *
 * - the cosine range that counts as semantic evidence: its floor the 80th percentile of the cosines between
 *   off-topic questions and memories (below it a cosine says nothing), its ceiling the 75th percentile of the
 *   cosines between answerable questions and their right memories;
 * - per language, whether the model separates right from wrong memories at all: the mean over questions of the
 *   AUC of the right memories' cosines against the other memories of the same person. Where it does not (USE-lite
 *   outside English), the words carry the evidence (the words path of the ranker, whose map does not depend on
 *   the model);
 * - the raw evidence that maps to the default threshold 0.7: the one that best balances returning what answers
 *   against returning nothing else, every set weighing the same (as tools/calibration/fit.ts did by hand for
 *   USE-lite's built-in calibration);
 * - how much a memory's standing among the user's other memories moves the score of a message typed as people type
 *   it (ranking/standing.ts): the smallest standing whose balance on those messages is within 0.005 of the best.
 */

import { MAX_STANDING, standingScores } from '../ranking/standing.js';

/** What recall returned for one labelled set at minScore 0, as raw evidence (the ranker's input to the map). */
export interface SetOutcome {
  /** Each answerable question's top 5: raw evidence, and whether the memory is a right one. */
  answerable: { raw: number; gold: boolean }[][];
  /** The top raw evidence of each question nothing answers (0 when nothing came back). */
  unanswerable: number[];
  /** The top raw evidence of each off-topic question. */
  offTopic: number[];
  /** Its labels list every right memory, so the share of returned that is right can be measured. */
  exhaustive: boolean;
}

/** Below this mean AUC a language is read by its words: the model does not tell a right memory from a wrong one. */
export const SEPARATES_AUC = 0.8;

export const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1))))] as number;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Probability that a right memory's cosine exceeds a wrong one's (ties count half): 1 separates perfectly,
 * 0.5 is chance. Undefined without both kinds.
 */
export function auc(positives: readonly number[], negatives: readonly number[]): number | undefined {
  if (positives.length === 0 || negatives.length === 0) return undefined;
  let wins = 0;
  for (const p of positives) for (const n of negatives) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (positives.length * negatives.length);
}

/** The mean over questions of each question's AUC (a question with no wrong or no right memory counts for nothing). */
export function meanAuc(questions: readonly { positives: readonly number[]; negatives: readonly number[] }[]): number | undefined {
  const values = questions.map((q) => auc(q.positives, q.negatives)).filter((a): a is number => a !== undefined);
  return values.length === 0 ? undefined : mean(values);
}

/**
 * Which languages the model understands, from each measured language's AUC. A language with no labelled set
 * (say the evaluation excluded it) takes the majority decision of the other languages but English, so a
 * multilingual model stays multilingual: models separate in most languages or in one.
 */
export function decideLanguages(
  aucByLanguage: ReadonlyMap<string, number | undefined>,
  wanted: readonly string[],
  threshold = SEPARATES_AUC,
): Map<string, boolean> {
  const measured = [...aucByLanguage].filter((e): e is [string, number] => e[1] !== undefined);
  const foreign = measured.filter(([l]) => l !== 'en');
  const majority = foreign.length > 0 && foreign.filter(([, a]) => a >= threshold).length * 2 > foreign.length;
  const decisions = new Map<string, boolean>();
  for (const language of wanted) {
    const a = aucByLanguage.get(language);
    decisions.set(language, a === undefined ? (language === 'en' ? true : majority) : a >= threshold);
  }
  return decisions;
}

/**
 * The percentile of off-topic pairs' cosines that is the floor. The 90th (the hand fit's, whose pool also held
 * the cosines of unanswerable questions to their person's memories and LoCoMo's short turns) put USE-lite's floor
 * at 0.24 to 0.25 from the shipped sets, against 0.197 hand-fitted, so cosines of 0.2 to 0.25 that tell a right
 * memory from the person's other ones counted for nothing (people-facts-3 held out: precision 0.467 against 0.546
 * built in). The 80th puts it at 0.17 to 0.18.
 */
export const FLOOR_QUANTILE = 0.8;

/** The cosine range: floor at p80 of unrelated pairs, ceiling at p75 of right pairs, at least 0.1 above the floor. */
export function cosineRange(unrelated: readonly number[], gold: readonly number[]): { cosineFloor: number; cosineCeiling: number } {
  const cosineFloor = round3(quantile(unrelated, FLOOR_QUANTILE));
  return { cosineFloor, cosineCeiling: round3(Math.max(cosineFloor + 0.1, quantile(gold, 0.75))) };
}

/**
 * The fewest questions a rejection rate is measured on before it counts. LongMemEval's 4 unanswerable questions
 * made a quarter of the dialogue set's rejection side each: its balance jumped by 0.06 where one of them fell
 * below the threshold, and that step, not the many answerable questions, placed USE-lite's knot (raw 0.535 with
 * people-facts held out, 0.405 built in).
 */
export const MIN_RATE_QUESTIONS = 10;

/**
 * A set's balance at the defaults (limit 5) if the 0.7 knot sits at raw `t`: the mean of its hit rate and of the
 * rejection rates it can measure on at least MIN_RATE_QUESTIONS questions (unanswerable and off-topic questions
 * answered with nothing, and on exhaustive sets the share of returned memories that are right).
 */
export function setBalance(set: SetOutcome, t: number): number {
  const hits: number[] = [];
  const rates: number[] = [];
  if (set.answerable.length > 0) {
    hits.push(set.answerable.filter((top) => top.some((h) => h.gold && h.raw >= t)).length / set.answerable.length);
    if (set.exhaustive) {
      const returned = set.answerable.flatMap((top) => top.filter((h) => h.raw >= t));
      if (returned.length > 0) rates.push(returned.filter((h) => h.gold).length / returned.length);
    }
  }
  if (set.unanswerable.length >= MIN_RATE_QUESTIONS) rates.push(set.unanswerable.filter((r) => r < t).length / set.unanswerable.length);
  if (set.offTopic.length >= MIN_RATE_QUESTIONS) rates.push(set.offTopic.filter((r) => r < t).length / set.offTopic.length);
  return mean([...hits, ...(rates.length > 0 ? [mean(rates)] : [])]);
}

export interface ThresholdFit {
  /** The raw evidence mapped to 0.7. */
  knot: number;
  /** The mean balance over sets there. */
  balance: number;
  /** The plateau (balance within 0.005 of its best) the knot is the middle of. */
  from: number;
  to: number;
}

/**
 * The raw evidence for 0.7: the balance over sets is flat near its top (a few unanswerable questions move its best
 * point), so the middle of the thresholds within 0.005 of the best is taken, not the edge. Undefined without sets.
 */
export function fitThreshold(sets: readonly SetOutcome[]): ThresholdFit | undefined {
  if (sets.length === 0) return undefined;
  const curve: { t: number; value: number }[] = [];
  for (let i = 10; i <= 300; i++) {
    const t = i * 0.005;
    curve.push({ t, value: mean(sets.map((set) => setBalance(set, t))) });
  }
  const top = Math.max(...curve.map((c) => c.value));
  const near = curve.filter((c) => c.value >= top - 0.005);
  const middle = mean(near.map((c) => c.t));
  const best = near.reduce((a, c) => (Math.abs(c.t - middle) < Math.abs(a.t - middle) ? c : a));
  return { knot: round3(best.t), balance: best.value, from: round3(near[0]?.t ?? best.t), to: round3(near[near.length - 1]?.t ?? best.t) };
}

/** The score map through 0.7 at `knot`: (0, 0), (knot, 0.7), (max(2.5 knot, 1.25), 1), as USE-lite's built-in one. */
export function knotsFor(knot: number): [number, number][] {
  return [
    [0, 0],
    [knot, 0.7],
    [round3(Math.max(knot * 2.5, 1.25)), 1],
  ];
}

/** One message typed as people type it (ranking/standing.ts standsOut), ranked with the fitted map, at minScore 0. */
export interface TypedMessage {
  /** Its scores best first (every candidate, since the second best decides the first's margin), and which are right. */
  ranked: { score: number; gold: boolean }[];
  /** A rule of the ranker found the first memory no answer: it does not rise. */
  firstIsNoAnswer: boolean;
  /** Something answers it (else it should get nothing). */
  answerable: boolean;
}

/** One set's typed messages, and whether its labels list every right memory. */
export interface TypedSet {
  messages: TypedMessage[];
  exhaustive: boolean;
}

/** The standings tried: 0 to MAX_STANDING by 0.25. */
export const STANDING_GRID: readonly number[] = Array.from({ length: MAX_STANDING * 4 + 1 }, (_, i) => i * 0.25);

/**
 * A set's balance at the defaults (limit 5, 0.7) for its typed messages with `standing`: setBalance over the moved
 * scores, whose threshold is 0.7 itself (they are scores already, past the map).
 */
export function typedBalance(set: TypedSet, standing: number): number {
  const moved = set.messages.map((m) => {
    const scores = standingScores(
      m.ranked.map((r) => r.score),
      m.firstIsNoAnswer,
      standing,
    );
    return { answerable: m.answerable, top: m.ranked.slice(0, 5).map((r, i) => ({ raw: scores[i] ?? 0, gold: r.gold })) };
  });
  return setBalance(
    {
      answerable: moved.filter((m) => m.answerable).map((m) => m.top),
      unanswerable: moved.filter((m) => !m.answerable).map((m) => m.top[0]?.raw ?? 0),
      offTopic: [],
      exhaustive: set.exhaustive,
    },
    0.7,
  );
}

export interface StandingFit {
  standing: number;
  /** The mean balance over sets there, and at 0. */
  balance: number;
  without: number;
}

/**
 * The standing for typed messages: the middle of the standings whose mean balance over sets (every set with at least
 * MIN_RATE_QUESTIONS answerable typed messages weighing the same) is within 0.005 of the best, as fitThreshold takes
 * the middle of the knot's plateau, not its edge. The balance rises, then is flat: where it is flat, a larger standing
 * returns more right memories and fewer wrong ones beside them, and gives more to messages that need nothing. On
 * USE-lite through the whole pipeline (the read chat sets): plateau 1 to 3, middle 2; at 1, the edge this fit took
 * before, the unread chat sets got a right memory for 0.748 of the messages that need one, at 2 for 0.770, with fewer
 * wrong memories returned in all (106 either way over 540 messages; 234 -> 223 on the read sets). A plateau that
 * holds 0 means standing gains nothing: it stays 0. Undefined without such sets.
 */
export function fitStanding(sets: readonly TypedSet[]): StandingFit | undefined {
  const measured = sets.filter((s) => s.messages.filter((m) => m.answerable).length >= MIN_RATE_QUESTIONS);
  if (measured.length === 0) return undefined;
  const curve = STANDING_GRID.map((standing) => ({ standing, value: mean(measured.map((set) => typedBalance(set, standing))) }));
  const top = Math.max(...curve.map((c) => c.value));
  // The best is on the curve, so the plateau holds at least it. Where it holds 0, standing gains nothing: it stays off.
  const near = curve.filter((c) => c.value >= top - 0.005);
  if (near[0]?.standing === 0) return { standing: 0, balance: near[0].value, without: near[0].value };
  const middle = mean(near.map((c) => c.standing));
  const chosen = near.reduce((a, c) => (Math.abs(c.standing - middle) < Math.abs(a.standing - middle) ? c : a));
  return { standing: chosen.standing, balance: chosen.value, without: curve[0]?.value ?? 0 };
}
