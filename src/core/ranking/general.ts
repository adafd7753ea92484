/**
 * A question about the world, not about anyone the memories know: "how high is mount kenya", "what's the population
 * of tonga", "Is it safe to give a greyhound raw chicken wings?", "how do you say cheers in irish". A memory on its
 * topic ("The user wants to climb Mount Kenya before he turns 50.") shares its words and its meaning, yet holds no
 * answer: the assistant answers from what it knows. Read plainly, in English, from the question's frame and from
 * what it does not name: no pronoun, no relative, no possessive, no person the user's memories know. A question
 * about someone ("how many kids does sam have", "how long does she stay") is never general.
 */
import { foldLatin, isStopWordIn, words } from '../text/analyze.js';
import { escapeRegExp } from '../text/regexp.js';

/** How to say, spell, translate or call something ("what do you call a female reindeer"): the one frame where "you" is not the assistant as a person. */
const TRANSLATES = String.raw`^(?:how (?:do|does|can|should|would) (?:you|one|people|a|an|the) (?:say|spell|write|pronounce|translate)|what (?:do|does) (?:you|one|people) call (?:a|an|the))\b`;

/** What "what's the ..." asks about the world ("the population", "the best month"); they name nothing of the user's. */
const WORLD_NOUNS = 'population|capital|best|worst|biggest|largest|highest|tallest|longest|difference|meaning|origin|weather|forecast|price|cost|time|history|rules?|word|term|limit|temperature';

/** Frames that ask how things are in general (measures, the best or the usual, safety, words in another language). */
const FRAME = new RegExp(
  [
    String.raw`^how (?:many|much|long|high|tall|far|big|deep|heavy|often|fast|hot|cold|warm|wide|early|late)\b`,
    TRANSLATES,
    String.raw`^how (?:do|does|can) (?:a|an|the|\p{L}+s) \p{L}+`,
    // "whats" as typed; a word or two before the noun ("the surf forecast", "the manx word for", "the speed limit for").
    String.raw`^what(?:['\u2019]?s| is| are| was) (?:the|a|an) (?:\p{L}+ ){0,2}(?:${WORLD_NOUNS})\b`,
    String.raw`^what(?:['\u2019]?s| is| are| was) (?:the|a|an) (?:\p{L}+ ){1,2}for\b`,
    // The weather and the daylight: "is it gonna rain in bradford tomorrow", "what time does it get dark in whitehorse".
    String.raw`^(?:is|will|does) it (?:(?:going to|gonna) )?(?:rain|snow|freeze|be (?:sunny|cold|hot|warm|windy|wet|dry|nice))\b`,
    String.raw`^(?:what time|when) (?:does|do|is) (?:it|the sun) (?:get(?:ting)? (?:dark|light)|rise|set|sunrise|sunset)\b`,
    String.raw`^(?:is it|are they) (?:safe|ok|okay|true|bad|good|healthy|normal|legal|possible|dangerous|poisonous|toxic)\b`,
    String.raw`^(?:is|are) (?:a|an|\p{L}+s) (?:safe|ok|okay|bad|good|healthy|dangerous|poisonous|toxic)\b`,
    String.raw`^(?:where|why) (?:do|does|is|are) (?:the|a|an|\p{L}+s) \p{L}+`,
    String.raw`^what time is it\b`,
    String.raw`^(?:at )?(?:what|which) age (?:do|does|should|can|are|is)\b`,
    String.raw`^(?:can|could|should|do|does) (?:\p{L}+s|children) (?:eat|have|drink|take)\b`,
    String.raw`^what does (?:the word )?\p{L}+ mean\b`,
    String.raw`^(?:what|which) year (?:did|was|is|were)\b`,
    String.raw`^who (?:wrote|invented|discovered|won|founded|painted|directed|sang|composed|built|designed)\b`,
    String.raw`^who (?:is|was) the (?:president|prime minister|king|queen|author|director|founder|ceo|captain|coach|mayor)\b`,
  ].join('|'),
  'iu',
);

/** The frame's own words after "the", and words of the usual or the average: they name nothing of the user's. */
const FRAME_WORDS = new RegExp(`^(?:${WORLD_NOUNS}|name|usual|average|typical)$`, 'iu');

/** Words that put someone in the question: a pronoun, a relative, a possessive. */
const SOMEONE = new RegExp(
  String.raw`(?<![\p{L}])(?:i|me|my|mine|myself|we|us|our|ours|your|yours|he|him|his|she|her|hers|they|them|their|theirs|mum|mom|mother|dad|father|parents?|sons?|daughters?|kids?|children|child|baby|sister|brother|siblings?|husband|wife|partner|boyfriend|girlfriend|fianc[eé]e?|grand\p{L}+|aunt|uncle|cousin|niece|nephew|friends?|colleagues?|boss|family|dog|cat|pets?)(?![\p{L}])|\p{L}(?<!\b(?:what|that|it|there|here|who|where|when|how|let|he|she))['\u2019]s\b`,
  'iu',
);

/**
 * "you" asks the assistant about the world only in the frame that translates or spells ("how do you say ...");
 * elsewhere it is the assistant as a person ("how long have you known me"). "thank you" is a phrase, not the assistant
 * ("what's the manx word for thank you").
 */
const YOU = /(?<![\p{L}])(?<!thank )you(?![\p{L}])/iu;
const TRANSLATING = new RegExp(TRANSLATES, 'iu');

/**
 * A name a memory uses for a person, written with its capital: a speaker ("Caroline: ..."), someone greeted ("Hey
 * Mel!"), a possessive or a verb after it ("Sam's", "Sam works"), a relation or "named" before it. `name`: lower
 * case, without accents; `text`: the memory without accents (foldLatin), as names are read.
 */
function personIn(name: string, text: string): boolean {
  const escaped = escapeRegExp(name);
  const capital = `${escaped.charAt(0).toUpperCase()}${escaped.slice(1)}`;
  return new RegExp(
    String.raw`^${capital}:|(?:[Hh]ey|[Hh]i|[Hh]ello|[Tt]hanks|[Dd]ear)\s+${capital}(?![\p{L}])|(?<![\p{L}])${capital}(?:['\u2019]s?(?![\p{L}])|\s+(?:is|was|has|had|works|worked|lives|loves|likes|plays|goes|went|gets|takes|wants|needs|can|can['\u2019]t|doesn['\u2019]t|won['\u2019]t|hates|turns|turned|drives|speaks|stays|visits|runs|coaches|teaches|studies|supports)(?![\p{L}]))|(?:named|called|son|daughter|sister|brother|husband|wife|partner|friend|boyfriend|girlfriend|mum|mom|mother|dad|father|colleague|boss|cousin|nephew|niece|aunt|uncle|grandson|granddaughter)\s+${capital}(?![\p{L}])`,
    'u',
  ).test(text);
}

/**
 * A memory says whose the thing is: "my twins", "Manaia's touch rugby team", "User's car", and within a clause
 * "The user's truck is a 2017 Volvo FH" ("the volvo"), "Riaan's bakkie is a 2014 Toyota Hilux" ("the hilux").
 */
function owned(noun: string, text: string): boolean {
  const escaped = escapeRegExp(noun);
  return new RegExp(String.raw`(?:(?<![\p{L}])(?:my|our|his|her|their)|\p{L}['\u2019]s)\s+(?:[\p{L}\p{N}]+\s+){0,5}${escaped}(?![\p{L}])`, 'iu').test(text);
}

/** Bare plurals that name people or animals in general, and the words that say the question means them so. */
const GENERIC_PLURALS = /^(?:kids|children|babies|toddlers|teenagers|parents|siblings|grandparents|dogs|cats|pets)$/iu;
const IN_GENERAL = /(?<![\p{L}])(?:usually|typically|normally|generally|in general|on average|most)(?![\p{L}])|^(?:can|could|should|do|does) (?:kids|children|babies|toddlers|dogs|cats|pets) (?:eat|have|drink|take)\b/iu;

/**
 * "what age do kids usually start hurling", "how long do dogs typically live", "can dogs eat grapes": someone is in it
 * only as people or animals in general (a bare plural with "usually", "typically" ..., or as what can eat something),
 * not as anyone's.
 */
function aboutPeopleInGeneral(q: string): boolean {
  if (!IN_GENERAL.test(q)) return false;
  const found = [...q.matchAll(new RegExp(SOMEONE.source, 'giu'))].map((m) => m[0]);
  return found.length > 0 && found.every((w) => GENERIC_PLURALS.test(w));
}

/**
 * Whether an English question asks about the world rather than about someone: a general frame, and nobody in it
 * (`texts`: the texts of the user's memories that might answer it, whose people it must not name; a function is
 * called only when the frame is general).
 */
export function asksGeneral(question: string, texts: readonly string[] | (() => readonly string[])): boolean {
  const q = question.trim();
  if (!FRAME.test(q) || (SOMEONE.test(q) && !aboutPeopleInGeneral(q))) return false;
  if (YOU.test(q) && !TRANSLATING.test(q)) return false;
  // Read only for a question that could be general (most are not).
  const memories = typeof texts === 'function' ? texts() : texts;
  // A word of the question that a memory uses as a person's name ("how many kids does sam have": "Sam works ...").
  // Tested only in the memories that hold it: most hold none of a general question's words.
  const typed = words(q).filter((w) => w.length > 1 && !isStopWordIn(w, 'en'));
  for (const text of memories) {
    const folded = text.replace(/\p{L}+/gu, foldLatin);
    const lower = folded.toLowerCase();
    for (const word of typed) if (lower.includes(word) && personIn(word, folded)) return false;
  }
  // "the twins", "the dog": something of the user's when a memory says whose ("My twins turn 10 in May.").
  for (const m of q.matchAll(/(?<![\p{L}])the\s+(\p{L}+)(?:\s+(\p{L}+))?/giu)) {
    for (const noun of [m[1], m[2]]) {
      if (noun === undefined || isStopWordIn(noun.toLowerCase(), 'en') || FRAME_WORDS.test(noun)) continue;
      if (memories.some((text) => owned(noun, text))) return false;
    }
  }
  return true;
}
