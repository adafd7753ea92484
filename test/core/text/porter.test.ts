import { describe, expect, it } from 'vitest';
import { porterStem } from '../../../src/core/text/porter.js';

describe('porterStem', () => {
  // Examples from Porter (1980), the algorithm FTS5's `porter` tokenizer implements.
  it.each([
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['cats', 'cat'],
    ['agreed', 'agre'],
    ['plastered', 'plaster'],
    ['motoring', 'motor'],
    ['hopping', 'hop'],
    ['falling', 'fall'],
    ['filing', 'file'],
    ['happy', 'happi'],
    ['relational', 'relat'],
    ['conditional', 'condit'],
    ['generalization', 'gener'],
    ['hopefulness', 'hope'],
    ['electrical', 'electr'],
    ['adjustment', 'adjust'],
    ['adoption', 'adopt'],
    ['controlling', 'control'],
    ['running', 'run'],
    ['studio', 'studio'],
  ])('%s -> %s', (word, stem) => {
    expect(porterStem(word)).toBe(stem);
  });

  it('leaves short words, non-ASCII words and upper case alone', () => {
    expect(porterStem('is')).toBe('is');
    expect(porterStem('straße')).toBe('straße');
    expect(porterStem('Running')).toBe('Running');
  });

  it('stems letters and digits together as FTS5 does', () => {
    expect(porterStem('1900s')).toBe('1900');
  });
});
