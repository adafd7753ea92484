import { describe, expect, it } from 'vitest';
import { withoutFillers } from '../../../src/core/text/fillers.js';

describe('withoutFillers: what a chat question adds that asks nothing', () => {
  it.each([
    ["where's Javed these days", "where's Javed"],
    ["remind me what meds I'm on", "what meds I'm on"],
    ["what's my vehicle again", "what's my vehicle"],
    ['I can’t remember, which night is salsa?', ', which night is salsa?'],
    ['Do you know where Marta lives at the moment?', 'where Marta lives ?'],
    ['When do I usually go riding?', 'When do I go riding?'],
    ['Do you remember what I said causes it?', 'what causes it?'],
  ])('%j -> %j', (text, rest) => {
    expect(withoutFillers(text)).toBe(rest);
  });

  it('keeps words that ask ("now", "currently") and words inside other words', () => {
    expect(withoutFillers('Where does Lena live now?')).toBe('Where does Lena live now?');
    expect(withoutFillers('What is Nina currently reading?')).toBe('What is Nina currently reading?');
    expect(withoutFillers('Is Tom against it?')).toBe('Is Tom against it?');
  });

  it('keeps the text when nothing else would be left', () => {
    expect(withoutFillers('again?')).toBe('again?');
  });
});
