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

/**
 * Stems, as the full-text index stores them. Memoised per stemmer instance: a recall stems a few hundred short
 * texts that share most of their words.
 */
export class Stemmer {
  readonly #cache = new Map<string, string>();

  stem(word: string): string {
    let stem = this.#cache.get(word);
    if (stem === undefined) {
      stem = porterStem(word);
      this.#cache.set(word, stem);
    }
    return stem;
  }

  /** The distinct stems of a text's words. */
  stems(text: string): Set<string> {
    return new Set(words(text).map((w) => this.stem(w)));
  }
}
