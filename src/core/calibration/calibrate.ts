/**
 * Calibrating a model by itself: embeds the labelled sets (labelled-sets.ts) with the model, ranks every question
 * over its person's memories with the real ranker, and hands the measured numbers to the fitting (fit.ts). Only
 * the Embedder interface is used, so any model the runtime builds (USE-lite, transformers.js, an endpoint) is
 * calibrated the same way; what comes out is a ModelCalibration the ranker takes, plus a report per language.
 *
 * Each question is ranked over all of its person's memories as candidates (the sets hold fewer memories per person
 * than the ranker's search depth, so a store would hand it the same ones), in stored order for the turns beside
 * each memory: no database is needed.
 */
import type { Embedder } from '../embedder.js';
import type { ModelCalibration } from '../ranking/calibration.js';
import { DEFAULT_CALIBRATION } from '../ranking/calibration.js';
import { HybridRanker, paramsFor } from '../ranking/hybrid-ranker.js';
import { noAnswer, standsOut } from '../ranking/standing.js';
import type { Candidate } from '../store.js';
import { isLanguage, LANGUAGES } from '../text/languages.js';
import type { App, MemoryRecord } from '../types.js';
import { dot } from '../vector.js';
import { cosineRange, decideLanguages, fitStanding, fitThreshold, knotsFor, meanAuc, SEPARATES_AUC, type SetOutcome, type TypedMessage, type TypedSet } from './fit.js';
import type { CalibrationData, LabelledSet } from './labelled-sets.js';

/** One row of the report: a language's verdict. */
export interface LanguageReport {
  language: string;
  /** Texts embedded for it (memories and questions; English counts the off-topic questions too). */
  texts: number;
  /** Mean per-question AUC of the cosine (undefined: no set of this language was used). */
  auc: number | undefined;
  /** 'semantic': the model's cosine counts; 'words': the words carry the evidence. */
  path: 'semantic' | 'words';
  /** The score map that language's recalls use, as (raw, score) knots. */
  knots: readonly (readonly [number, number])[];
  /** Milliseconds spent embedding its texts. */
  ms: number;
}

export interface CalibrationRun {
  calibration: ModelCalibration;
  languages: LanguageReport[];
  /** Every text embedded. */
  texts: number;
  ms: number;
}

export interface CalibrateOptions {
  /** Texts per embedding call. */
  batch?: number;
  onProgress?: (message: string) => void;
  /** The AUC below which a language is read by its words. */
  threshold?: number;
  now?: () => Date;
}

const APP: App = { id: '00000000-0000-4000-8000-000000000000', slug: 'calibration', createdAt: '1970-01-01T00:00:00.000Z' };

interface EmbeddedSet {
  set: LabelledSet;
  vectors: Map<string, Float32Array>;
  /** Each question's vector (of the ranker's embed text), in order. */
  questions: Float32Array[];
  byUser: Map<string, Candidate[]>;
  ms: number;
}

async function embedAll(embedder: Embedder, texts: readonly string[], kind: 'query' | 'document', batch: number): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += batch) {
    const vectors = await embedder.embed(texts.slice(i, i + batch), kind);
    if (vectors.length !== Math.min(batch, texts.length - i)) throw new Error(`The model returned ${vectors.length} vectors for ${Math.min(batch, texts.length - i)} texts.`);
    out.push(...vectors);
  }
  return out;
}

function memoryRecord(m: LabelledSet['memories'][number]): MemoryRecord {
  const createdAt = new Date(m.createdAt).toISOString();
  return { id: m.id, uuid: m.id, userId: m.userId, app: APP, text: m.text, metadata: {}, createdAt, updatedAt: createdAt, expiresAt: null };
}

async function embedSet(embedder: Embedder, set: LabelledSet, planner: HybridRanker, batch: number): Promise<EmbeddedSet> {
  const started = Date.now();
  const memoryVectors = await embedAll(embedder, set.memories.map((m) => m.text), 'document', batch);
  const vectors = new Map(set.memories.map((m, i) => [m.id, memoryVectors[i] as Float32Array]));
  const questions = await embedAll(embedder, set.queries.map((q) => planner.plan(q.query, 5).embedText), 'query', batch);
  // Stored order, per person: the turns before and after each memory.
  const order = new Map<string, LabelledSet['memories']>();
  for (const m of set.memories) order.set(m.userId, [...(order.get(m.userId) ?? []), m]);
  const byUser = new Map<string, Candidate[]>();
  for (const [userId, memories] of order) {
    byUser.set(
      userId,
      memories.map((m, i) => ({ memory: memoryRecord(m), cosine: 0, prevId: memories[i - 1]?.id ?? null, nextId: memories[i + 1]?.id ?? null })),
    );
  }
  return { set, vectors, questions, byUser, ms: Date.now() - started };
}

/** The person's memories as candidates of a question, with their cosines to it. */
function candidatesFor(e: EmbeddedSet, userId: string, question: Float32Array): Candidate[] {
  return (e.byUser.get(userId) ?? []).map((c) => ({ ...c, cosine: dot(question, e.vectors.get(c.memory.id) as Float32Array) }));
}

export async function calibrateModel(embedder: Embedder, data: CalibrationData, options: CalibrateOptions = {}): Promise<CalibrationRun> {
  const started = Date.now();
  const batch = options.batch ?? 32;
  const info = await embedder.ready();
  const planner = new HybridRanker();
  const embedded: EmbeddedSet[] = [];
  for (const set of data.sets) {
    options.onProgress?.(`${set.name}: embedding ${set.memories.length} memories and ${set.queries.length} questions`);
    embedded.push(await embedSet(embedder, set, planner, batch));
  }
  const offStarted = Date.now();
  const offTopic = await embedAll(embedder, data.offTopic, 'query', batch);
  const offTopicMs = Date.now() - offStarted;

  // Per language: each answerable question's right and wrong cosines (AUC), the cosines of right pairs, and of
  // unrelated pairs (off-topic questions and the memories of the first three people of each set).
  const separation = new Map<string, { positives: number[]; negatives: number[] }[]>();
  const unrelated = new Map<string, number[]>();
  const gold = new Map<string, number[]>();
  const push = <T>(map: Map<string, T[]>, key: string, ...values: T[]): void => {
    map.set(key, [...(map.get(key) ?? []), ...values]);
  };
  for (const e of embedded) {
    const language = e.set.language;
    e.set.queries.forEach((q, i) => {
      const candidates = candidatesFor(e, q.userId, e.questions[i] as Float32Array);
      if (q.gold.length > 0) {
        const right = candidates.filter((c) => q.gold.includes(c.memory.id)).map((c) => c.cosine);
        push(gold, language, ...right);
        push(separation, language, { positives: right, negatives: candidates.filter((c) => !q.gold.includes(c.memory.id)).map((c) => c.cosine) });
      }
      // Unanswerable questions about a known person are left out of the floor: USE-lite scores every fact about a
      // person high for a question naming them (p90 0.51 on people-facts), which says the topic, not nothing. The
      // balance below keeps them answered with nothing.
    });
    for (const userId of [...e.byUser.keys()].slice(0, 3)) {
      for (const v of offTopic) push(unrelated, language, ...candidatesFor(e, userId, v).map((c) => c.cosine));
    }
  }

  const measured = [...new Set(embedded.map((e) => e.set.language))];
  const aucs = new Map(measured.map((l) => [l, meanAuc(separation.get(l) ?? [])]));
  const decisions = decideLanguages(aucs, measured, options.threshold ?? SEPARATES_AUC);
  const understood = measured.filter((l) => decisions.get(l) === true);
  const notUnderstood = measured.filter((l) => decisions.get(l) !== true);
  const languages = calibrationLanguages(understood, notUnderstood);

  // The cosine range and the 0.7 knot, from the languages the model understands (the others are read by words).
  const semanticSets = embedded.filter((e) => understood.includes(e.set.language));
  const range = cosineRange(
    understood.flatMap((l) => unrelated.get(l) ?? []),
    understood.flatMap((l) => gold.get(l) ?? []),
  );
  let knots: [number, number][] = DEFAULT_CALIBRATION.knots.map(([x, y]) => [x, y]);
  if (semanticSets.length > 0) {
    // Raw evidence with an identity map, so that the score is the raw value itself.
    const ranker = new HybridRanker(paramsFor({ model: info.model, ...range, knots: [[0, 0], [10, 10]], languages: languages }));
    const questions = data.offTopic.map((text, i) => ({ text, vector: offTopic[i] as Float32Array }));
    const outcomes: SetOutcome[] = semanticSets.map((e) => outcomeOf(e, ranker, questions));
    const fit = fitThreshold(outcomes);
    if (fit !== undefined) {
      knots = knotsFor(fit.knot);
      options.onProgress?.(
        `balance within 0.005 of its best from raw ${fit.from} to ${fit.to}: ${fit.knot} -> 0.7 (mean balance ${fit.balance.toFixed(3)}); cosine floor ${range.cosineFloor}, ceiling ${range.cosineCeiling}`,
      );
    }
  }
  // Standing, for messages typed as people type them (ranking/standing.ts): ranked with the map just fitted.
  let standing: number | undefined;
  if (semanticSets.length > 0) {
    const ranker = new HybridRanker(paramsFor({ model: info.model, ...range, knots, languages, standing: 0 }));
    const fit = fitStanding(semanticSets.map((e) => typedOutcomes(e, ranker)));
    if (fit !== undefined) {
      standing = fit.standing;
      options.onProgress?.(`standing for typed messages: ${fit.standing} (their balance ${fit.without.toFixed(3)} at 0, ${fit.balance.toFixed(3)} there)`);
    }
  }
  const foreignKnots = (DEFAULT_CALIBRATION.foreignKnots ?? DEFAULT_CALIBRATION.knots).map(([x, y]): [number, number] => [x, y]);
  const now = (options.now ?? (() => new Date()))();
  const calibration: ModelCalibration = {
    model: info.model,
    ...(semanticSets.length > 0 ? range : { cosineFloor: DEFAULT_CALIBRATION.cosineFloor, cosineCeiling: DEFAULT_CALIBRATION.cosineCeiling }),
    knots,
    ...(standing === undefined ? {} : { standing }),
    languages,
    foreignKnots,
    fittedOn: `agent-memory calibrate: ${data.sets.map((s) => `${s.name} (${s.queries.length} questions)`).join(', ')} + ${data.offTopic.length} off-topic questions`,
    fittedAt: now.toISOString(),
  };
  const report: LanguageReport[] = measured.map((language) => {
    const sets = embedded.filter((e) => e.set.language === language);
    const semantic = decisions.get(language) === true;
    return {
      language,
      texts: sets.reduce((n, e) => n + e.set.memories.length + e.set.queries.length, language === 'en' ? data.offTopic.length : 0),
      auc: aucs.get(language),
      path: semantic ? 'semantic' : 'words',
      knots: semantic ? knots : foreignKnots,
      ms: sets.reduce((n, e) => n + e.ms, language === 'en' ? offTopicMs : 0),
    };
  });
  const texts = embedded.reduce((n, e) => n + e.set.memories.length + e.set.queries.length, data.offTopic.length);
  return { calibration, languages: report, texts, ms: Date.now() - started };
}

/**
 * The calibration's `languages`: "*" when the model understands every measured language (some foreign); else the understood ones
 * and, when most measured foreign languages are understood, every other language the word side knows but the
 * failed ones (a model multilingual enough for most is taken as multilingual for the unmeasured ones too).
 */
export function calibrationLanguages(understood: readonly string[], notUnderstood: readonly string[]): string[] {
  // Multilingual only on evidence: English alone understood says nothing of other languages.
  if (notUnderstood.length === 0 && understood.some((l) => l !== 'en')) return ['*'];
  const foreign = understood.filter((l) => l !== 'en');
  const foreignFailed = notUnderstood.filter((l) => l !== 'en');
  const broad = foreign.length > foreignFailed.length;
  const list = broad ? LANGUAGES.filter((l) => l !== 'und' && !notUnderstood.includes(l)) : understood.filter(isLanguage);
  // The schema needs at least one; a model that separates nowhere keeps English nominally (its sets decide nothing then).
  return list.length > 0 ? [...list] : ['en'];
}

/** A set's outcomes at minScore 0 and limit 5 with an identity map: raw evidence per returned memory. */
function outcomeOf(e: EmbeddedSet, ranker: HybridRanker, offTopic: readonly { text: string; vector: Float32Array }[]): SetOutcome {
  const answerable: SetOutcome['answerable'] = [];
  const unanswerable: number[] = [];
  const rank = (userId: string, query: string, vector: Float32Array): { id: string; raw: number }[] => {
    const plan = ranker.plan(query, 5);
    return ranker
      .rank(query, plan, candidatesFor(e, userId, vector))
      .slice(0, 5)
      .map((s) => ({ id: s.candidate.memory.id, raw: s.parts?.raw ?? s.score }));
  };
  e.set.queries.forEach((q, i) => {
    const vector = e.questions[i] as Float32Array;
    if (q.gold.length > 0) answerable.push(rank(q.userId, q.query, vector).map((h) => ({ raw: h.raw, gold: q.gold.includes(h.id) })));
    else if (q.unanswerable) unanswerable.push(rank(q.userId, q.query, vector)[0]?.raw ?? 0);
  });
  const offTopicTops: number[] = [];
  for (const userId of [...e.byUser.keys()].slice(0, 3)) {
    for (const q of offTopic) offTopicTops.push(rank(userId, q.text, q.vector)[0]?.raw ?? 0);
  }
  return { answerable, unanswerable, offTopic: offTopicTops, exhaustive: e.set.exhaustive };
}

/** A set's messages typed as people type them (standsOut), each ranked over its person's memories at minScore 0. */
function typedOutcomes(e: EmbeddedSet, ranker: HybridRanker): TypedSet {
  const messages: TypedMessage[] = [];
  e.set.queries.forEach((q, i) => {
    if (!standsOut(q.query) || (q.gold.length === 0 && !q.unanswerable)) return;
    const ranked = ranker.rank(q.query, ranker.plan(q.query, 5), candidatesFor(e, q.userId, e.questions[i] as Float32Array));
    messages.push({
      ranked: ranked.map((s) => ({ score: s.score, gold: q.gold.includes(s.candidate.memory.id) })),
      firstIsNoAnswer: noAnswer(ranked[0]?.parts),
      answerable: q.gold.length > 0,
    });
  });
  return { messages, exhaustive: e.set.exhaustive };
}
