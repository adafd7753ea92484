import { describe, expect, it } from 'vitest';
import { queryTerms, Stemmer, words } from '../../../src/core/ranking/terms.js';

describe('words', () => {
  it('lower-cases, splits on anything but letters and digits, and drops diacritics like the index', () => {
    expect(words("Café au lait, Zoë's 2nd!")).toEqual(['cafe', 'au', 'lait', 'zoe', 's', '2nd']);
  });
});

describe('queryTerms', () => {
  it('drops stop words and duplicates, keeps order', () => {
    expect(queryTerms('When did Caroline go to the LGBTQ support group, the group?')).toEqual([
      'caroline',
      'go',
      'lgbtq',
      'support',
      'group',
    ]);
  });

  it('keeps numbers and caps the number of terms', () => {
    expect(queryTerms('born in 1990')).toEqual(['born', '1990']);
    expect(queryTerms(Array.from({ length: 50 }, (_, i) => `word${i}`).join(' '), 32)).toHaveLength(32);
  });
});

describe('Stemmer', () => {
  it('gives the distinct stems of a text', () => {
    expect([...new Stemmer().stems('Running runs; the runner ran')].sort()).toEqual(['ran', 'run', 'runner', 'the']);
  });
});
