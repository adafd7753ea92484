import { describe, expect, it } from 'vitest';
import { stemIn } from '../../../src/core/text/analyze.js';
import { informalForms, informalWords } from '../../../src/core/text/informal.js';

describe('informalForms', () => {
  it('relates the typed word and the written one both ways, by their stems', () => {
    expect(informalForms(stemIn('meds', 'en'))).toContain(stemIn('medication', 'en'));
    expect(informalForms(stemIn('mother', 'en'))).toEqual(expect.arrayContaining([stemIn('mum', 'en'), stemIn('mom', 'en')]));
    expect(informalForms(stemIn('bunnies', 'en'))).toContain(stemIn('rabbit', 'en'));
    expect(informalForms(stemIn('allergic', 'en'))).toEqual([]);
  });

  it('reads chat abbreviations as the word that carries them', () => {
    expect(informalForms(stemIn('bp', 'en'))).toContain(stemIn('pressure', 'en'));
    expect(informalForms(stemIn('wfh', 'en'))).toContain(stemIn('home', 'en'));
    expect(informalForms(stemIn('lad', 'en'))).toContain(stemIn('son', 'en'));
  });

  it('reads borrowed words for relatives and everyday synonyms WordNet buries among too many others', () => {
    expect(informalForms(stemIn('abuela', 'en'))).toContain(stemIn('grandmother', 'en'));
    expect(informalForms(stemIn('shut', 'en'))).toContain(stemIn('closed', 'en'));
    expect(informalForms(stemIn('mama', 'en'))).toContain(stemIn('mum', 'en'));
    expect(informalForms(stemIn('doin', 'en'))).toContain(stemIn('doing', 'en'));
    expect(informalForms(stemIn('headaches', 'en'))).toContain(stemIn('migraine', 'en'));
  });

  it('reads everyday names for what memories name formally', () => {
    for (const [typed, written] of [
      ['puffer', 'inhaler'],
      ['jab', 'vaccination'],
      ['grog', 'alcohol'],
      ['moto', 'motorbike'],
      ['roomie', 'roommate'],
      ['sugar', 'diabetes'],
      ['test', 'exam'],
    ] as const) {
      expect(informalForms(stemIn(typed, 'en')), typed).toContain(stemIn(written, 'en'));
    }
  });

  it('gives the words of the same thing as typed and as written, for rules that read words, not stems', () => {
    expect(informalWords('mum')).toEqual(expect.arrayContaining(['mum', 'mother', 'mom', 'mama']));
    expect(informalWords('doctor')).toEqual(expect.arrayContaining(['doctor', 'gp', 'doc']));
    expect(informalWords('twin')).toEqual(['twin']);
  });

});
