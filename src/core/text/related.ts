import { analyzeText, termsOf } from './analyze.js';
import { CONCEPTS } from './concepts.js';
import type { Language } from './languages.js';

const NONE: readonly string[] = [];
const byLanguage = new Map<Language, ReadonlyMap<string, readonly string[]>>();

/** The terms of one language that share a concept (concepts.ts) with a term of that language, itself aside. */
function relatedIn(language: Language): ReadonlyMap<string, readonly string[]> {
  let related = byLanguage.get(language);
  if (related !== undefined) return related;
  const map = new Map<string, Set<string>>();
  const termsOfWords = (words: string): string[] =>
    [...new Set(words.split(/\s+/).flatMap((w) => (w.length === 0 ? [] : termsOf(analyzeText(w, language)))))];
  const relate = (from: readonly string[], to: readonly string[]): void => {
    for (const t of from) {
      const set = map.get(t) ?? new Set<string>();
      for (const other of to) if (other !== t) set.add(other);
      map.set(t, set);
    }
  };
  for (const concept of Object.values(CONCEPTS)) {
    const words = concept[language];
    if (words === undefined) continue;
    const [general = '', ...kinds] = words.split('|');
    const generalTerms = termsOfWords(general);
    const kindTerms = kinds.map(termsOfWords);
    relate(generalTerms, [...generalTerms, ...kindTerms.flat()]);
    for (const kind of kindTerms) relate(kind, [...generalTerms, ...kind]);
  }
  related = new Map([...map].map(([t, set]) => [t, [...set]]));
  byLanguage.set(language, related);
  return related;
}

/** For a query in `language`: the terms related to one of its terms (an empty list for a term in no concept). */
export function conceptRelated(language: Language): (term: string) => readonly string[] {
  const related = relatedIn(language);
  return (term) => related.get(term) ?? NONE;
}
