/**
 * "I" and "my" in a query are the user. A user's memories state facts about them in three voices: first person
 * ("I'm allergic to peanuts."), third person with their name ("Ines is allergic to shellfish.") and an agent's note
 * ("User's sister lives in Porto."). A first-person question embeds close to the first; read as an agent's note
 * ("what is user allergic to?") it meets the others too. Reading it with the user's name instead (learned from "My
 * name is Ines") was measured worse: the name pulls every memory that names the user (chat precision 0.764 -> 0.703).
 */
import { escapeRegExp } from '../text/regexp.js';

/**
 * First-person words and what each becomes when the user is named instead (`$` stands for who). Subject and object
 * pronouns become it, possessives its possessive; English "am" next to "I" agrees ("what am I" -> "what is user").
 * Other languages change the pronoun only: the verb keeps its person, which the embedding reads past.
 */
const FIRST_PERSON: Readonly<Record<string, string>> = {
  // English
  i: '$',
  me: '$',
  myself: '$',
  my: "$'s",
  mine: "$'s",
  "i'm": '$ is',
  "i've": '$ has',
  "i'd": '$ would',
  "i'll": '$ will',
  // German
  ich: '$',
  mich: '$',
  mir: '$',
  mein: '$s',
  meine: '$s',
  meinen: '$s',
  meinem: '$s',
  meiner: '$s',
  meines: '$s',
  // Spanish
  yo: '$',
  mí: '$',
  mi: 'de $',
  mis: 'de $',
  // French
  je: '$',
  moi: '$',
  mon: 'de $',
  ma: 'de $',
  mes: 'de $',
  // Portuguese
  eu: '$',
  meu: 'de $',
  minha: 'de $',
  meus: 'de $',
  minhas: 'de $',
};

const WORD = /[\p{L}\p{M}]+(?:['\u2019][\p{L}]+)?/gu;

/** Whether the text speaks in the first person singular (a word of FIRST_PERSON). */
export function speaksAsSelf(text: string): boolean {
  for (const match of text.matchAll(WORD)) if (FIRST_PERSON[normalise(match[0])] !== undefined) return true;
  return false;
}

function normalise(word: string): string {
  return word.replace(/\u2019/g, "'").toLowerCase();
}

/**
 * The text with the user named where it says "I", "my", "me" ("what am I allergic to?" -> "what is user allergic
 * to?"); `undefined` when it has no first-person word. Spanish "mi" and French "ma" are only first person in their
 * own language; in an English text they are rare enough that reading them so is harmless.
 */
export function speakAsUser(text: string, name = 'user'): string | undefined {
  let changed = false;
  const out = text.replace(WORD, (word) => {
    const lower = normalise(word);
    const as = FIRST_PERSON[lower];
    if (as === undefined) return word;
    changed = true;
    return as.replaceAll('$', name);
  });
  if (!changed) return undefined;
  // English agreement: "am/was <name>" and "<name> am/was" read as the third person ("what am I" -> "what is Ines").
  return out
    .replace(new RegExp(String.raw`(?<![\p{L}])am (${escapeRegExp(name)})(?![\p{L}])`, 'gu'), 'is $1')
    .replace(new RegExp(String.raw`(?<![\p{L}])Am (${escapeRegExp(name)})(?![\p{L}])`, 'gu'), 'Is $1')
    .replace(new RegExp(String.raw`(?<![\p{L}'])(${escapeRegExp(name)}) am(?![\p{L}])`, 'gu'), '$1 is');
}
