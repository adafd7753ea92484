import { describe, expect, it } from 'vitest';
import { calibrateModel } from '../../../src/core/calibration/calibrate.js';
import type { CalibrationData, LabelledSet } from '../../../src/core/calibration/labelled-sets.js';
import type { EmbedKind, Embedder, EmbedderInfo } from '../../../src/core/embedder.js';
import { STANDING_GRID } from '../../../src/core/calibration/fit.js';
import { modelCalibrationSchema } from '../../../src/core/ranking/calibration.js';
import { HashingEmbedder } from '../../../src/embeddings/hashing.js';

/** People with facts; each question shares its words with its one right fact only. */
function factSet(name: string, language: string, facts: (person: string, i: number) => [string, string][]): LabelledSet {
  const people = ['Anna', 'Boris', 'Chen', 'Dora'];
  const memories: LabelledSet['memories'] = [];
  const queries: LabelledSet['queries'] = [];
  people.forEach((person, p) => {
    facts(person, p).forEach(([fact, question], i) => {
      const id = `${name}:${person}:${i}`;
      memories.push({ userId: `${name}-${person}`, id, text: fact, createdAt: new Date(Date.UTC(2026, 0, 1, p, i * 10)).toISOString() });
      queries.push({ userId: `${name}-${person}`, query: question, gold: [id], unanswerable: false });
    });
    queries.push({ userId: `${name}-${person}`, query: `Which submarine did ${person} captain?`, gold: [], unanswerable: true });
  });
  return { name, language, exhaustive: true, memories, queries };
}

const english = factSet('facts-en', 'en', (who) => [
  [`${who} plays violin in an orchestra.`, `What instrument does ${who} play in the orchestra?`],
  [`${who} is allergic to peanuts.`, `Which allergy to peanuts does ${who} have?`],
  [`${who} drives a red Volvo estate.`, `What car does ${who} drive, the Volvo?`],
  [`${who} grew up in Lisbon near the harbour.`, `Where did ${who} grow up, Lisbon?`],
  [`${who} works as a nurse at the clinic.`, `What does ${who} do at the clinic?`],
]);

const german = factSet('facts-de', 'de', (who) => [
  [`${who} spielt Geige in einem Orchester.`, `Welches Instrument spielt ${who}?`],
  [`${who} ist allergisch gegen Erdnüsse.`, `Wogegen ist ${who} allergisch?`],
  [`${who} fährt einen roten Volvo.`, `Was für ein Auto fährt ${who}?`],
]);

const data: CalibrationData = { sets: [english, german], offTopic: ['How do I boil an egg?', 'What is the capital of Peru?'] };

/** A model that understands nothing: every text the same vector (its cosine separates nothing). */
class ConstantEmbedder implements Embedder {
  readonly model = 'constant';
  ready(): Promise<EmbedderInfo> {
    return Promise.resolve({ model: this.model, dimension: 4 });
  }
  embed(texts: readonly string[], _kind: EmbedKind): Promise<Float32Array[]> {
    return Promise.resolve(texts.map(() => Float32Array.from([0.5, 0.5, 0.5, 0.5])));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('calibrateModel', () => {
  it('fits a calibration the ranker accepts, and reports every language with its texts, AUC and path', async () => {
    const run = await calibrateModel(new HashingEmbedder(), data, { now: () => new Date('2026-11-27T00:00:00Z') });
    expect(modelCalibrationSchema.safeParse(run.calibration).success).toBe(true);
    expect(run.calibration.model).toBe('hash');
    expect(run.calibration.fittedAt).toBe('2026-11-27T00:00:00.000Z');
    expect(run.languages.map((l) => l.language)).toEqual(['en', 'de']);
    const en = run.languages[0];
    // 20 facts + 24 questions + the 2 off-topic questions.
    expect(en?.texts).toBe(46);
    expect(run.texts).toBe(46 + 12 + 16);
    // Word hashing separates a question from the other facts of its person whatever the language.
    expect(en?.auc).toBeGreaterThan(0.8);
    expect(en?.path).toBe('semantic');
    expect(run.calibration.knots[1]?.[1]).toBe(0.7);
    expect(run.languages.find((l) => l.language === 'de')?.knots).toEqual(run.calibration.languages?.includes('*') ? run.calibration.knots : run.calibration.foreignKnots);
  });

  it('fits a standing for messages typed as people type them, and none from clean questions alone', async () => {
    expect((await calibrateModel(new HashingEmbedder(), data)).calibration.standing).toBeUndefined();
    // Ten memories a person: standing says nothing among fewer (STANDING_POOL).
    const typed = factSet('chat-en', 'en', (who) => [
      [`${who} plays violin in an orchestra.`, `hey what does ${who.toLowerCase()} play again`],
      [`${who} is allergic to peanuts.`, `${who.toLowerCase()} allergic to what`],
      [`${who} drives a red Volvo estate.`, `whats ${who.toLowerCase()} driving these days`],
      [`${who} grew up in Lisbon near the harbour.`, `where did ${who.toLowerCase()} grow up`],
      [`${who} keeps bees on the allotment.`, `what does ${who.toLowerCase()} keep on the allotment`],
      [`${who} reads crime novels on the train.`, `what books does ${who.toLowerCase()} read`],
      [`${who} swims at the lido every Tuesday.`, `which day is ${who.toLowerCase()} swimming`],
      [`${who} collects old maps of Scotland.`, `what does ${who.toLowerCase()} collect`],
      [`${who} bakes sourdough on Sundays.`, `what does ${who.toLowerCase()} bake`],
      [`${who} volunteers at the animal shelter.`, `where does ${who.toLowerCase()} volunteer`],
    ]);
    const progress: string[] = [];
    const run = await calibrateModel(new HashingEmbedder(), { ...data, sets: [english, typed] }, { onProgress: (line) => progress.push(line) });
    expect(STANDING_GRID).toContain(run.calibration.standing);
    expect(modelCalibrationSchema.safeParse(run.calibration).success).toBe(true);
    expect(progress.some((line) => line.startsWith(`standing for typed messages: ${run.calibration.standing} `))).toBe(true);
  });

  it('reads every language by its words for a model whose cosine separates nothing', async () => {
    const run = await calibrateModel(new ConstantEmbedder(), data);
    expect(run.languages.map((l) => [l.language, l.auc, l.path])).toEqual([
      ['en', 0.5, 'words'],
      ['de', 0.5, 'words'],
    ]);
    // No language for the model's cosine: its map is not fitted (the default's stays), the words' map is used.
    expect(run.calibration.languages).toEqual(['en']);
    expect(run.languages[0]?.knots).toEqual(run.calibration.foreignKnots);
  });

  it('takes a language the sets lack from the others: English alone is the model, German by the majority', async () => {
    const run = await calibrateModel(new HashingEmbedder(), { sets: [german], offTopic: data.offTopic });
    expect(run.languages.map((l) => l.language)).toEqual(['de']);
    expect(run.languages[0]?.path).toBe('semantic');
    expect(run.calibration.languages).toEqual(['*']);
  });

  it('fails cleanly when the model returns fewer vectors than texts', async () => {
    const short = new HashingEmbedder();
    const broken: Embedder = {
      model: 'short',
      ready: () => short.ready(),
      embed: async (texts, kind) => (await short.embed(texts, kind)).slice(1),
      close: () => short.close(),
    };
    await expect(calibrateModel(broken, data)).rejects.toThrow(/returned \d+ vectors for \d+ texts/);
  });

  it('fails when the model cannot load', async () => {
    const failing: Embedder = {
      model: 'missing',
      ready: () => Promise.reject(new Error('no such model')),
      embed: () => Promise.reject(new Error('no such model')),
      close: () => Promise.resolve(),
    };
    await expect(calibrateModel(failing, data)).rejects.toThrow('no such model');
  });
});
