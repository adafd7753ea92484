import { defaultLanguageOf, languageInfo, languagesOf, type Language } from './languages.js';
import { needsSegmenter, scriptCounts, scriptOf, type Script } from './scripts.js';
import { stopWordsOf } from './stop-words.js';
import { languageByShapes } from './word-shapes.js';

/**
 * The word side's reading of a text, the same for memories and queries and on every backend: the text's language,
 * its words in order, and the terms the word index holds (stems of the words that are not stop words). The store
 * indexes `terms` as they are (SQLite's FTS5 and PostgreSQL both match them exactly), and the ranker compares the
 * query's terms with each memory's stems, so a term matches the same memories everywhere.
 */
export interface TextAnalysis {
  language: Language;
  /** Lower-cased words in order, stop words included. */
  words: string[];
}

/**
 * Lower-cased words (letters, digits and their combining marks, of any script), in order, as English recall has
 * always split them: diacritics removed first, so "café" and "cafe" are one word. Kept for the English-only readers
 * (answer kinds, question frames); the word side uses analyzeText.
 */
export function words(text: string): string[] {
  // Most memories are plain ASCII: they skip the Unicode decomposition and the Unicode-aware pattern, which
  // dominate the cost on long texts (a recall may read a few hundred memories of up to 16,000 characters).
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return (
    text
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** `word` with the first letter capitalised where `typed` starts with a capital ("Rafas" -> "Rafa's", "Dougi" -> "Dougie"). */
export function inCaseOf(typed: string, word: string): string {
  return /^\p{Lu}/u.test(typed) ? word.charAt(0).toUpperCase() + word.slice(1) : word;
}

/** Latin letters without their accents ("café" -> "cafe"); other scripts as they are (a Hangul syllable must not decompose). */
export function foldLatin(word: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(word) || !/\p{Script=Latin}/u.test(word)) return word;
  return word.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');
}

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (s === undefined) {
    s = new Intl.Segmenter(locale, { granularity: 'word' });
    segmenters.set(locale, s);
  }
  return s;
}

/** Letters of the scripts written without spaces between words. */
const SEGMENTED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** A text's words in order, lower-cased, split by its script: ICU's dictionary where words have no spaces between. */
function splitWords(text: string, language: Language): string[] {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const lower = text.toLowerCase();
  // A word starts with a letter or digit: a lone mark (an emoji's variation selector) is none.
  const pattern = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
  if (!SEGMENTED.test(lower)) return lower.match(pattern) ?? [];
  const locale = needsSegmenter(languageInfo(language).script) ? language : 'zh';
  const out: string[] = [];
  for (const s of segmenter(locale).segment(lower)) {
    if (s.isWordLike !== true) continue;
    for (const w of s.segment.match(pattern) ?? []) out.push(w);
  }
  return out;
}

/**
 * The language of a text: its main script first (Chinese when Han without kana, Japanese with kana, Korean, Russian
 * or Ukrainian by their letters, ...), then, for a script several languages share, the one whose stop words and
 * letters the text uses most. English is the default and wins ties: a text must show another language more
 * clearly than English ("Diego is a die-hard fan." has German's "die" but English's "is" and "a").
 */
export function detectLanguage(text: string, split?: readonly string[]): Language {
  let script: Script = 'other';
  let ascii = true;
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) script = /[a-z]/i.test(text) ? 'latin' : 'other';
  else {
    ascii = false;
    const counts = scriptCounts(text);
    const cjk = (counts.get('han') ?? 0) + (counts.get('kana') ?? 0);
    let best = 0;
    for (const [s, n] of counts) {
      if (s === 'han' || s === 'kana') continue;
      if (n > best) [script, best] = [s, n];
    }
    if (cjk > best) return (counts.get('kana') ?? 0) > 0 ? 'ja' : 'zh';
  }
  const candidates = languagesOf(script);
  if (candidates.length === 1) return candidates[0] as Language;
  const list = split ?? splitWords(text, candidates[0] as Language);
  const lower = ascii ? '' : text.toLowerCase();
  // Each language against the default, on the stop words only one of the two uses ("a" is English, Spanish and
  // Portuguese: no evidence either way), plus half a vote for its letters (a name such as "São João" has them too).
  const { others, leads } = votesOf(script, candidates);
  const lead = new Array<number>(others.length).fill(0);
  for (const w of list) {
    const delta = leads.get(w);
    if (delta !== undefined) for (let i = 0; i < delta.length; i++) lead[i]! += delta[i]!;
  }
  let chosen = candidates[0] as Language;
  let chosenLead = 0;
  others.forEach((language, i) => {
    const cues = languageInfo(language).cues;
    const total = (lead[i] ?? 0) + (cues !== undefined && !ascii && cues.test(lower) ? 0.5 : 0);
    if (total > chosenLead) [chosen, chosenLead] = [language, total];
  });
  // The default must be outvoted clearly: an English fact naming "Hospital de São João" stays English.
  if (chosenLead >= 1) return chosen;
  // A short text may hold no stop word at all ("Anna spielt jeden Sonntag Tennis."): when English knows none of its
  // words, their spelling tells (word-shapes.ts).
  if (script === 'latin') return languageByShapes(text, candidates.slice(1), stopWordsOf('en')) ?? (candidates[0] as Language);
  return candidates[0] as Language;
}

/**
 * Per script, what each stop word says of each language against the script's default (+1: only that language uses
 * it; -1: only the default does), so that detection reads a text's words once. Built on first use.
 */
const votes = new Map<Script, { others: Language[]; leads: Map<string, Int8Array> }>();
function votesOf(script: Script, candidates: readonly Language[]): { others: Language[]; leads: Map<string, Int8Array> } {
  let known = votes.get(script);
  if (known !== undefined) return known;
  const [first, ...others] = candidates as [Language, ...Language[]];
  const firstStops = stopWordsOf(first);
  const leads = new Map<string, Int8Array>();
  const all = new Set([...firstStops, ...others.flatMap((l) => [...stopWordsOf(l)])]);
  for (const w of all) {
    const delta = new Int8Array(others.length);
    others.forEach((language, i) => {
      const stops = stopWordsOf(language);
      if (stops.has(w) && !firstStops.has(w) && !DEFAULT_HOMOGRAPHS.has(w)) delta[i] = 1;
      else if (firstStops.has(w) && !stops.has(w)) delta[i] = -1;
    });
    if (delta.some((d) => d !== 0)) leads.set(w, delta);
  }
  known = { others, leads };
  votes.set(script, known);
  return known;
}

/**
 * Common English words that are also function words elsewhere: no evidence of the other language. With English as
 * chat types it: "u" (you; Spanish "or"), "wat" (what; Dutch).
 */
const DEFAULT_HOMOGRAPHS = new Set(['ya', 'em', 'son', 'die', 'was', 'will', 'also', 'so', 'man', 'war', 'hat', 'bin', 'see', 'fast', 'kind', 'come', 'con', 'per', 'plus', 'still', 'here', 'u', 'wat']);

/** Analyses a text: its language (given, or detected) and its words. */
export function analyzeText(text: string, language?: Language): TextAnalysis {
  if (language !== undefined) return { language, words: splitWords(text, language) };
  // Without Chinese, Japanese or Thai letters a text splits the same in every language: split it once.
  if (!SEGMENTED.test(text)) {
    const split = splitWords(text, 'en');
    return { language: detectLanguage(text, split), words: split };
  }
  const detected = detectLanguage(text);
  return { language: detected, words: splitWords(text, detected) };
}

/** The language whose rules apply to one word of a text: the text's, unless the word is in another script. */
function wordLanguage(word: string, language: Language): Language {
  const info = languageInfo(language);
  const script = scriptOf(word);
  if (script === 'other' || script === info.script || (script === 'han' && (language === 'ja' || language === 'zh'))) return language;
  if (script === 'kana' && language === 'zh') return 'ja';
  return defaultLanguageOf(script);
}

/** True for a stop word of the word's language (stop-words.ts), accents or not. */
export function isStopWordIn(word: string, language: Language): boolean {
  let cache = stopCaches.get(language);
  if (cache === undefined) {
    cache = new Map();
    stopCaches.set(language, cache);
  }
  let stop = cache.get(word);
  if (stop === undefined) {
    stop = isStopWordUncached(word, language);
    if (cache.size >= STEM_CACHE_LIMIT) cache.clear();
    cache.set(word, stop);
  }
  return stop;
}
const stopCaches = new Map<Language, Map<string, boolean>>();

function isStopWordUncached(word: string, language: Language): boolean {
  const own = wordLanguage(word, language);
  const stops = stopWordsOf(own);
  if (stops.has(word) || stops.has(foldLatin(word))) return true;
  // Korean lists stems: "어디에서" (where + at) is "어디".
  return own === 'ko' && stops.has(stemIn(word, own));
}

/** Words whose stems are kept between recalls, per language; past this the cache starts afresh (a vocabulary, not a leak). */
const STEM_CACHE_LIMIT = 50_000;
const stemCaches = new Map<Language, Map<string, string>>();

/**
 * A word's stem, as the word index holds it. English words are folded then stemmed by Porter, as recall has always
 * done; other languages' Snowball stemmers know their accents ("está", "français"), so they stem first and fold
 * after, and "esta" typed without its accent still meets "está".
 */
export function stemIn(word: string, language: Language): string {
  // Cached by the text's language: a word's own language follows from it and the word.
  let cache = stemCaches.get(language);
  if (cache === undefined) {
    cache = new Map();
    stemCaches.set(language, cache);
  }
  let stem = cache.get(word);
  if (stem === undefined) {
    const own = wordLanguage(word, language);
    const stemmer = languageInfo(own).stem;
    if (own === 'en') stem = stemmer ? stemmer(foldLatin(word)) : foldLatin(word);
    else stem = foldLatin(stemmer ? stemmer(word) : word);
    if (stem.length === 0) stem = word;
    if (cache.size >= STEM_CACHE_LIMIT) cache.clear();
    cache.set(word, stem);
  }
  return stem;
}

/**
 * The distinct terms of a text, in order of first use, at most `max` (a pasted page must not become a 2,000-term
 * query): stems of its words that are not stop words. The word index holds these for each memory, and a query
 * searches with them.
 */
export function termsOf(analysis: TextAnalysis, max = Infinity): string[] {
  const seen = new Set<string>();
  for (const word of analysis.words) {
    if (isStopWordIn(word, analysis.language)) continue;
    seen.add(stemIn(word, analysis.language));
    if (seen.size >= max) break;
  }
  return [...seen];
}

/** What the word index holds for a memory: its language and its distinct terms. Both backends index exactly these. */
export interface WordIndexEntry {
  language: Language;
  terms: string[];
}

export function wordIndexOf(text: string): WordIndexEntry {
  const analysis = analyzeText(text);
  return { language: analysis.language, terms: termsOf(analysis) };
}
