import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALIBRATION_FILE, resolveCalibration } from '../../src/core/ranking/calibration.js';
import { createEmbedder, type Embedder } from '../../src/embeddings/index.js';
import { fitCalibration } from '../../tools/calibration/fit.js';
import { firstUsers, loadEvalData } from '../../tools/eval/dataset.js';
import { writeTinyBert } from '../embeddings/fixtures/tiny-bert.js';
import { TRANSFORMERS_INSTALLED } from '../helpers/lane-packages.js';

// A second model through the same calibration path as USE-lite: fitted by the tool from labelled data, stored
// beside the model's files, picked up by the runtime; without it, the documented fallback.

const MODEL = 'test-org/tiny-bert';
const PEOPLE = new URL('../../tools/eval/data/people-facts/', import.meta.url).pathname;

describe.runIf(TRANSFORMERS_INSTALLED)('calibration of another model (the tiny test model)', () => {
  let root: string;
  let embedder: Embedder;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'agent-memory-calibrate-'));
    writeTinyBert({ root, model: MODEL, hiddenSize: 24 });
    embedder = createEmbedder({ model: MODEL, modelDir: root });
  });
  afterAll(async () => {
    await embedder.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('falls back to use-lite\'s values, flagged, when the model has no calibration', () => {
    const resolved = resolveCalibration(MODEL, root);
    expect(resolved.fallback).toBe(true);
    expect(resolved.calibration.model).toBe(MODEL);
  });

  it('fits one from labelled data, and the runtime then uses it', async () => {
    const data = firstUsers(loadEvalData(PEOPLE), 2);
    const calibration = await fitCalibration({ embedder, sets: [{ name: 'people', data }], offTopic: ['What is the capital of Mongolia?', 'How do I reset my router?'] });
    expect(calibration.model).toBe(MODEL);
    expect(calibration.cosineCeiling).toBeGreaterThan(calibration.cosineFloor);
    expect(calibration.knots[1]?.[1]).toBe(0.7);
    writeFileSync(join(root, MODEL, CALIBRATION_FILE), JSON.stringify(calibration));
    const resolved = resolveCalibration(MODEL, root);
    expect(resolved).toMatchObject({ fallback: false, calibration });
  }, 120_000);

  it('refuses a calibration file fitted for another model', () => {
    writeFileSync(join(root, MODEL, CALIBRATION_FILE), JSON.stringify({ model: 'other', cosineFloor: 0, cosineCeiling: 1, knots: [[0, 0], [1, 1]] }));
    expect(() => resolveCalibration(MODEL, root)).toThrow(/not of "test-org\/tiny-bert"/);
  });
});
