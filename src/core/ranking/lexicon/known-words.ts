import { isStopWordIn, stemIn } from '../../text/analyze.js';
import { informalForms } from '../../text/informal.js';
import { knownStem } from './related.js';

/**
 * A word the English reader knows (lower case): a stop word, a word of WordNet, an informal form ("arvo"). What it
 * does not know may be a typo (text/typos.ts) or a name typed in lower case (ranking/query-parts.ts).
 */
export function knownEnglishWord(word: string): boolean {
  if (isStopWordIn(word, 'en')) return true;
  const stem = stemIn(word, 'en');
  return knownStem(stem) || informalForms(stem).length > 0;
}
