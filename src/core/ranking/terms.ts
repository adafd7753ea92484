import { porterStem } from './porter.js';

/**
 * Word terms of a query for the full-text side. Stop words are dropped: with OR-ed terms they would match almost
 * every memory and drown the words that carry the question.
 */
const STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by
  can could did do does doing down during each few for from further had has have having he her here hers herself him
  himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other
  our ours ourselves out over own same she should so some such than that the their theirs them themselves then there
  these they this those through to too under until up very was we were what when where which while who whom why will
  with would you your yours yourself yourselves s t ll d m re ve don didn doesn isn wasn weren won wouldn`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/**
 * Lower-cased words (letters and digits of any script), in order, with duplicates. Diacritics are removed, as the
 * store's full-text tokenizer (`unicode61 remove_diacritics 2`) removes them, so "café" and "cafe" are one term.
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

/** Distinct non-stop-word terms, at most `max` of them (a pasted page must not become a 2,000-term query). */
export function queryTerms(query: string, max = 32): string[] {
  const seen = new Set<string>();
  for (const word of words(query)) {
    if (isStopWord(word) || seen.has(word)) continue;
    seen.add(word);
    if (seen.size >= max) break;
  }
  return [...seen];
}

/** Words whose stems are kept between recalls; past this the cache starts afresh (a vocabulary, not a leak). */
const STEM_CACHE_LIMIT = 50_000;
const stemCache = new Map<string, string>();

/**
 * Stems, as the full-text index stores them. Memoised across recalls: every recall stems a few hundred memories,
 * and a user's memories (and all users' language) share most of their words.
 */
export class Stemmer {
  stem(word: string): string {
    let stem = stemCache.get(word);
    if (stem === undefined) {
      stem = porterStem(word);
      if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
      stemCache.set(word, stem);
    }
    return stem;
  }

  /** The distinct stems of a text's words. */
  stems(text: string): Set<string> {
    return this.stemsOf(words(text));
  }

  /** The distinct stems of words already split (a caller that needs the words too splits the text once). */
  stemsOf(words: readonly string[]): Set<string> {
    const stems = new Set<string>();
    for (const word of words) stems.add(this.stem(word));
    return stems;
  }
}
