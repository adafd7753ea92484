import { describe, expect, it } from 'vitest';
import { calibrationLanguages } from '../../../src/core/calibration/calibrate.js';
import {
  auc,
  cosineRange,
  decideLanguages,
  fitStanding,
  fitThreshold,
  knotsFor,
  meanAuc,
  setBalance,
  STANDING_GRID,
  typedBalance,
  type SetOutcome,
  type TypedSet,
} from '../../../src/core/calibration/fit.js';
import { modelCalibrationSchema } from '../../../src/core/ranking/calibration.js';

/** A deterministic spread of n values from lo to hi. */
const spread = (n: number, lo: number, hi: number): number[] => Array.from({ length: n }, (_, i) => lo + ((hi - lo) * i) / Math.max(1, n - 1));

/** A fact set whose right memories score from goldLo to goldHi and wrong ones and unanswerable questions below wrongHi. */
function outcome(goldLo: number, goldHi: number, wrongHi: number, exhaustive = true): SetOutcome {
  const golds = spread(40, goldLo, goldHi);
  const wrongs = spread(40, 0.05, wrongHi);
  return {
    answerable: golds.map((g, i) => [
      { raw: g, gold: true },
      { raw: wrongs[i] as number, gold: false },
    ]),
    unanswerable: spread(20, 0.05, wrongHi),
    offTopic: spread(30, 0, wrongHi / 2),
    exhaustive,
  };
}

describe('auc', () => {
  it('is 1 when every right cosine beats every wrong one, 0 reversed, 0.5 for ties', () => {
    expect(auc([0.9, 0.8], [0.1, 0.2, 0.3])).toBe(1);
    expect(auc([0.1], [0.5, 0.6])).toBe(0);
    expect(auc([0.5], [0.5])).toBe(0.5);
    expect(auc([0.6, 0.2], [0.4])).toBe(0.5);
  });

  it('is undefined without both kinds, and a question without them does not count in the mean', () => {
    expect(auc([], [0.1])).toBeUndefined();
    expect(auc([0.1], [])).toBeUndefined();
    expect(meanAuc([])).toBeUndefined();
    expect(meanAuc([{ positives: [0.9], negatives: [0.1] }, { positives: [0.1], negatives: [0.9] }, { positives: [0.5], negatives: [] }])).toBe(0.5);
  });
});

describe('decideLanguages', () => {
  it('reads a language by the model where its AUC reaches the threshold, by words below it', () => {
    const d = decideLanguages(new Map([['en', 0.93], ['de', 0.75], ['zh', 0.51]]), ['en', 'de', 'zh'], 0.8);
    expect(Object.fromEntries(d)).toEqual({ en: true, de: false, zh: false });
    expect(decideLanguages(new Map([['de', 0.8]]), ['de'], 0.8).get('de')).toBe(true);
  });

  it('gives a language with no set the majority of the measured foreign languages (English: the model)', () => {
    const multilingual = new Map<string, number | undefined>([['en', 0.95], ['de', 0.9], ['fr', 0.88], ['zh', 0.7], ['ja', undefined]]);
    expect(decideLanguages(multilingual, ['ja'], 0.8).get('ja')).toBe(true);
    const english = new Map<string, number | undefined>([['en', 0.95], ['de', 0.7], ['fr', 0.6], ['ja', undefined]]);
    expect(decideLanguages(english, ['ja'], 0.8).get('ja')).toBe(false);
    expect(decideLanguages(new Map([['de', 0.7]]), ['en'], 0.8).get('en')).toBe(true);
  });
});

describe('calibrationLanguages', () => {
  it('is "*" when every measured language is understood', () => {
    expect(calibrationLanguages(['en', 'de', 'zh'], [])).toEqual(['*']);
    // English alone says nothing of other languages.
    expect(calibrationLanguages(['en'], [])).toEqual(['en']);
  });

  it('lists the understood ones for a model that understands few', () => {
    expect(calibrationLanguages(['en'], ['de', 'zh', 'ja'])).toEqual(['en']);
  });

  it('takes a mostly multilingual model as understanding the unmeasured languages too, but not the failed ones', () => {
    const list = calibrationLanguages(['en', 'de', 'fr', 'es'], ['zh']);
    expect(list).toContain('it');
    expect(list).toContain('de');
    expect(list).not.toContain('zh');
    expect(list).not.toContain('und');
  });

  it('keeps English nominally for a model that separates nowhere (the schema needs one)', () => {
    expect(calibrationLanguages([], ['en', 'de'])).toEqual(['en']);
  });
});

describe('cosineRange', () => {
  it('puts the floor at the 80th percentile of unrelated pairs and the ceiling at the 75th of right ones', () => {
    const r = cosineRange(spread(101, 0, 0.5), spread(101, 0.4, 0.8));
    expect(r.cosineFloor).toBeCloseTo(0.4, 3);
    expect(r.cosineCeiling).toBeCloseTo(0.7, 3);
  });

  it('keeps the ceiling at least 0.1 above the floor when right and unrelated pairs overlap', () => {
    const r = cosineRange(spread(11, 0.5, 0.9), spread(11, 0.3, 0.6));
    expect(r.cosineCeiling).toBeCloseTo(r.cosineFloor + 0.1, 3);
  });
});

describe('fitThreshold', () => {
  it('puts 0.7 between what answers and what does not', () => {
    const fit = fitThreshold([outcome(0.6, 0.9, 0.3), outcome(0.55, 0.85, 0.35)]);
    expect(fit).toBeDefined();
    expect(fit?.knot).toBeGreaterThan(0.3);
    expect(fit?.knot).toBeLessThanOrEqual(0.6);
    expect(fit?.balance).toBeGreaterThan(0.95);
  });

  it('moves with the model: evidence on a higher scale gets a higher knot', () => {
    const low = fitThreshold([outcome(0.4, 0.6, 0.2)]);
    const high = fitThreshold([outcome(0.9, 1.2, 0.6)]);
    expect((high?.knot ?? 0) - (low?.knot ?? 0)).toBeGreaterThan(0.3);
  });

  it('is undefined without sets', () => {
    expect(fitThreshold([])).toBeUndefined();
  });

  it("weighs a set's hits as much as its rejections", () => {
    const set = outcome(0.6, 0.9, 0.3);
    expect(setBalance(set, 0.45)).toBe(1);
    // At 0: every right memory returned, but every unanswerable and off-topic question answered: half.
    expect(setBalance(set, 0)).toBeCloseTo(0.5 + 0.5 * ((0.5 + 0 + 0) / 3), 3);
  });

  it('leaves out a rejection rate measured on fewer than 10 questions (one of 4 would move it by a quarter)', () => {
    const set = { ...outcome(0.6, 0.9, 0.3), unanswerable: [0.5, 0.5, 0.1, 0.1] };
    // At 0.45 two of the 4 unanswerable questions get an answer: that must not weigh as much as all hits.
    expect(setBalance(set, 0.45)).toBe(1);
    expect(setBalance({ ...set, unanswerable: [...set.unanswerable, ...spread(6, 0.05, 0.1)] }, 0.45)).toBeCloseTo(0.5 + 0.5 * ((1 + 0.8 + 1) / 3), 3);
  });
});

describe('knotsFor', () => {
  it('makes a map the calibration schema accepts, through 0.7 at the knot', () => {
    const knots = knotsFor(0.405);
    expect(knots).toEqual([
      [0, 0],
      [0.405, 0.7],
      [1.25, 1],
    ]);
    expect(knotsFor(0.7)[2]).toEqual([1.75, 1]);
    const parsed = modelCalibrationSchema.safeParse({ model: 'm', cosineFloor: 0.2, cosineCeiling: 0.6, knots });
    expect(parsed.success).toBe(true);
  });
});

describe('fitStanding', () => {
  // The right memory first at 0.62, far ahead of the next (0.3); a message nothing answers, its first barely ahead;
  // and one nothing answers whose first (0.5) stands well ahead of the next (0.2): it rises past 0.7 from 1.5 on.
  // Each ranked over a person's 10 memories, the rest far below (standing needs STANDING_POOL of them).
  const rest = Array.from({ length: 8 }, () => ({ score: 0.05, gold: false }));
  const typed = (firstIsNoAnswer = false): TypedSet => ({
    exhaustive: true,
    messages: [
      ...Array.from({ length: 10 }, () => ({ ranked: [{ score: 0.62, gold: true }, { score: 0.3, gold: false }, ...rest], firstIsNoAnswer, answerable: true })),
      ...Array.from({ length: 10 }, () => ({ ranked: [{ score: 0.6, gold: false }, { score: 0.58, gold: false }, ...rest], firstIsNoAnswer: false, answerable: false })),
      ...Array.from({ length: 10 }, () => ({ ranked: [{ score: 0.5, gold: false }, { score: 0.2, gold: false }, ...rest], firstIsNoAnswer: false, answerable: false })),
    ],
  });

  it('measures the typed messages as setBalance does: hit, and the share right and empty', () => {
    expect(typedBalance(typed(), 0)).toBe(0.5);
    // 0.62 + 0.75 x 0.32 x 0.38 = 0.711: every right memory returned, nothing else, every unanswerable one empty.
    expect(typedBalance(typed(), 0.75)).toBe(1);
  });

  it('takes the middle of the standings within 0.005 of the best balance, as the knot is the middle of its plateau', () => {
    // 1 from 0.75 to 1.25; from 1.5 the near miss 0.5 rises to 0.5 + 1.5 x 0.3 x 0.5 = 0.725 and is returned.
    expect(STANDING_GRID.map((s) => typedBalance(typed(), s))).toEqual([0.5, 0.5, 0.5, 1, 1, 1, 0.875, 0.875, 0.875, 0.875, 0.875, 0.875, 0.875]);
    expect(fitStanding([typed()])).toEqual({ standing: 1, balance: 1, without: 0.5 });
    expect(STANDING_GRID[0]).toBe(0);
    expect(STANDING_GRID.at(-1)).toBe(3);
  });

  it('tries only standings a calibration may hold, and the schema refuses more or less', () => {
    const calibration = (standing: unknown) => modelCalibrationSchema.safeParse({ model: 'm', cosineFloor: 0.2, cosineCeiling: 0.6, knots: knotsFor(0.4), standing });
    for (const standing of STANDING_GRID) expect(calibration(standing).success).toBe(true);
    for (const standing of [-0.25, 3.25, '1', Number.NaN]) expect(calibration(standing).success).toBe(false);
  });

  it('keeps 0 where standing gains nothing (a near miss does not rise), and decides nothing without enough messages', () => {
    expect(fitStanding([typed(true)])?.standing).toBe(0);
    expect(fitStanding([{ exhaustive: true, messages: typed().messages.slice(0, 9) }])).toBeUndefined();
    expect(fitStanding([])).toBeUndefined();
  });
});
