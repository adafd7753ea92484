/**
 * Calibrations the service fits (core/calibration) are kept per model name and dimension, on both backends, and a
 * node that starts with a model another node calibrated uses the stored one instead of fitting again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfCalibrate, startingRanker } from '../../src/core/calibration/self-calibration.js';
import type { Embedder } from '../../src/core/embedder.js';
import { resolveCalibration, type ModelCalibration } from '../../src/core/ranking/calibration.js';
import type { MemoryStore } from '../../src/core/store.js';
import { HashingEmbedder } from '../../src/embeddings/hashing.js';
import { RenamedEmbedder } from '../../src/embeddings/renamed.js';
import { openPgStore } from '../../src/storage/postgres/index.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { useTestDatabase } from '../helpers/postgres.js';

const calibration = (model: string, knot: number): ModelCalibration => ({
  model,
  cosineFloor: 0.3,
  cosineCeiling: 0.6,
  knots: [
    [0, 0],
    [knot, 0.7],
    [1.5, 1],
  ],
  languages: ['en'],
  foreignKnots: [
    [0, 0],
    [0.45, 0.7],
    [1, 1],
  ],
  fittedAt: '2026-11-27T00:00:00.000Z',
});

/** A model that loads but cannot embed: a node that tried to fit with it would end 'failed'. */
function cannotEmbed(model: string): Embedder {
  const inner = new RenamedEmbedder(new HashingEmbedder(), model);
  return { model, ready: () => inner.ready(), embed: () => Promise.reject(new Error('down')), close: () => inner.close() };
}

function contract(open: () => Promise<MemoryStore>): void {
  it('keeps a calibration per model name and dimension, replaced by the next fit', async () => {
    const store = await open();
    try {
      expect(await store.getCalibration({ model: 'm', dimension: 256 })).toBeUndefined();
      await store.putCalibration({ model: 'm', dimension: 256 }, calibration('m', 0.5), '2026-11-27T00:00:00.000Z');
      await store.putCalibration({ model: 'm', dimension: 384 }, calibration('m', 0.6), '2026-11-27T00:00:00.000Z');
      expect(await store.getCalibration({ model: 'm', dimension: 256 })).toEqual(calibration('m', 0.5));
      expect(await store.getCalibration({ model: 'm', dimension: 384 })).toEqual(calibration('m', 0.6));
      expect(await store.getCalibration({ model: 'other', dimension: 256 })).toBeUndefined();
      await store.putCalibration({ model: 'm', dimension: 256 }, calibration('m', 0.55), '2026-11-28T00:00:00.000Z');
      expect(await store.getCalibration({ model: 'm', dimension: 256 })).toEqual(calibration('m', 0.55));
    } finally {
      await store.close();
    }
  });

  it('gives a node the calibration another node stored, without fitting again', async () => {
    const model = 'hash-elsewhere';
    const writer = await open();
    await writer.putCalibration({ model, dimension: 256 }, calibration(model, 0.52), '2026-11-27T00:00:00.000Z');
    await writer.close();
    const store = await open();
    try {
      const embedder = cannotEmbed(model);
      const ranker = startingRanker(resolveCalibration(model));
      expect(ranker.status).toBe('pending');
      const status = await selfCalibrate({ embedder, modelReady: embedder.ready(), store, ranker, data: () => ({ sets: [], offTopic: [] }) });
      expect(status).toBe('fitted');
      expect(ranker.current.params.calibration).toEqual(calibration(model, 0.52).knots);
    } finally {
      await store.close();
    }
  });

  it('ignores a stored row that is not a calibration of the model, and says the fit failed when it cannot embed', async () => {
    const model = 'hash-broken';
    const writer = await open();
    await writer.putCalibration({ model, dimension: 256 }, { model: 'another', knots: 'no' }, '2026-11-27T00:00:00.000Z');
    await writer.close();
    const store = await open();
    try {
      const embedder = cannotEmbed(model);
      const ranker = startingRanker(resolveCalibration(model));
      const status = await selfCalibrate({
        embedder,
        modelReady: embedder.ready(),
        store,
        ranker,
        data: () => ({ sets: [{ name: 's', language: 'en', exhaustive: true, memories: [{ userId: 'u', id: 'a', text: 'x', createdAt: '2026-01-01T00:00:00Z' }], queries: [] }], offTopic: [] }),
      });
      expect(status).toBe('failed');
      expect(ranker.status).toBe('failed');
      // The conservative map stays: every language read by its words.
      expect(ranker.current.params.languages).toEqual([]);
    } finally {
      await store.close();
    }
  });
}

describe('calibrations on SQLite', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'calibrations-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  contract(() => Promise.resolve(SqliteStore.open({ path: join(dir, 'memory.db') })));
});

describe('calibrations on PostgreSQL', () => {
  const database = useTestDatabase();
  let schema: string;
  beforeAll(() => {
    schema = database().newSchema();
  });
  contract(() => openPgStore(database().url, { schema }));
});
