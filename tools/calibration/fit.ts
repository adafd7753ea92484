/**
 * Fitting a model's score calibration (core/ranking/calibration.ts) from labelled data: the cosine range that
 * counts as semantic evidence, and the raw evidence that maps to the default threshold 0.7.
 *
 * - cosineFloor: the 90th percentile of the cosines between questions no memory answers (the off-topic list and
 *   the sets' unanswerable questions) and a user's memories: below it a cosine says nothing;
 * - cosineCeiling: the 75th percentile of the cosines between answerable questions and their gold memories;
 * - the 0.7 knot: the raw evidence that best separates what a person would want returned from what not, with
 *   every set weighing the same. Per set at the defaults (limit 5), returning what answers (answerable questions
 *   with a gold memory returned) weighs as much as returning nothing else (the mean of: unanswerable questions
 *   with nothing, off-topic questions with nothing, and on sets with exhaustive labels the share of returned
 *   memories that are gold); then the mean over sets. The balance is flat near its top (a few unanswerable
 *   questions move its best point), so the middle of the thresholds within 0.005 of the best is taken. (Taking
 *   the lowest of them favoured hits at the plateau's edge: with USE-lite it let "Maria is at the dentist this
 *   afternoon." answer "where does maria live" at 0.71.)
 */
import { mean, quantile, setBalance, type SetOutcome } from '../../src/core/calibration/fit.js';
import type { ModelCalibration } from '../../src/core/ranking/calibration.js';
import { HybridRanker, paramsFor } from '../../src/core/ranking/hybrid-ranker.js';
import { dot } from '../../src/embeddings/vector.js';
import type { Embedder } from '../../src/embeddings/types.js';
import { EmbeddingState } from '../../src/core/embedding-state.js';
import { MemoryService } from '../../src/core/service.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import type { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { EvalData } from '../eval/dataset.js';
import { datasetStore } from '../eval/dataset-store.js';
import { DATASET_ID_KEY } from '../eval/service-recall.js';

export interface FitInput {
  embedder: Embedder;
  sets: readonly { name: string; data: EvalData; exhaustive?: boolean }[];
  offTopic: readonly string[];
  onProgress?: (message: string) => void;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

export async function fitCalibration(input: FitInput): Promise<ModelCalibration> {
  const info = await input.embedder.ready();
  const embeddings = new EmbeddingState(input.embedder, Promise.resolve(info));
  const gold: number[] = [];
  const unrelated: number[] = [];
  const runs: { store: SqliteStore; data: EvalData; exhaustive: boolean }[] = [];
  const offTopicVectors = await input.embedder.embed(input.offTopic, 'query');

  for (const { name, data, exhaustive } of input.sets) {
    input.onProgress?.(`${name}: embedding ${data.memories.length} memories`);
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < data.memories.length; i += 32) {
      const batch = data.memories.slice(i, i + 32);
      const embedded = await input.embedder.embed(batch.map((m) => m.text), 'document');
      batch.forEach((m, j) => vectors.set(m.id, embedded[j] as Float32Array));
    }
    const store = await datasetStore(data.memories, info, (m) => vectors.get(m.id));
    const byUser = new Map<string, Float32Array[]>();
    for (const m of data.memories) byUser.set(m.userId, [...(byUser.get(m.userId) ?? []), vectors.get(m.id) as Float32Array]);
    for (const q of data.queries) {
      const [v] = await input.embedder.embed([new HybridRanker().plan(q.query, 5).embedText], 'query');
      if (!v) continue;
      for (const id of q.gold) {
        const g = vectors.get(id);
        if (g) gold.push(dot(v, g));
      }
      if (q.unanswerable) for (const m of byUser.get(q.userId) ?? []) unrelated.push(dot(v, m));
    }
    for (const memories of [...byUser.values()].slice(0, 3)) {
      for (const v of offTopicVectors) for (const m of memories) unrelated.push(dot(v, m));
    }
    runs.push({ store, data, exhaustive: exhaustive === true });
  }

  const cosineFloor = round(quantile(unrelated, 0.9));
  const cosineCeiling = round(Math.max(cosineFloor + 0.1, quantile(gold, 0.75)));
  // Raw evidence of what recall returns, with an identity map so that the score is the raw value itself.
  const ranker = new HybridRanker(paramsFor({ model: info.model, cosineFloor, cosineCeiling, knots: [[0, 0], [10, 10]] }));
  /** Per set: each answerable question's top 5 (raw, gold?); the top raw of each unanswerable / off-topic question. */
  const perSet: SetOutcome[] = [];
  for (const { store, data, exhaustive } of runs) {
    const answerable: SetOutcome['answerable'] = [];
    const unanswerable: number[] = [];
    const offTopic: number[] = [];
    const service = new MemoryService({ store, embeddings, ranker });
    const ask = async (userId: string, query: string): Promise<{ id: string; raw: number }[]> =>
      (await service.recall(LOCAL_CALLER, { userId, query, limit: 5, minScore: 0, explain: true })).memories.map((m) => ({
        id: String(m.metadata[DATASET_ID_KEY]),
        raw: m.explain?.raw ?? 0,
      }));
    for (const q of data.queries) {
      if (q.gold.length > 0 && q.category !== 'adversarial') {
        answerable.push((await ask(q.userId, q.query)).map((h) => ({ raw: h.raw, gold: q.gold.includes(h.id) })));
      } else if (q.unanswerable) {
        unanswerable.push((await ask(q.userId, q.query))[0]?.raw ?? 0);
      }
    }
    const users = [...new Set(data.memories.map((m) => m.userId))].slice(0, 3);
    for (const userId of users) for (const query of input.offTopic) offTopic.push((await ask(userId, query))[0]?.raw ?? 0);
    perSet.push({ answerable, unanswerable, offTopic, exhaustive });
    await store.close();
  }

  const curve: { t: number; value: number }[] = [];
  for (let t = 0.05; t <= 1.5; t += 0.005) curve.push({ t, value: mean(perSet.map((set) => setBalance(set, t))) });
  const top = Math.max(...curve.map((c) => c.value));
  const near = curve.filter((c) => c.value >= top - 0.005);
  const middle = mean(near.map((c) => c.t));
  // The curve's point nearest the plateau's middle (its value is what the message reports).
  const best = near.reduce((a, c) => (Math.abs(c.t - middle) < Math.abs(a.t - middle) ? c : a));
  const knot = round(best.t);
  const argmax = curve.find((c) => c.value === top) as { t: number; value: number };
  input.onProgress?.(
    `balance within 0.005 of its best (${top.toFixed(4)} at ${round(argmax.t)}) from raw ${round(near[0]?.t ?? 0)} to ${round(near[near.length - 1]?.t ?? 0)}: the middle is taken`,
  );
  const last = round(Math.max(knot * 2.5, 1.25));
  input.onProgress?.(
    `cosine floor ${cosineFloor} (p90 of ${unrelated.length} unrelated pairs), ceiling ${cosineCeiling} (p75 of ${gold.length} gold pairs); raw ${knot} -> 0.7 (mean balance over sets ${best.value.toFixed(3)})`,
  );
  return {
    model: info.model,
    cosineFloor,
    cosineCeiling,
    knots: [
      [0, 0],
      [knot, 0.7],
      [last, 1],
    ],
    fittedOn: input.sets.map((s) => `${s.name} (${s.data.queries.length} questions)`).join(', ') + ` + ${input.offTopic.length} off-topic questions`,
    fittedAt: new Date().toISOString().slice(0, 10),
  };
}
