import { BORROWED_KIN } from '../text/informal.js';
/**
 * Which of the user's relatives a question asks about, and whether a memory is about another one: "How old is my
 * mom?" is not answered by "My daughter Itzel is 7.", nor "What's Kofi's wife called?" by "My brother Kofi runs a
 * barbershop in Hamilton.", though each shares the question's frame and the second even names Kofi. The names rule
 * (HybridRanker: otherPersonFactor) sees neither: the asked person has no name in the question.
 *
 * English only, and only the relations one word names plainly. A word for a group ("parents", "kids", "family",
 * "partner") asks about several people or about one of several words ("partner": a husband, a wife, ...): the rule
 * stands aside for it. In-laws and steps are their own relations ("mother-in-law" is not "mother").
 */

/** Each relation and the words for it, as typed (lower case). */
const RELATIONS = {
  // With the words for them that English chat borrows ("amma", "nonna", "tutu": text/informal.ts).
  mother: ['mother', 'mum', 'mom', 'mam', 'mama', 'mommy', 'mummy', 'ma', ...BORROWED_KIN.mother],
  father: ['father', 'dad', 'daddy', 'papa', 'pa', ...BORROWED_KIN.father],
  sister: ['sister', 'sis'],
  brother: ['brother', 'bro'],
  son: ['son'],
  daughter: ['daughter'],
  husband: ['husband', 'hubby'],
  wife: ['wife', 'wifey'],
  boyfriend: ['boyfriend', 'bf'],
  girlfriend: ['girlfriend', 'gf'],
  fiance: ['fiancé', 'fiance'],
  fiancee: ['fiancée', 'fiancee'],
  grandmother: ['grandmother', 'grandma', 'gran', 'granny', 'nan', 'nana', 'nanna', ...BORROWED_KIN.grandmother],
  grandfather: ['grandfather', 'grandpa', 'grandad', 'granddad', 'gramps', ...BORROWED_KIN.grandfather],
  aunt: ['aunt', 'auntie', 'aunty'],
  uncle: ['uncle'],
  cousin: ['cousin'],
  niece: ['niece'],
  nephew: ['nephew'],
} as const satisfies Record<string, readonly string[]>;

/** A relation a text names; "self" for a memory that states the user's own name (relativesOf). */
export type Relation = keyof typeof RELATIONS | 'self';

/** Every word for a relation, as one alternation. */
const RELATION_WORDS = Object.values(RELATIONS).flat().join('|');

/** A relation word, not the first part of an in-law or a compound ("mother-in-law", "grandmother" is its own). */
const WORD = new RegExp(
  String.raw`(?<![\p{L}-])(${RELATION_WORDS})s?(?![\p{L}]|-in-law|['\u2019]s?-in-law)`,
  'giu',
);
const RELATION_OF = new Map<string, Relation>(
  (Object.entries(RELATIONS) as [keyof typeof RELATIONS, readonly string[]][]).flatMap(([relation, words]) => words.map((w) => [w, relation] as const)),
);

/** The relations of a pattern's matches (its first group is a relation word). */
function relationsMatched(text: string, pattern: RegExp): Set<Relation> {
  const found = new Set<Relation>();
  for (const m of text.matchAll(pattern)) {
    const relation = RELATION_OF.get((m[1] as string).toLowerCase());
    if (relation !== undefined) found.add(relation);
  }
  return found;
}

/**
 * The pronoun each relation is pointed at by ("she" / "her", "he" / "him" / "his"; undefined: either). Typed over
 * RELATIONS, so a relation added there must say its gender here.
 */
const GENDER: Readonly<Record<keyof typeof RELATIONS, 'female' | 'male' | undefined>> = {
  mother: 'female',
  father: 'male',
  sister: 'female',
  brother: 'male',
  son: 'male',
  daughter: 'female',
  husband: 'male',
  wife: 'female',
  boyfriend: 'male',
  girlfriend: 'female',
  fiance: 'male',
  fiancee: 'female',
  grandmother: 'female',
  grandfather: 'male',
  aunt: 'female',
  uncle: 'male',
  cousin: undefined,
  niece: 'female',
  nephew: 'male',
};

/**
 * The one relative of a gender a text speaks of, as typed ("mom" in "my mom's doctor called"), for a pronoun that
 * points back at them; undefined when it names none of that gender or several.
 */
export function oneRelativeIn(text: string, gender: 'female' | 'male'): string | undefined {
  const found = new Map<Relation, string>();
  for (const m of text.matchAll(WORD)) {
    const typed = (m[1] as string).toLowerCase();
    const relation = RELATION_OF.get(typed);
    if (relation !== undefined && relation !== 'self' && GENDER[relation] === gender && !found.has(relation)) found.set(relation, typed);
  }
  return found.size === 1 ? [...found.values()][0] : undefined;
}

/** The relations a text names ("sister" for "my sis"). */
export function relationsIn(text: string): Set<Relation> {
  return relationsMatched(text, WORD);
}

/** Someone's relative a question asks about: "my mom", "Kofi's wife", "your sister" (the assistant's view of "my"). */
const ASKED = new RegExp(String.raw`(?:\b(?:my|our|your)|(?<=\p{L}['\u2019]s?))\s+(?:(?:little|younger|older|big|eldest|youngest|baby|twin)\s+)?(${RELATION_WORDS})(?![\p{L}-])`, 'giu');

/**
 * The relations a question asks about after "my" or a possessive ("my sister's husband": a sister and a husband; a
 * memory about either may answer it), empty when it asks about none.
 */
export function askedRelations(query: string): ReadonlySet<Relation> {
  return relationsMatched(query, ASKED);
}

/** The memory names relatives, none of them one the question asks about: it is about someone else. */
export function aboutOtherRelative(asked: ReadonlySet<Relation>, memoryRelations: ReadonlySet<Relation>): boolean {
  if (asked.size === 0 || memoryRelations.size === 0) return false;
  for (const relation of memoryRelations) if (asked.has(relation)) return false;
  return true;
}

/** The user's own name, as the user or an agent wrote it down ("My name is ...", "User's name is ..."). */
export const OWN_NAME = /^(?:my name is|my name's|i['\u2019]m called|(?:the )?user['\u2019]s name is|(?:the )?user is called)\b/iu;

/**
 * The relatives a memory is about, for a question about one: "self" for the user's own name, which answers no
 * question about a relative's ("What's my father's name?" over "User's name is Mateo Rojas.").
 */
export function relativesOf(text: string, named: ReadonlySet<Relation> = relationsIn(text)): ReadonlySet<Relation> {
  return OWN_NAME.test(text.trim()) ? SELF : named;
}
const SELF: ReadonlySet<Relation> = new Set<Relation>(['self']);

/**
 * A memory (that names nobody) about the user themself: "User's birthday is 30 April.", "My birthday is in May.",
 * "I'm allergic to latex." (a relative it names makes it about them: "My son ...").
 */
export function aboutUserAlone(text: string, relations: ReadonlySet<Relation>): boolean {
  if (relations.size > 0) return false;
  // "She supports Celtic." stored one by one is about the one the memories are about: the user, in the third person.
  // So is a memory that speaks as the user later in the sentence ("Each trip is 10 days and I get 4 days in port.").
  return (
    /^(?:(?:the )?user(?:['\u2019]s)?|my|i|i['\u2019](?:m|ve|d|ll)|she|he|she['\u2019]s|he['\u2019]s)(?![\p{L}])/iu.test(text.trim()) ||
    /(?<![\p{L}'\u2019])(?:i|i['\u2019](?:m|ve|d|ll)|my|me)(?![\p{L}'\u2019])/iu.test(text)
  );
}

/** A text about someone's relative, by the name it gives them first: "Ingrid's father is a Lutheran priest." */
const RELATIVE_OF_NAMED = new RegExp(String.raw`^(?:the\s+)?(\p{L}+)['\u2019]s?\s+(?:(?:little|younger|older|big|eldest|youngest|baby|twin|late)\s+)?(?:${RELATION_WORDS})s?(?![\p{L}-])`, 'iu');

/** The name (lower case) whose relative a text opens with ("ingrid" for "Ingrid's father is ..."), or undefined. */
export function relativeOfNamed(text: string): string | undefined {
  const name = RELATIVE_OF_NAMED.exec(text.trim())?.[1];
  // "User's mother ..." is the user's relative, by the note's word for them.
  return name === undefined || /^user$/iu.test(name) ? undefined : name.toLowerCase();
}
