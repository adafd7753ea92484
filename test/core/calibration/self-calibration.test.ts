import { describe, expect, it } from 'vitest';
import { selfCalibrate, startingRanker } from '../../../src/core/calibration/self-calibration.js';
import type { CalibrationData } from '../../../src/core/calibration/labelled-sets.js';
import { EmbeddingState } from '../../../src/core/embedding-state.js';
import type { EmbedKind, Embedder, EmbedderInfo } from '../../../src/core/embedder.js';
import { resolveCalibration } from '../../../src/core/ranking/calibration.js';
import { MemoryService } from '../../../src/core/service.js';
import { LOCAL_CALLER } from '../../../src/core/types.js';
import { HashingEmbedder } from '../../../src/embeddings/hashing.js';
import { RenamedEmbedder } from '../../../src/embeddings/renamed.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';

/** The hash model under a name without a calibration, whose embedding of documents waits until released. */
class GatedEmbedder implements Embedder {
  readonly model = 'hash-gated';
  readonly #inner = new RenamedEmbedder(new HashingEmbedder(), 'hash-gated');
  #release: () => void = () => undefined;
  readonly #gate = new Promise<void>((resolve) => {
    this.#release = resolve;
  });
  #gated = true;
  release(): void {
    this.#release();
  }
  ready(): Promise<EmbedderInfo> {
    return this.#inner.ready();
  }
  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    // Stores and recalls go through at once; the calibration's batches wait (they are the 32-text ones).
    if (this.#gated && texts.length > 1) await this.#gate;
    return this.#inner.embed(texts, kind);
  }
  close(): Promise<void> {
    this.#gated = false;
    this.#release();
    return this.#inner.close();
  }
}

const data: CalibrationData = {
  offTopic: ['How do I boil an egg?', 'What is the capital of Peru?'],
  sets: [
    {
      name: 'facts',
      language: 'en',
      exhaustive: true,
      memories: ['Ana plays the violin.', 'Ana is allergic to peanuts.', 'Ana drives a red Volvo.', 'Ana grew up in Lisbon.'].map((text, i) => ({
        userId: 'ana',
        id: `a${i}`,
        text,
        createdAt: `2026-01-0${i + 1}T00:00:00.000Z`,
      })),
      queries: [
        { userId: 'ana', query: 'What instrument does Ana play, the violin?', gold: ['a0'], unanswerable: false },
        { userId: 'ana', query: 'Is Ana allergic to peanuts?', gold: ['a1'], unanswerable: false },
        { userId: 'ana', query: 'Which Volvo does Ana drive?', gold: ['a2'], unanswerable: false },
        { userId: 'ana', query: 'Which submarine did Ana captain?', gold: [], unanswerable: true },
      ],
    },
  ],
};

describe('self-calibration of a model without a calibration', () => {
  it('serves with a conservative map while pending, then with the fitted one, and says which in health and explain', async () => {
    const store = SqliteStore.open({ path: ':memory:' });
    const embedder = new GatedEmbedder();
    const modelReady = embedder.ready().then(async (info) => {
      await store.useModel(info);
      return info;
    });
    const ranker = startingRanker(resolveCalibration(embedder.model));
    const service = new MemoryService({ store, embeddings: new EmbeddingState(embedder, modelReady), ranker });
    const done = selfCalibrate({ embedder, modelReady, store, ranker, data: () => data });
    try {
      await modelReady;
      expect(await service.health()).toMatchObject({ status: 'ok', calibration: 'pending' });
      await service.store(LOCAL_CALLER, { userId: 'u', text: 'Mia was born in 2019.' });
      const pending = await service.recall(LOCAL_CALLER, { userId: 'u', query: 'When was Mia born?', minScore: 0, explain: true });
      expect(pending.memories[0]?.explain).toMatchObject({ calibration: 'pending', path: 'words' });

      embedder.release();
      expect(await done).toBe('fitted');
      expect(await service.health()).toMatchObject({ status: 'ok', calibration: 'fitted' });
      const fitted = await service.recall(LOCAL_CALLER, { userId: 'u', query: 'When was Mia born?', minScore: 0, explain: true });
      expect(fitted.memories[0]?.explain).toMatchObject({ calibration: 'fitted', path: 'semantic' });
      // Stored for every node of the database.
      expect(await store.getCalibration({ model: 'hash-gated', dimension: 256 })).toMatchObject({ model: 'hash-gated', languages: ['en'] });
    } finally {
      await embedder.close();
      await store.close();
    }
  });

  it('keeps the built-in calibration of a model that has one, and the hash test model', async () => {
    expect(startingRanker(resolveCalibration('use-lite')).status).toBe('builtin');
    expect(startingRanker(resolveCalibration('hash')).status).toBe('builtin');
    const ranker = startingRanker(resolveCalibration('use-lite'));
    const embedder = new HashingEmbedder();
    const store = SqliteStore.open({ path: ':memory:' });
    try {
      expect(await selfCalibrate({ embedder, modelReady: embedder.ready(), store, ranker, data: () => data })).toBe('builtin');
      expect(await store.getCalibration({ model: 'hash', dimension: 256 })).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('reports no failure for a fit cut short by the runtime closing, and a failure otherwise', async () => {
    for (const closing of [true, false]) {
      const store = SqliteStore.open({ path: ':memory:' });
      const embedder = new GatedEmbedder();
      const ranker = startingRanker(resolveCalibration(embedder.model));
      const warnings: string[] = [];
      const logger = { debug() {}, info() {}, error() {}, warn: (m: string) => warnings.push(m) };
      let stopped = false;
      const done = selfCalibrate({ embedder, modelReady: embedder.ready(), store, ranker, data: () => data, logger, stopped: () => stopped });
      // The runtime closes the store (and says it is stopping) while the fit waits on the model.
      stopped = closing;
      await store.close();
      embedder.release();
      expect(await done).toBe(closing ? 'pending' : 'failed');
      expect(warnings).toHaveLength(closing ? 0 : 1);
      await embedder.close();
    }
  });

  it('leaves the ranker pending when the model does not load (the runtime reports that failure)', async () => {
    const store = SqliteStore.open({ path: ':memory:' });
    const ranker = startingRanker(resolveCalibration('nowhere'));
    const failing: Embedder = {
      model: 'nowhere',
      ready: () => Promise.reject(new Error('cannot load')),
      embed: () => Promise.reject(new Error('cannot load')),
      close: () => Promise.resolve(),
    };
    try {
      expect(await selfCalibrate({ embedder: failing, modelReady: failing.ready(), store, ranker, data: () => data })).toBe('pending');
    } finally {
      await store.close();
    }
  });
});
