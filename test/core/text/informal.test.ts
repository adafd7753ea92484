import { describe, expect, it } from 'vitest';
import { stemIn } from '../../../src/core/text/analyze.js';
import { informalForms } from '../../../src/core/text/informal.js';

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
    expect(informalForms(stemIn('puffer', 'en'))).toContain(stemIn('inhaler', 'en'));
    expect(informalForms(stemIn('jab', 'en'))).toContain(stemIn('vaccination', 'en'));
    expect(informalForms(stemIn('grog', 'en'))).toContain(stemIn('alcohol', 'en'));
    expect(informalForms(stemIn('moto', 'en'))).toContain(stemIn('motorbike', 'en'));
    expect(informalForms(stemIn('roomie', 'en'))).toContain(stemIn('roommate', 'en'));
    expect(informalForms(stemIn('sugar', 'en'))).toContain(stemIn('diabetes', 'en'));
  });

});
