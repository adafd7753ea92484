import { describe, expect, it } from 'vitest';
import { analyzeText, termsOf } from '../../../src/core/text/analyze.js';
import { CONCEPTS } from '../../../src/core/text/concepts.js';
import { isLanguage } from '../../../src/core/text/languages.js';
import { isPartOf } from '../../../src/core/text/parts.js';
import { conceptRelated } from '../../../src/core/text/related.js';

describe('CONCEPTS', () => {
  it('holds words that the analysis keeps as one term each, in their own language', () => {
    const broken: string[] = [];
    for (const [name, concept] of Object.entries(CONCEPTS)) {
      for (const [language, words] of Object.entries(concept)) {
        if (!isLanguage(language)) throw new Error(`${name}: unknown language ${language}`);
        for (const word of words.split(/[\s|]+/).filter((w) => w.length > 0)) {
          const analysis = analyzeText(word, language);
          if (termsOf(analysis).length !== 1) broken.push(`${name}.${language}: ${word} -> ${JSON.stringify(termsOf(analysis))}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('conceptRelated', () => {
  it('relates a general word to its kinds, and a kind to its own words and the general ones only', () => {
    const de = conceptRelated('de');
    const stem = (w: string): string => termsOf(analyzeText(w, 'de'))[0] as string;
    expect(de(stem('Geschwister'))).toEqual(expect.arrayContaining([stem('Bruder'), stem('Schwester')]));
    expect(de(stem('Schwester'))).toContain(stem('Geschwister'));
    expect(de(stem('Schwester'))).not.toContain(stem('Bruder'));
    expect(de(stem('beruflich'))).toContain(stem('arbeitet'));
    expect(conceptRelated('zh')('过敏')).toContain('吃');
    expect(de('unbekannt')).toEqual([]);
  });
});

describe('isPartOf', () => {
  it('finds a word inside a compound, and a Han word inside a longer one', () => {
    expect(isPartOf('allerg', 'haselnussallergi')).toBe(true);
    expect(isPartOf('车', '汽车')).toBe(true);
    expect(isPartOf('汽车', '车')).toBe(true);
  });

  it('takes no short piece of an alphabetic word, nothing across scripts, and not the word itself', () => {
    expect(isPartOf('art', 'bart')).toBe(false);
    expect(isPartOf('car', 'carpet')).toBe(false);
    expect(isPartOf('车', 'car')).toBe(false);
    expect(isPartOf('allerg', 'allerg')).toBe(false);
  });
});
