import { scriptOf } from './scripts.js';

/**
 * Whether one term is a part of the other, as a word of a compound is: German and Dutch write compounds as one
 * word ("Haselnussallergie" holds "allerg"), and Chinese and Japanese dictionary segmentation may cut a phrase
 * differently in a question and in a statement ("车" and "汽车", "看護師" and "看護"). Such a term is weaker evidence
 * than the term itself (the ranker gives it a share of its weight), and a short piece of an alphabetic word is no
 * evidence at all ("art" in "Bart"), so the shorter of the two must have a few letters, except in Han, where one
 * character is a word.
 */
export function isPartOf(term: string, stem: string): boolean {
  if (term === stem) return false;
  const [short, long] = term.length <= stem.length ? [term, stem] : [stem, term];
  const script = scriptOf(short);
  if (script !== scriptOf(long)) return false;
  const min = script === 'han' ? 1 : script === 'kana' || script === 'hangul' ? 2 : 5;
  if ([...short].length < min) return false;
  return long.includes(short);
}
