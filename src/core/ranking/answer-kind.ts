/**
 * The kind of answer a question asks for, when its words say so plainly: "What colour is Maria's car?" wants a
 * colour, "How old is Kenji?" a number, "What's Lena's brother called?" a name. A memory that holds no answer of
 * that kind cannot answer the question, however many of its words it shares ("Lena has a brother in Graz." for
 * the name): it is the near miss that makes an unanswerable question look answered.
 *
 * Only kinds whose answers are recognisable in text without a language model are checked, and only frames that
 * ask for them unambiguously. "Who", "which", "where" and "when did" are not: their answers are as often common words
 * ("her aunt", "at the gym") or the memory's own date as names and dates in the text (measured on the evaluation
 * sets: a third of LoCoMo's right answers to "who" questions hold no name). "How many" is not either: counting
 * questions are answered by several memories that each hold no number.
 */
import { foldLatin, words } from '../text/analyze.js';
import { informalWords } from '../text/informal.js';
import { escapeRegExp } from '../text/regexp.js';

export type AnswerKind = 'colour' | 'number' | 'measure' | 'name' | 'date' | 'time';

/** Things whose names are common words, not capitalised ones. */
const COMMON_NAMED =
  /\b(?:conditions?|illness(?:es)?|diseases?|diagnosis|allerg(?:y|ies)|pills?|tablets?|meds?|medications?|medicines?|drugs?|inhalers?|puffers?|jabs?|vaccines?|injections?|shots?|courses?|degrees?|dish(?:es)?|recipes?|breeds?|jobs?|positions?|roles?|sports?|instruments?|surgery|surgeries|operations?|procedures?)\b/u;

/** The kind of answer the query asks for, or undefined when its frame does not say. */
export function answerKindOf(query: string): AnswerKind | undefined {
  const q = query.toLowerCase().trim();
  if (/^(what|which)\b/u.test(q) && /\bcolou?rs?\b/u.test(q)) return 'colour';
  // A height, a depth or a weight is a number with its unit: "Matas is 15" says no height.
  if (/\bhow (tall|heavy|high|deep)\b/u.test(q)) return 'measure';
  if (/\bhow (old|much|far)\b|\bwhat age\b/u.test(q)) return 'number';
  // A condition, a pill or a course is called by a common word ("type 2 diabetes", "amlodipine", "a short course in
  // lash extensions"): only a name is capitalised.
  // "called" asks for a name after "what" ("what's her dog called"), not as a phone call ("Amma called about ...").
  if ((/\bnames?\b/u.test(q) || /\b(?:what|which)\b[^.!?]*\bcalled\b/u.test(q)) && !COMMON_NAMED.test(q)) return 'name';
  // The date of a birthday or an anniversary is in the text, never the day the memory was stored (unlike "When did
  // Caroline go to the support group?", whose answer is often the memory's own date).
  const terse = TERSE_WHEN.test(q);
  if ((/^(?:when|what date|which day)\b/u.test(q) || terse) && /\b(?:birthdays?|b-?days?|anniversary|anniversaries|born|due date|name day)\b/u.test(q)) return 'date';
  if (WHEN_NOW.test(q) || terse) return 'time';
  return undefined;
}

/**
 * When something happens, is due or recurs, how long it lasts or how often ("when's bub due", "what day does the
 * roster come out", "remind me when Ana sees her doctor", "how long is Dougie away each stint"): a memory that names
 * no time of any kind does not say ("Ana has type 1 diabetes."). Not "when did ...": its answer is often the day the
 * memory was stored, not a time in its text.
 */
const ASKED_OF_MEMORY = String.raw`(?:(?:can you )?(?:remind|tell) me|do you know|i forget|i forgot)`;
const WHEN_NOW = new RegExp(
  String.raw`^(?:${ASKED_OF_MEMORY}\s+when\s+(?!(?:did|was|were|had)\b|\S+\s+(?:last|first)\b)|(?:${ASKED_OF_MEMORY}\s+)?(?:when(?:['’]s| is| are| does| do| will| should| can| am)|what (?:day|days|date|time)|which (?:day|days|date)|wat (?:day|days|time)|how (?:long|often))\b)`,
  'u',
);
/** The terse form chat types: the question word last ("agus bday when", "kristina's grad is which day"). */
const TERSE_WHEN = /(?:^|\s)(?:when|what day|which day|what time|what date)\s*[?!.]*$/u;
/** A time of any kind besides a date or a weekday (isCalendarWord): a time of day, a season or a feast, a year, a frequency, a span. */
const TIME_WORDS = /\b(?:weekends?|weekdays?|weekly|monthly|yearly|annually|daily|nightly|fortnightly|fortnight|every|each|mornings?|afternoons?|evenings?|nights?|tonight|noon|midday|midnight|o['’]clock|spring|summer|autumn|fall|winter|christmas|easter|ramadan|eid|diwali|new year|weeks?|months?|years?|(?:19|20)\d\d|since|ago|once|twice|thrice|(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|few|several|couple of)\s+(?:days?|hours?|hrs?|minutes?|mins?|nights?)|\d{1,2}(?::\d\d)?\s?(?:am|pm|h)|\d{1,2}:\d\d)\b/iu;

/** A number and its unit of length, area or weight, in figures or words. */
const MEASURE = new RegExp(
  String.raw`(?:\d[\d.,]*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty|hundred|a few|several))\s?(?:-\s?)?(?:cm|mm|m|km|metres?|meters?|centimet(?:re|er)s?|kilomet(?:re|er)s?|miles?|mi|feet|foot|ft|inch(?:es)?|in|kg|kilos?|kilograms?|g|grams?|pounds?|lbs?|tonnes?|tons?|stone|hectares?|ha|acres?|m²|m2|km²|km2|sq\.? ?(?:m|ft|km))(?![\p{L}])|\d+\s?['’]\s?\d+`,
  'iu',
);

const COLOURS = new Set(
  `red orange yellow green blue purple violet pink brown black white grey gray silver gold golden beige navy teal
  turquoise maroon crimson cream ivory bronze copper tan khaki olive lilac lavender magenta cyan burgundy`.split(/\s+/u),
);
const NUMBER_WORDS = new Set(
  `one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen
  nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion dozen half`.split(/\s+/u),
);
const MONTHS = new Set(
  `january february march april may june july august september october november december jan feb mar apr jun jul aug sep
  sept oct nov dec`.split(/\s+/u),
);
/** The months and their short forms, as a regexp alternation. */
export const MONTH_NAMES = [...MONTHS].join('|');
/** A day of the month written with its month, either way round. */
export const DAY_OF_MONTH_SOURCE = String.raw`\b\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?\s+(?:${MONTH_NAMES})\b|\b(?:${MONTH_NAMES})\.?\s+\d{1,2}(?:st|nd|rd|th)?\b`;
const DAY_OF_MONTH = new RegExp(DAY_OF_MONTH_SOURCE, 'giu');

/** A birth in a month answers how old someone is ("had a baby girl, Aisulu, in August", "born on 3 May"). */
export const BIRTH = new RegExp(
  String.raw`\b(?:born|had (?:a|our|their|his|her) (?:baby|son|daughter)(?: (?:boy|girl))?(?:,? \p{L}+,?)?)\s+(?:in|on|last)\s+(?:the\s+)?(?:${MONTH_NAMES}|\d{1,2}(?:st|nd|rd|th)?\b)`,
  'iu',
);

/** Calendar words are capitalised but name no person, pet or place. */
const CALENDAR = new Set(
  `january february march april may june july august september october november december monday tuesday wednesday
  thursday friday saturday sunday`.split(/\s+/u),
);
/** Capitalised words that name nobody: the pronoun "I" (capitalised everywhere), an agent's word for the user. */
export const NOT_NAMES: ReadonlySet<string> = new Set(['i', 'user', 'users']);

/** A month or a weekday ("Saturdays" too): capitalised, but it names nobody. */
export function isCalendarWord(word: string): boolean {
  return CALENDAR.has(word) || CALENDAR.has(word.replace(/s$/u, ''));
}

/** Capitalised only because a sentence starts with them. */
const SENTENCE_STARTERS = new Set(
  `a an the i my we our he she they it this that these those there here his her their its right last since yesterday
  today tomorrow now every after before when while in on at for from with by during once later next then also still
  both each all some most many few one two as if so but and or not no yes hey hi hello thanks thank oh wow yeah well ok
  okay sure great what where who whom whose why how do does did am is are was were can could would will should shall
  may might must have has had good morning evening afternoon night omg ugh lol haha btw anyway quick just please sorry
  guess honestly seriously actually finally feels feeling hii hiii hiya heya yo`.split(/\s+/u),
);

/**
 * Proper names in a text (lower-cased, possessive dropped): capitalised words, except a sentence's first word when
 * it is a common one ("Currently", "Every", "The").
 */
export function namesIn(text: string): Set<string> {
  const names = new Set<string>();
  let sentenceStart = true;
  for (const token of text.match(/[\p{L}\p{N}]+(?:['\u2019][\p{L}]+)?|[.!?:;"\u201c\u201d]/gu) ?? []) {
    if (/^[.!?:;"\u201c\u201d]$/u.test(token)) {
      sentenceStart = true;
      continue;
    }
    const word = token.split(/['\u2019]/u)[0] ?? token;
    const first = word.charAt(0);
    if (first !== first.toLowerCase() && first === first.toUpperCase()) {
      // Normalised as the query's words are (lower case, no diacritics: "Chloé" is "chloe").
      const lower = words(word)[0] ?? word.toLowerCase();
      if (!sentenceStart || (!SENTENCE_STARTERS.has(lower) && !lower.endsWith('ly'))) names.add(lower);
    }
    sentenceStart = false;
  }
  return names;
}

/** What a text holds of each kind of answer: read once per text (the ranker keeps it with the text's reading). */
export interface AnswerFacts {
  /** Proper names (namesIn), calendar words left out. */
  names: ReadonlySet<string>;
  colour: boolean;
  /** An amount or an age: a digit that is not a year ("a 2017 Jetta" is a date), a number word, a currency sign. */
  number: boolean;
  /** A number with a unit of length, area, depth or weight ("1.82 m", "six feet", "40 kilos", "3 hectares"). */
  measure: boolean;
  /** A calendar date or part of one: a month, a day of the month ("the 14th", "18/10"), a year of birth, "next week". */
  date: boolean;
  /** A date, or any time: a weekday, an hour, a season, "every ..." (a question when something happens). */
  time: boolean;
}

export function answerFactsOf(text: string): AnswerFacts {
  const all = words(text);
  const names = namesIn(text);
  // "Saturdays" too: a calendar word in the plural names nobody either.
  for (const name of names) if (isCalendarWord(name)) names.delete(name);
  // A year of birth answers "How old ...?" ("Mia was born in 2019."), though a year is otherwise a date.
  // A year alone is a date of birth only when the text says so ("since 2021" is no birthday).
  const date =
    all.some((w) => MONTHS.has(w) || /^\d{1,2}(?:st|nd|rd|th)$/u.test(w)) ||
    /\bborn\b[^.!?]*\b(?:19|20)\d\d\b|\d{1,2}[./-]\d{1,2}|\b(?:next|last|this) (?:week|month|year)\b|\btomorrow\b|\btoday\b/iu.test(text);
  return {
    names,
    colour: all.some((w) => COLOURS.has(w)),
    date,
    time: date || all.some(isCalendarWord) || TIME_WORDS.test(text),
    measure: MEASURE.test(text),
    number:
      /[$€£¥]/u.test(text) ||
      /\bborn\b[^.!?]*\b(?:19|20)\d\d\b/iu.test(text) ||
      BIRTH.test(text) ||
      // The day of a date ("30 January", "May 9th") is no amount: "Callum's birthday is 30 January." says no age.
      words(text.replace(DAY_OF_MONTH, ' ')).some((w) => NUMBER_WORDS.has(w) || (/\d/u.test(w) && !/^(19|20)\d\d$/u.test(w))),
  };
}

/**
 * Whether a text holds an answer of the kind. `known`: names that cannot be the answer (the question's own, and the
 * ones that run through the whole pool: the user's own name).
 */
export function offersAnswer(kind: AnswerKind, facts: AnswerFacts, known: ReadonlySet<string>): boolean {
  switch (kind) {
    case 'colour':
      return facts.colour;
    case 'number':
      return facts.number;
    case 'measure':
      return facts.measure;
    case 'date':
      return facts.date;
    case 'time':
      return facts.time;
    case 'name':
      for (const name of facts.names) if (!known.has(name)) return true;
      return false;
  }
}

/** Animals, which are named by their breed as often as by their kind ("a rescue greyhound called Pickle"). */
const ANIMALS = ['dog', 'cat', 'horse', 'pony', 'pet', 'puppy', 'kitten'] as const;
/**
 * People, animals and a boat a question asks the name of by whom they belong to ("What's Lena's brother called?",
 * "whats the name of sadie's daycare teacher", "what are kourosh's twins called", "what's my mum's name").
 */
const NAMEABLE = [
  'sister|brother|sibling|wife|husband|partner|spouse|son|daughter|kid|child|children|twin|baby|boy|girl|mum|mom|mother|mam|mama|dad|father|papa|parent',
  'grandson|granddaughter|grandchild|grandchildren|grandmother|grandma|grandfather|grandpa|aunt|aunty|auntie|uncle|cousin|niece|nephew',
  'fianc[eé]e?|boyfriend|girlfriend|friend|mate|neighbou?r|teacher|boss|colleague|coach|doctor|vet|boat',
  ...ANIMALS,
].join('|');
const ASKS_NAME_OF = new RegExp(
  String.raw`(?:\p{L}['\u2019]s|(?<![\p{L}])(?:my|his|her|their|our))\s+(?:\p{L}+\s+){0,2}?(${NAMEABLE})(?:s|es|ren)?(?:['\u2019]s?)?(?:\s+(?:name|names|called)\b|\s+in\b|\s*[?!.]*$)`,
  'iu',
);

/** Words for the same one that the chat words (text/informal.ts) do not list ("auntie" for "aunt"). */
const SAME_ONE: readonly (readonly string[])[] = [
  ['aunt', 'aunty', 'auntie'],
  ['fiance', 'fiancee', 'fiancé', 'fiancée'],
  ['neighbour', 'neighbor'],
];

/** The one whose name a question asks by whom they belong to ("sister" of "What's Lena's sister called?"), if any. */
export function nameAskedOf(query: string): string | undefined {
  if (!/\b(?:names?|called)\b/iu.test(query)) return undefined;
  return ASKS_NAME_OF.exec(query)?.[1]?.toLowerCase();
}

/**
 * Whether a memory names the one asked of: a name beside the word for them ("User's sister Marta", "her brother,
 * Tomas,", "a dog called Rex", "Marta is my sister"), not merely a name anywhere ("Lena has a brother in Graz.").
 */
export function namesThe(noun: string, text: string, known: ReadonlySet<string>): boolean {
  // An animal is named by its breed as often as by its kind: any name will do.
  if ((ANIMALS as readonly string[]).includes(noun)) return true;
  // "mum" asks of "User's mother Rosa", "doctor" of "My GP is Dr Tamihana".
  const same = SAME_ONE.find((group) => group.includes(noun.replace(/é/gu, 'e'))) ?? informalWords(noun);
  const word = String.raw`(?:${same.join('|')})(?:s|es|ren)?`;
  const name = String.raw`(\p{Lu}[\p{L}'\u2019-]+)`;
  const beside = [
    // "her brother Tomas", "a baby girl called Rosie", "twin girls, Sara and Dara", "his wife is called Rashad".
    new RegExp(String.raw`(?<![\p{L}])${word}(?:\s+(?:girls?|boys?|sons?|daughters?))?(?:['\u2019]s name is|,)?\s+(?:(?:is|are|was|called|named)\s+){0,2}${name}`, 'gu'),
    new RegExp(String.raw`${name},?\s+(?:is|was|are)\s+(?:\p{L}+['\u2019]s|my|his|her|their|our|the user['\u2019]s)\s+(?:\p{L}+\s+)?${word}(?![\p{L}])`, 'gu'),
  ];
  const lowerText = text.replace(new RegExp(String.raw`(?<![\p{L}])${word}(?![\p{L}])`, 'giu'), (w) => w.toLowerCase());
  for (const pattern of beside) {
    for (const m of lowerText.matchAll(pattern)) {
      const found = (words(m[1] ?? '')[0] ?? '').toLowerCase();
      if (found !== '' && !known.has(found) && !isCalendarWord(found)) return true;
    }
  }
  return false;
}

/**
 * Names that cannot answer the query: its own words, and names in at least a quarter of the candidates (and three
 * of them): the person the memories are about is in most of them and is never the name asked for.
 */
export function knownNames(query: string, candidates: readonly AnswerFacts[]): Set<string> {
  return new Set([...words(query), ...NOT_NAMES, ...commonNames(candidates)]);
}

/** Names in at least a quarter of the candidates (and three of them): the person the memories are about. */
export function commonNames(candidates: readonly AnswerFacts[]): Set<string> {
  const counts = new Map<string, number>();
  for (const facts of candidates) for (const name of facts.names) counts.set(name, (counts.get(name) ?? 0) + 1);
  const common = Math.max(3, candidates.length / 4);
  return new Set([...counts].filter(([, count]) => count >= common).map(([name]) => name));
}

/** A question for someone's age ("how old is oskar", "what age is Tama now"). */
export const ASKS_AGE = /\bhow old\b|\bwhat age\b/iu;

/** An age in figures or words (intents.ts reads ages with it too). */
export const AGE_FIGURE = String.raw`(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)`;

/** A name as a text writes it, accents folded, and the text folded the same way ("bobik" is "Bobík"). */
function nameIn(asked: string, written: string, after = String.raw`(?![\p{L}])`): { who: string; text: string } {
  return { who: String.raw`(?<![\p{L}])${escapeRegExp(foldLatin(asked.toLowerCase()))}${after}`, text: foldLatin(written) };
}

/**
 * Whether a text states the age of the one it names as `name` (lower case), not someone beside them: "Oskar is 41",
 * "Fanja, 14,", "Vroni (40)", "a 9-year-old called Tam", "Mia was born in 2019"; not "Saga, Oskar's daughter, turns 5"
 * nor "Kirsteen's boys Gregor and Tam are 12 and 9".
 */
export function statesAgeOf(asked: string, written: string): boolean {
  // Not a possessive: "Oskar's daughter" is someone else.
  const { who, text } = nameIn(asked, written, String.raw`(?![\p{L}'\u2019])`);
  // Beside the name, or after a clause about them ("Illari, Wilmer's girl, is 3", "Loki, he's 23").
  const verb = String.raw`(?:is|was|are|were|turns?|turned|turning|will be|aged?|he['\u2019]s|she['\u2019]s|it['\u2019]s)\s+(?:almost\s+|nearly\s+|just\s+|now\s+)?`;
  const after = String.raw`(?:\s+(?:and|&)\s+\p{L}+)?(?:\s*,\s*(?:who(?:['\u2019]s| is)\s+)?|\s*,\s*[^,.;!?]{1,40},\s*${verb}|,?\s+${verb}|\s*\(\s*)${AGE_FIGURE}(?![\p{L}\d])`;
  return (
    new RegExp(who + after, 'iu').test(text) ||
    new RegExp(String.raw`${AGE_FIGURE}[- ](?:years?|yrs?|months?)[- ]old\s+(?:[\p{L}'\u2019-]+\s+){0,3}?${who}`, 'iu').test(text) ||
    new RegExp(String.raw`${who}[^.;!?]{0,40}\b(?:born|birth)\b`, 'iu').test(text) ||
    (new RegExp(who, 'iu').test(text) && BIRTH.test(text) && !new RegExp(String.raw`${who}['\u2019]s`, 'iu').test(text))
  );
}

/** A question for someone's birthday ("when is putu's birthday", "nigar's bday when"). */
export const ASKS_BIRTHDAY = /\b(?:birthdays?|b-?days?|born)\b/iu;

/**
 * Whether a text states the birthday of the one it names as `name` (lower case): "Putu's birthday is 3 May", "Putu
 * was born on 3 May 2021", "Putu turns 6 on 3 May"; not "Putu is 5 and starts school in July" nor "the wedding is
 * planned for 15 May" in a memory that names her.
 */
export function statesBirthdayOf(asked: string, written: string): boolean {
  const { who, text } = nameIn(asked, written);
  return (
    new RegExp(String.raw`${who}['\u2019]?s?\s+(?:\p{L}+\s+)?(?:birthday|bday|b-day)`, 'iu').test(text) ||
    new RegExp(String.raw`${who}[^.;!?]{0,80}\b(?:born|birthday|bday|turns?\s+\S+\s+on)\b`, 'iu').test(text) ||
    new RegExp(String.raw`\b(?:birthday|bday|born|birth|had (?:a|our|their|his|her) (?:baby|son|daughter))\b[^.;!?]{0,40}${who}`, 'iu').test(text)
  );
}
