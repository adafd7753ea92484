/**
 * Common English words (WordNet 3.1 lemmas tagged in its sense-tagged corpus, with their regular inflections; built by
 * tools/lexicon/build-words.ts, WordNet's licence in ./WORDNET-LICENSE), which a typo is corrected to when the
 * user's memories hold no word close to it (text/typos.ts). Read on first use (about 350 kB), by first letter.
 */
import { readFileSync } from 'node:fs';

let byFirstLetter: Map<string, string[]> | undefined;

/** The common words that start with `letter` (lower case). */
export function commonWordsFrom(letter: string): readonly string[] {
  if (byFirstLetter === undefined) {
    byFirstLetter = new Map();
    for (const word of readFileSync(new URL('./common-words.txt', import.meta.url), 'utf8').split('\n')) {
      if (word.length === 0) continue;
      const first = word[0] as string;
      const list = byFirstLetter.get(first);
      if (list === undefined) byFirstLetter.set(first, [word]);
      else list.push(word);
    }
  }
  return byFirstLetter.get(letter) ?? [];
}

let all: Set<string> | undefined;

/** Whether `word` (lower case) is a common English word ("long" is, "felix" is not, though WordNet knows Felix). */
export function isCommonWord(word: string): boolean {
  all ??= new Set([...'abcdefghijklmnopqrstuvwxyz'].flatMap((letter) => commonWordsFrom(letter)));
  return all.has(word);
}
