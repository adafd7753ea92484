import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shippedLabelledSets, unpackLabelledSets, withoutSets, type PackedLabelledSets } from '../../src/core/calibration/labelled-sets.js';
import { PACKED_SETS_PATH, packLabelledSets, packedFrom } from '../../tools/calibration/packed-sets.js';

const packed = JSON.parse(readFileSync(PACKED_SETS_PATH, 'utf8')) as PackedLabelledSets;
const sharedEval = process.env.MEMORY_EVAL_DIR ?? resolve('..', 'shared', 'eval');

describe('the labelled sets shipped for calibration', () => {
  it('hold English facts, chat messages and dialogue and the facts of every language of the suite, each with right and unanswerable questions', () => {
    const data = shippedLabelledSets();
    expect(data.sets.map((s) => `${s.name}:${s.language}`)).toEqual([
      'people-facts:en',
      'people-facts-2:en',
      'people-facts-3:en',
      'chat:en',
      'longmemeval-dialogue:en',
      ...['zh', 'ja', 'ko', 'de', 'es', 'fr', 'ru', 'pt'].map((l) => `facts-${l}:${l}`),
    ]);
    for (const set of data.sets) {
      const ids = new Set(set.memories.map((m) => m.id));
      expect(set.queries.some((q) => q.unanswerable), set.name).toBe(true);
      expect(set.queries.filter((q) => q.gold.length > 0).length, set.name).toBeGreaterThan(5);
      // Every right memory is in the set, of the same person.
      for (const q of set.queries) for (const g of q.gold) expect(ids.has(g), `${set.name} ${g}`).toBe(true);
    }
    expect(data.offTopic.length).toBeGreaterThan(30);
  });

  it('match the evaluation data they were packed from (run npm run calibrate:pack after editing a set)', () => {
    if (existsSync(resolve(sharedEval, 'longmemeval-dev', 'queries.jsonl'))) {
      process.env.MEMORY_EVAL_DIR = sharedEval;
      expect(packLabelledSets()).toEqual(packed);
    } else {
      // Without the shared evaluation data, the sets of this repository still must match.
      expect(() => packLabelledSets()).toThrow(/longmemeval-dev is missing/);
    }
  });

  it('leave out the sets an evaluation measures, and nothing else', () => {
    const data = shippedLabelledSets();
    const rest = withoutSets(data, ['people-facts', 'facts-de']);
    expect(rest.sets.map((s) => s.name)).not.toContain('people-facts');
    expect(rest.sets.map((s) => s.name)).not.toContain('facts-de');
    expect(rest.sets).toHaveLength(data.sets.length - 2);
    expect(rest.offTopic).toEqual(data.offTopic);
  });

  it('are left out of an evaluation by the set it measures and what was packed from it, not by a shared prefix', () => {
    const names = shippedLabelledSets().sets.map((s) => s.name);
    expect(packedFrom('people-facts', names)).toEqual(['people-facts']);
    expect(packedFrom('people-facts-2', names)).toEqual(['people-facts-2']);
    expect(packedFrom('people-facts-3', names)).toEqual(['people-facts-3']);
    expect(packedFrom('longmemeval', names)).toEqual(['longmemeval-dialogue']);
    expect(packedFrom('facts-de', names)).toEqual(['facts-de']);
    expect(packedFrom('facts-mixed', names)).toEqual([]);
  });

  it('refuse a packed file of another shape', () => {
    expect(() => unpackLabelledSets({ version: 2, offTopic: [], sets: [] })).toThrow();
    expect(() => unpackLabelledSets({ ...packed, sets: [{ ...packed.sets[0], memories: [['u', 'id', 'text']] }] })).toThrow();
  });
});
