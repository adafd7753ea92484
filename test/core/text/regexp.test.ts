import { describe, expect, it } from 'vitest';
import { escapeRegExp } from '../../../src/core/text/regexp.js';

describe('escapeRegExp', () => {
  it('matches a text literally, special characters included', () => {
    for (const text of ['Chloé', 'a.b*c', '(Jo)', 'x+y?', '[1]{2}', 'back\\slash', '^$|']) {
      expect(new RegExp(`^${escapeRegExp(text)}$`, 'u').test(text), text).toBe(true);
    }
    expect(new RegExp(escapeRegExp('a.b'), 'u').test('axb')).toBe(false);
  });
});
