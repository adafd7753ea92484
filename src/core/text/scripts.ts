/**
 * Writing systems, told apart by Unicode script properties. A text's script decides most of its analysis: how it
 * splits into words (spaces, or a dictionary for Chinese, Japanese and Thai), and which languages it can be.
 */
export type Script = 'latin' | 'cyrillic' | 'greek' | 'han' | 'kana' | 'hangul' | 'thai' | 'arabic' | 'hebrew' | 'devanagari' | 'other';

const PATTERNS: readonly (readonly [Exclude<Script, 'other'>, RegExp])[] = [
  ['latin', /\p{Script=Latin}/u],
  ['han', /\p{Script=Han}/u],
  ['kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['hangul', /\p{Script=Hangul}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['greek', /\p{Script=Greek}/u],
  ['thai', /\p{Script=Thai}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['devanagari', /\p{Script=Devanagari}/u],
];

/** The script of a word (its first letter's; a digit-only word is 'other'). */
export function scriptOf(word: string): Script {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(word)) return /[a-z]/i.test(word) ? 'latin' : 'other';
  for (const ch of word) {
    if (!/\p{L}/u.test(ch)) continue;
    for (const [script, pattern] of PATTERNS) if (pattern.test(ch)) return script;
    return 'other';
  }
  return 'other';
}

/**
 * How many letters of each script a text holds. A Han or kana character counts three times: it is about a word's
 * worth of text (a Chinese sentence with one English product name in it is Chinese).
 */
export function scriptCounts(text: string): Map<Script, number> {
  const counts = new Map<Script, number>();
  for (const ch of text) {
    if (!/\p{L}/u.test(ch)) continue;
    let script: Script = 'other';
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x7f]/.test(ch)) script = 'latin';
    else for (const [s, pattern] of PATTERNS) if (pattern.test(ch)) { script = s; break; }
    counts.set(script, (counts.get(script) ?? 0) + (script === 'han' || script === 'kana' ? 3 : 1));
  }
  return counts;
}

/** Scripts written without spaces between words: Intl.Segmenter (ICU's dictionaries) finds the words. */
export function needsSegmenter(script: Script): boolean {
  return script === 'han' || script === 'kana' || script === 'thai';
}
