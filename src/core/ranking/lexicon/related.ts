/**
 * Related words for paraphrased questions: "what instrument does Gina play?" should find "Gina plays the cello",
 * "does he have a dog?" "Tom has a beagle". The relations come from WordNet 3.1 (synonyms, derivationally related
 * forms, hypernyms two levels up; built by tools/lexicon/build.ts, WordNet's licence in ./WORDNET-LICENSE), as
 * Porter stems, symmetric. Read on first use (about 6 MB); only the query's terms are ever looked up.
 */
import { readFileSync } from 'node:fs';

let entries: Record<string, string> | undefined;
const EMPTY: readonly string[] = [];

function lexicon(): Record<string, string> {
  entries ??= JSON.parse(readFileSync(new URL('./related.json', import.meta.url), 'utf8')) as Record<string, string>;
  return entries;
}

/** Stems related to a stem (not including itself); empty when WordNet knows none. */
export function relatedStems(stem: string): readonly string[] {
  const all = lexicon();
  const line = Object.hasOwn(all, stem) ? all[stem] : undefined;
  return line === undefined || line.length === 0 ? EMPTY : line.split(' ');
}

/** Whether WordNet knows a stem (as a word of its own, related to others or not). */
export function knownStem(stem: string): boolean {
  return Object.hasOwn(lexicon(), stem);
}
