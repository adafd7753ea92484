/**
 * Typos in what people type ("what am I alergic to", "when is my dentsit appointment"). One wrong letter in the word
 * that carries a question takes it away from both sides of recall: the word side finds no memory holding it, and the
 * model reads a word it does not know. Measured on the plain questions of the read chat sets with one letter swapped,
 * dropped or doubled in their longest content word: hit at the defaults 0.87 -> 0.36.
 *
 * A word is read as a typo of another only where that is close to certain: it is no word the reader knows (a stop
 * word, a word of the English lexicon, an informal form: `known`; an irregular verb form), it keeps its first letter,
 * and exactly one word is that close: one edit (a letter added, dropped, changed, or two neighbours swapped) for words
 * of 5 to 7 letters, two for longer ones. The words it may become are first the user's own memories (what the question
 * must meet), then, from 6 letters and one edit only, common English words (`common`). Shorter words are left as
 * typed, but for a possessive typed without its apostrophe ("whats Rafas job"). A capitalised word (a name) becomes
 * only a word of the memories ("Kwabnea" -> "Kwabena"), never a common word: in the chat probe's typo row, hit on
 * questions whose longest word is a name typed wrong rose 0.759 -> 0.782 of all, nothing returned for unanswerable
 * ones 0.899 -> 0.895 (a name the memories lack read as one they hold).
 */

import { foldLatin, inCaseOf } from './analyze.js';
import { porterStem } from './porter.js';

const WORD = /[\p{L}]+(?:['\u2019][\p{L}]+)?/gu;

/**
 * Irregular forms of common English verbs, which a lexicon of base forms does not know: "am I meant to" is no typo of
 * "meat", nor "wrote" of a name.
 */
const IRREGULAR = new Set(
  (
    'arose awoke awoken bore borne beat beaten became begun began bent bet bit bitten bled blew blown broke broken bred ' +
    'brought built burnt bought caught chose chosen clung came crept dealt dug dove drew drawn dreamt drank drunk drove ' +
    'driven ate eaten fell fallen fed felt fought found fled flung flew flown forbade forgot forgotten forgave forgiven ' +
    'froze frozen got gotten gave given went gone ground grew grown hung heard hid hidden held hurt kept knelt knew known ' +
    'laid led leant leapt learnt left lent lit lost made meant met paid proved proven quit rode ridden rang rung rose ' +
    'risen ran said saw seen sought sold sent shook shaken shone shot shown shrank shrunk shut sang sung sank sunk sat ' +
    'slept slid slung smelt spoke spoken sped spelt spent spilt spun spat split spoilt spread sprang sprung stood stole ' +
    'stolen stuck stung stank stunk strode struck strung swore sworn swept swam swum swung took taken taught tore torn ' +
    'told thought threw thrown trod trodden understood woke woken wore worn wove woven wept won wound wrote written ' +
    // Words of chat no lexicon of lemmas holds.
    'cannot gonna wanna gotta dunno kinda sorta lemme gimme outta innit'
  ).split(' '),
);

/** Edits allowed for a typed word of this length (0: never corrected). */
function editsFor(length: number): number {
  if (length < 5) return 0;
  return length < 8 ? 1 : 2;
}

/**
 * The optimal string alignment distance of a and b (Damerau-Levenshtein without repeated edits of a substring), or
 * max + 1 as soon as it must exceed max.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] as number) + 1);
      current.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The one candidate closest to word within max edits (word undefined when none is, or several are as close), and
 * every candidate at that distance.
 */
function closest(word: string, candidates: Iterable<string>, max: number): { word: string | undefined; distance: number; tied: string[] } {
  let tied: string[] = [];
  let bestDistance = max + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate, max);
    if (distance < bestDistance) {
      tied = [candidate];
      bestDistance = distance;
    } else if (distance === bestDistance && distance <= max) tied.push(candidate);
  }
  return { word: tied.length === 1 ? tied[0] : undefined, distance: bestDistance, tied };
}

/**
 * Each text's words, folded and as written, kept across recalls (a memory is read again at every recall of its
 * user). A few thousand texts only, so that long texts' words do not fill the heap of a long-running server.
 */
const wordsOfText = new Map<string, readonly (readonly [string, string])[]>();
const MAX_TEXTS = 2_000;

function wordsOf(text: string): readonly (readonly [string, string])[] {
  let words = wordsOfText.get(text);
  if (words === undefined) {
    words = [...text.matchAll(WORD)].filter((m) => m[0].length >= 4).map((m) => [foldLatin(m[0].toLowerCase()), m[0].toLowerCase()] as const);
    if (wordsOfText.size >= MAX_TEXTS) wordsOfText.clear();
    wordsOfText.set(text, words);
  }
  return words;
}

/** The words of texts (at least 4 letters) to correct typos to: lower case, by their form without accents. */
export function vocabularyOf(texts: readonly string[]): ReadonlyMap<string, string> {
  const vocabulary = new Map<string, string>();
  for (const text of texts) for (const [folded, written] of wordsOf(text)) vocabulary.set(folded, written);
  return vocabulary;
}

/** Letters English writes only in borrowed words and names ("Góðan morgun", "Dzień dobry"). */
const NOT_ENGLISH_LETTER = /[^a-z]/iu;

/**
 * The word before or after is written with letters English has not ("Góðan morgun"): the word is that language's
 * too, not an English word typed wrong ("morgue"). A word of the memories is still matched: names are written so.
 */
function besideForeignWord(text: string, offset: number, length: number): boolean {
  // A window around the word: the longest query is 16,000 characters, and this runs for every word that may be a typo.
  const before = /([\p{L}]+)[^\p{L}]*$/u.exec(text.slice(Math.max(0, offset - 40), offset))?.[1];
  const after = /^[^\p{L}]*([\p{L}]+)/u.exec(text.slice(offset + length, offset + length + 40))?.[1];
  return [before, after].some((word) => word !== undefined && NOT_ENGLISH_LETTER.test(word));
}

/**
 * The text with its typos corrected to the one word of `vocabulary` each is that close to; undefined when it has
 * none. `known(word)` (lower case) says whether a word is one the reader knows, and so is no typo.
 */
export function correctTypos(
  text: string,
  vocabulary: ReadonlyMap<string, string> | (() => ReadonlyMap<string, string>),
  known: (word: string) => boolean,
  common?: (firstLetter: string) => readonly string[],
): string | undefined {
  let changed = false;
  // Read only when a word may be a typo: most questions have none, and the memories' words cost more than the check.
  let read: ReadonlyMap<string, string> | undefined;
  const vocabularyNow = (): ReadonlyMap<string, string> => (read ??= typeof vocabulary === 'function' ? vocabulary() : vocabulary);
  let stems: ReadonlySet<string> | undefined;
  const stemsNow = (): ReadonlySet<string> => (stems ??= new Set([...vocabularyNow().keys()].map(porterStem)));
  const corrected = text.replace(WORD, (typed: string, offset: number) => {
    // A possessive is its word's ("alergist's"); other contractions ("she's", "don't") are as typed.
    const possessive = /['\u2019]s$/u.exec(typed)?.[0] ?? '';
    const word = typed.slice(0, typed.length - possessive.length);
    if (/['\u2019]/u.test(word)) return typed;
    const lower = foldLatin(word.toLowerCase());
    const edits = editsFor(lower.length);
    if (IRREGULAR.has(lower) || known(lower)) return typed;
    const capitalised = /^\p{Lu}/u.test(word);
    if (lower.length >= 4 && possessive === '' && lower.endsWith('s') && !vocabularyNow().has(lower)) {
      // A possessive typed without its apostrophe ("whats Rafas job", "my wifes car"): a name of the memories, or
      // (typed lower case) a word the reader knows, with an s.
      const base = lower.slice(0, -1);
      const written = vocabularyNow().get(base) ?? (!capitalised && known(base) ? base : undefined);
      if (written !== undefined) {
        changed = true;
        return `${inCaseOf(word, written)}'s`;
      }
    }
    // A word of the memories or a word the reader knows: as typed.
    if (edits === 0) return typed;
    const folded = vocabularyNow();
    if (folded.has(lower)) return typed;
    // A typo keeps its first letter far more often than not; a word with another first letter is another word.
    const mine = closest(lower, [...folded.keys()].filter((candidate) => candidate[0] === lower[0]), edits);
    let best = mine.word === undefined ? undefined : folded.get(mine.word);
    // No word of the memories that close (a lower-case name typed wrong is one of them): a common word one edit away,
    // for words of 6 letters or more. Shorter, borrowed words and slang ("satay", "noche", "durbs") are one edit from
    // too many common words; and a common word itself is no typo.
    if (mine.distance > edits && common !== undefined && lower.length >= 6 && !capitalised && !besideForeignWord(text, offset, typed.length)) {
      const words = common(lower[0] as string);
      if (!words.includes(lower)) {
        // Several common words as close ("studing": "studying", "studding"): the one that is a form of a word of the
        // memories ("studies"), if exactly one is.
        const near = closest(lower, words, 1);
        const forms = near.word === undefined ? near.tied.filter((candidate) => stemsNow().has(porterStem(candidate))) : [];
        best = near.word ?? (forms.length === 1 ? forms[0] : undefined);
      }
    }
    if (best === undefined) return typed;
    changed = true;
    return inCaseOf(word, best) + possessive;
  });
  return changed ? corrected : undefined;
}
