import { describe, expect, it } from 'vitest';
import { printable } from '../../src/core/printable.js';
import { nestingWithin } from '../../src/core/json-depth.js';

describe('printable', () => {
  it('escapes what a terminal would act on: controls, DEL and C1, bidi and zero-width characters, separators, lone surrogates', () => {
    expect(printable('\u001b]0;owned\u0007')).toBe('\\x1b]0;owned\\x07');
    expect(printable('a\nb\rc\td\u0000e\u007f\u009b')).toBe('a\\nb\\rc\\td\\x00e\\x7f\\x9b');
    expect(printable('user\u202egnp.exe')).toBe('user\\u202egnp.exe');
    expect(printable('\u2066x\u2069\u200b\u200d\ufeff\u2028')).toBe('\\u2066x\\u2069\\u200b\\u200d\\ufeff\\u2028');
    expect(printable('bad\ud800end')).toBe('bad\\ud800end');
  });

  it('leaves printable text alone: other scripts, accents, emoji (surrogate pairs), quotes and backslashes', () => {
    for (const text of ['café', 'Zoë Ørsted', 'مرحبا', 'שלום', '東京', '😀 👍🏽', 'say "hi" \\ now', '']) expect(printable(text)).toBe(text);
  });
});

describe('nestingWithin', () => {
  it('counts levels of objects and arrays without recursion, 100,000 deep included', () => {
    expect(nestingWithin('text', 0)).toBe(true);
    expect(nestingWithin({}, 1)).toBe(true);
    expect(nestingWithin({ a: [{}] }, 3)).toBe(true);
    expect(nestingWithin({ a: [{}] }, 2)).toBe(false);
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(nestingWithin(deep, 33)).toBe(false);
    expect(nestingWithin(deep, 100_000)).toBe(true);
  });
});
