/**
 * The Porter (1980) stemmer, as SQLite's FTS5 `porter` tokenizer applies it, so that the ranker's own term
 * matching (which query words a memory contains) agrees with the store's full-text index. Words that are not
 * lower-case ASCII letters and digits are returned unchanged (FTS5's porter also leaves them alone), as are words of
 * one or two letters.
 */

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** m(): the number of vowel-consonant sequences in w[0..end). */
function measure(w: string, end: number): number {
  let n = 0;
  let i = 0;
  while (i < end && isConsonant(w, i)) i++;
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++;
    if (i >= end) break;
    n++;
    while (i < end && isConsonant(w, i)) i++;
  }
  return n;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string, end: number): boolean {
  return end >= 2 && w[end - 1] === w[end - 2] && isConsonant(w, end - 1);
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y (hop, not hoop or snow). */
function endsCvc(w: string, end: number): boolean {
  if (end < 3) return false;
  if (!isConsonant(w, end - 1) || isConsonant(w, end - 2) || !isConsonant(w, end - 3)) return false;
  const c = w[end - 1];
  return c !== 'w' && c !== 'x' && c !== 'y';
}

/** Replaces `suffix` by `repl` when the stem before it has measure > `minMeasure`; undefined if no suffix match. */
function replaceIf(w: string, suffix: string, repl: string, minMeasure: number): string | undefined {
  if (!w.endsWith(suffix)) return undefined;
  const stemEnd = w.length - suffix.length;
  return measure(w, stemEnd) > minMeasure ? w.slice(0, stemEnd) + repl : w;
}

function step1a(w: string): string {
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ies')) return w.slice(0, -2);
  if (w.endsWith('ss')) return w;
  if (w.endsWith('s')) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith('eed')) return measure(w, w.length - 3) > 0 ? w.slice(0, -1) : w;
  let stem: string | undefined;
  if (w.endsWith('ed') && hasVowel(w, w.length - 2)) stem = w.slice(0, -2);
  else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) stem = w.slice(0, -3);
  if (stem === undefined) return w;
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return `${stem}e`;
  if (endsDoubleConsonant(stem, stem.length) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem, stem.length) === 1 && endsCvc(stem, stem.length)) return `${stem}e`;
  return stem;
}

function step1c(w: string): string {
  return w.endsWith('y') && hasVowel(w, w.length - 1) ? `${w.slice(0, -1)}i` : w;
}

const STEP2: readonly [string, string][] = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['bli', 'ble'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
];
const STEP3: readonly [string, string][] = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];
const STEP4 = [
  'al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti',
  'ous', 'ive', 'ize',
];

/** The longest matching suffix of the table decides, whether or not its condition then holds. */
function applyTable(w: string, table: readonly [string, string][], minMeasure: number): string {
  let best: [string, string] | undefined;
  for (const entry of table) if (w.endsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry;
  return best === undefined ? w : (replaceIf(w, best[0], best[1], minMeasure) ?? w);
}

function step4(w: string): string {
  let best: string | undefined;
  for (const s of STEP4) if (w.endsWith(s) && (best === undefined || s.length > best.length)) best = s;
  if (best === undefined) return w;
  const stemEnd = w.length - best.length;
  if (measure(w, stemEnd) <= 1) return w;
  if (best === 'ion' && !/[st]$/.test(w.slice(0, stemEnd))) return w;
  return w.slice(0, stemEnd);
}

function step5(w: string): string {
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  if (w.endsWith('ll') && measure(w, w.length) > 1) w = w.slice(0, -1);
  return w;
}

export function porterStem(word: string): string {
  if (word.length <= 2 || !/^[a-z0-9]+$/.test(word)) return word;
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = applyTable(w, STEP2, 0);
  w = applyTable(w, STEP3, 0);
  w = step4(w);
  return step5(w);
}
