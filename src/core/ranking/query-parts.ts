import { foldLatin, isStopWordIn, words } from '../text/analyze.js';
import { withoutFillers } from '../text/fillers.js';
import { escapeRegExp } from '../text/regexp.js';
import { askedClause, readSentences } from '../text/statements.js';
import { isCalendarWord, namesIn, NOT_NAMES } from './answer-kind.js';
import { intentsOf } from './intents.js';
import { oneRelativeIn } from './relatives.js';
import { knownEnglishWord } from './lexicon/known-words.js';
import { isCommonWord } from './lexicon/common-words.js';
import type { ScoredCandidate } from './types.js';

/** Parts of one message recalled at most: each costs a search and a ranking (all are embedded in one batch). */
export const MAX_QUERY_PARTS = 4;

/** Words that point at someone named before, or at the assistant, in the languages the sentence rules read best. */
const AT_SOMEONE = 'he|she|they|him|her|them|his|their|you|your|er|sie|ihm|ihn|ihr|ihre|du|dir|dich|dein|deine|él|ella|ellos|ellas|tú|te|usted|su|sus|il|elle|ils|elles|lui|leur|vous|tu';
/** Words that point at something said before ("is this the gout thing again"). */
const AT_SOMETHING = 'it|its|this|that|these|those|there|es|das|dort|eso|esto|allí|ahí|ça|cela';
const POINTS_BACK = new RegExp(String.raw`(?<![\p{L}\p{N}])(?:${AT_SOMEONE}|${AT_SOMETHING})(?![\p{L}\p{N}])`, 'iu');
const POINTS_AT_SOMEONE = new RegExp(String.raw`(?<![\p{L}\p{N}])(?:${AT_SOMEONE})(?![\p{L}\p{N}])`, 'iu');
const POINTS_AT_SOMETHING = new RegExp(String.raw`(?<![\p{L}\p{N}])(?:${AT_SOMETHING})(?![\p{L}\p{N}])`, 'giu');
/** Words that name nothing by themselves ("which one is it", "is it the same thing", "is that ok", "good idea?", "what day is it"). */
const NAMES_NOTHING = new Set(
  // And the kind of answer asked, which names no topic: "khat class with ostad, what day is it".
  'one ones thing things stuff kind sort type way again ok okay alright right wrong true good bad fine normal safe idea better worse day days date time year month week'.split(' '),
);

/**
 * A possessive or object pronoun may point at a noun before it in its own sentence ("Which weekends do the boys go
 * to their dad's?"): it points back at the message only when nothing in the sentence comes before it to point at
 * (a name, or a noun after "the", "my", "a": "What's her condition called?" points back).
 */
const OWN_ANTECEDENT = /(?:^|\s)(?:the|my|our|your|a|an)\s+\p{L}+|(?<=\S\s+)\p{Lu}\p{Ll}+/u;
const POSSESSIVE_OR_OBJECT = /(?<![\p{L}\p{N}])(?:his|her|their|its|him|them)(?![\p{L}\p{N}])/iu;

/**
 * "this", "that", "these", "next" before a span of time ("this weekend", "that week") point at the calendar, not at
 * something said before: "Am I on call this weekend?" stands alone.
 */
const DEICTIC_TIME =
  /(?<![\p{L}\p{N}])(?:this|that|these|those)\s+(?:(?:coming|past|whole)\s+)?(?:morning|afternoon|evening|night|weekend|weekends|week|weeks|month|months|year|years|summer|winter|spring|autumn|fall|season|time|monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?![\p{L}\p{N}])/giu;

function pointsBack(sentence: string): boolean {
  sentence = sentence.replace(DEICTIC_TIME, ' ');
  if (!POINTS_BACK.test(sentence)) return false;
  // Only possessives and objects among the pointing words, each after something of the sentence's own: not back.
  const pointing = [...sentence.matchAll(new RegExp(POINTS_BACK.source, 'giu'))];
  return pointing.some((m) => {
    if (!POSSESSIVE_OR_OBJECT.test(m[0])) return true;
    return !OWN_ANTECEDENT.test(sentence.slice(0, m.index));
  });
}

/**
 * A question that points back only at something, not at someone, and still names what it asks about ("... we had
 * a few lagers. is this the gout thing again", "what's the med i usually take for these"): its own words carry the
 * need, so it is read alone as well. One that points at someone ("Where do they live again?") or names nothing
 * ("which one is it") means nothing without what it points at.
 */
function namesItsTopic(question: string): boolean {
  const asked = question.replace(ASKS_THE_ASSISTANT, '');
  if (POINTS_AT_SOMEONE.test(asked.replace(DEICTIC_TIME, ' '))) return false;
  return words(withoutFillers(asked.replace(POINTS_AT_SOMETHING, ' '))).some((w) => !isStopWordIn(w, 'en') && !NAMES_NOTHING.has(w));
}

/**
 * The frame of a request to the assistant ("Can you remind me what I'm allergic to?"): its "you" is the assistant
 * and points back at nothing said before, so the question it frames stands alone.
 */
const ASKS_THE_ASSISTANT = /^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:remind|tell|show|let)\s+me\b|^(?:do|did)\s+you\s+(?:know|remember)\b|^(?:can|could)\s+you\s+(?:check|look up|find out)\b/iu;

/** English third-person singular pronouns, and the words after "her" that make it an object ("ask her about"), not a possessive. */
const PERSONAL_PRONOUN = /(?<![\p{L}'\u2019])(he|she|him|his|her)(?![\p{L}'\u2019])(\s+[\p{L}]+)?/giu;
const AFTER_OBJECT = /^\s+(?:to|for|about|with|again|up|out|in|on|at|from|into|now|today|tonight|so|and|or|if|when|too|back|over|off)$/iu;

/**
 * The question with "he", "she", "him", "his", "her" read as the one person its context names (namesIn: the first
 * capitalised word of a sentence counts when it is no common word: "Long day" names nobody, "Felix is coming" names
 * Felix, and "Mum's check-up went fine." names the relative, "my mum");
 * undefined when the context names nobody or several, or the question has no such pronoun or names someone itself.
 */
export function withNameFor(question: string, context: string): string | undefined {
  if ([...namesIn(question.replace(/^\P{L}*\p{L}/u, (m) => m.toLowerCase()))].some((n) => n !== 'i')) return undefined;
  // A sentence's first word is capitalised whatever it is: a common English word there names nobody ("Long day, ...",
  // "Rough night, Em was up ..."); common, since WordNet's lexicon also knows "Felix" and "Ibrahim".
  const opening = sentenceOpenings(context);
  const capitalised = [...namesIn(context)].filter((n) => !NOT_NAMES.has(n) && !isCalendarWord(n) && !(opening.has(n) && isCommonWord(n)) && !acronymIn(n, context));
  // Chat types names in lower case too ("kamande came home late again"): a sentence's first word no English reader
  // knows, where none is capitalised.
  const names = capitalised.length > 0 ? capitalised : lowerCaseNamesIn(context);
  // Nobody by name: the one relative the pronoun's gender can point at ("my mom's doctor called ... What does she
  // have?" -> "What does my mom have?").
  const relative = names.length === 0 ? relativeFor(question, context) : undefined;
  if (names.length !== 1 && relative === undefined) return undefined;
  const lower = names[0] ?? '';
  // The name as the context writes it ("Felix", "Mum").
  const name =
    relative !== undefined ? `my ${relative}` : (new RegExp(String.raw`(?<![\p{L}])(${escapeRegExp(lower)})`, 'iu').exec(context)?.[1] ?? lower);
  let changed = false;
  const out = question.replace(PERSONAL_PRONOUN, (_all, pronoun: string, next: string | undefined) => {
    changed = true;
    const word = pronoun.toLowerCase();
    const possessive = word === 'his' || (word === 'her' && next !== undefined && !AFTER_OBJECT.test(next));
    return `${possessive ? `${name}'s` : name}${next ?? ''}`;
  });
  return changed ? out : undefined;
}

/** Whether a name is written in capitals only, as an acronym ("the AC in the car", "the GP"): it names nobody. */
function acronymIn(name: string, context: string): boolean {
  const written = new RegExp(String.raw`(?<![\p{L}])${escapeRegExp(name)}(?![\p{L}])`, 'iu').exec(context)?.[0] ?? '';
  return written.length >= 2 && written === written.toUpperCase() && written !== written.toLowerCase();
}

/** The first words of a text's sentences, lower case. */
function sentenceOpenings(context: string): Set<string> {
  const openings = new Set<string>();
  for (const sentence of context.split(/[.!?;]\s+|\n+/u)) {
    const first = /^\s*["'“‘(]*(\p{L}+)/u.exec(sentence)?.[1];
    if (first !== undefined) openings.add(foldLatin(first.toLowerCase()));
  }
  return openings;
}

const FIRST_WORD = /^\s*(\p{Ll}{3,})(?=\s)/u;
const SUBJECT_OF_VERB = /^\s*(\p{Ll}{3,})\s+(?:\p{Ll}+(?:ed|s)|is|was|has|had|came|went|got|said|rang|left|took|made|called|phoned)(?![\p{L}])/u;

/** Sentences' first words in lower case that are no word the English reader knows ("njoroge wants to join ..."). */
function lowerCaseNamesIn(context: string): string[] {
  const names = new Set<string>();
  for (const { text, kind } of readSentences(context)) {
    for (const piece of text.split(/[.!?;,]\s+|\n+/u)) {
      // In small talk, only the subject of a verb ("kamande came home late again, the jam is terrible"): a greeting
      // names nobody ("bon dia!", "salam qardaş, just landed").
      const first = (kind === 'small-talk' ? SUBJECT_OF_VERB : FIRST_WORD).exec(piece)?.[1];
      if (first !== undefined && !knownEnglishWord(first)) names.add(first);
    }
  }
  return [...names];
}

/** The one relative the question's pronouns can point at by their gender (relatives.ts oneRelativeIn). */
function relativeFor(question: string, context: string): string | undefined {
  const female = /(?<![\p{L}'\u2019])(?:she|her)(?![\p{L}'\u2019])/iu.test(question);
  const male = /(?<![\p{L}'\u2019])(?:he|him|his)(?![\p{L}'\u2019])/iu.test(question);
  if (female === male) return undefined;
  // "What does she have?" asks nothing of a relative by itself: every memory about "my mom" would meet it fully
  // ("What does he do?" asks for a job: intents.ts).
  if (!words(withoutFillers(question)).some((w) => !isStopWordIn(w, 'en')) && intentsOf(question).length === 0) return undefined;
  return oneRelativeIn(context, female ? 'female' : 'male');
}

/** A day or a time of one a message names ("on Saturday", "tomorrow night", "this weekend", "on the 14th"). */
const WHEN =
  /(?<![\p{L}])(?:(?:this|next|on)\s+)?(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?:\s+(?:morning|afternoon|evening|night))?|tomorrow(?:\s+(?:morning|afternoon|evening|night))?|tonight|weekend|the\s+\d{1,2}(?:st|nd|rd|th))(?![\p{L}])/giu;
/** "then" for a time: not "and then", "since then", "by then" (a sequence, a span), nor "if ... then". */
const THEN = /(?<![\p{L}])(?<!\b(?:and|since|by|until|till|even|just|back|only)\s+)then(?![\p{L}])/iu;

/**
 * The question with "then" read as the one day or time its context names ("Bramble's got a vet appointment on
 * Saturday. Do I have anything on then?" -> "Do I have anything on Saturday?"); undefined when the context names
 * none or several, or the question has no such "then".
 */
export function withTimeFor(question: string, context: string): string | undefined {
  if (!THEN.test(question) || /^\s*if\b/iu.test(question)) return undefined;
  const named = [...context.matchAll(WHEN)].map((m) => m[0]);
  // One time, however often it is named ("on Saturday ... this Saturday").
  if (new Set(named.map((t) => t.toLowerCase().replace(/^(?:on|this|next)\s+/u, ''))).size !== 1) return undefined;
  return question.replace(THEN, (named[0] as string).replace(/^on\s+/iu, ''));
}

/**
 * What a chat message asks of the memory, part by part: the message itself, then each question or request (text/
 * statements.ts readSentences; greetings and small talk set aside) with the statements just before it ("Hana turns
 * eight soon. What is she into?"), and alone where it does not point back at them or points back at something but
 * names what it asks about (namesItsTopic); with `statements`, each
 * statement alone too (it may carry a need: "Dinner with my sister tonight."). At most `max` parts in all. The whole
 * message stays a part because a part may lean on another in ways the rules do not see.
 *
 * A message that is one part and nothing else (a clean question) is recalled as it is, once. A message of nothing
 * but small talk is recalled as it is too (its scores are low by themselves).
 */
export function queryParts(message: string, max = MAX_QUERY_PARTS, statements = false): string[] {
  const asks: string[] = [];
  const states: string[] = [];
  let context: string[] = [];
  // Every sentence before the current one, small talk too ("Ibrahim's off tonight for once!"), for whom "he" is.
  const earlier: string[] = [];
  for (const sentence of readSentences(message)) {
    earlier.push(sentence.text);
    if (sentence.kind === 'small-talk') continue;
    if (sentence.kind === 'statement') {
      states.push(sentence.text);
      context.push(sentence.text);
      continue;
    }
    // The question with the one person the message named before in place of "he" or "her" ("Felix is coming over
    // tonight. What does he do again?" -> "What does Felix do again?"), if it has such a pronoun and one such name.
    const before = earlier.slice(0, -1).join(' ');
    // The question itself where the sentence says more ("i wanted to ask where X lives because i can't remember").
    const asked = askedClause(sentence.text);
    const question = asked ?? sentence.text;
    const timed = withTimeFor(question, before);
    const resolved = withNameFor(question, before) ?? timed;
    if (context.length === 0 && resolved !== undefined && pointsBack(question)) {
      // Nothing before it to lean on: read with the name it points at, in its place.
      asks.push(resolved);
    } else if (context.length === 0 && earlier.length > 1 && pointsBack(question) && !POINTS_AT_SOMEONE.test(question) && !namesItsTopic(question)) {
      // It points back at something said before though that was no statement (a topic, "khat class with ostad, what
      // day is it"): alone it asks nothing of its own ("what day is it"), so only the message says what. One that
      // points at someone is still read alone (the person may be named in small talk: "Sreyneang got top marks
      // today, so happy!! What did she say she wants to be?").
    } else {
      // A question leans on the statements just before it ("Hana turns eight soon. What is she into?").
      asks.push([...context, sentence.text].join(' '));
      // Alone too, unless it points back at the statements or at the assistant ("What is she into?", "Any tips for
      // me, do you have some?"): then it means nothing without them, but may with the name it points at.
      // A "then" alone is read as the time the message named ("Am I free then?" -> "Am I free Saturday?").
      if ((context.length > 0 || asked !== undefined) && !pointsBack(question.replace(ASKS_THE_ASSISTANT, ''))) asks.push(timed ?? question);
      else if (resolved !== undefined) asks.push(resolved);
      else if (context.length > 0 && namesItsTopic(question)) asks.push(question);
    }
    context = [];
  }
  const parts = [...asks, ...(statements ? states : [])].filter((text) => text !== message.trim());
  return [...new Set([message, ...parts])].slice(0, Math.max(1, max));
}

/**
 * The parts' rankings as one: a memory scores by the part it answers best, lifted where a second part finds it too
 * (`agreement`: s1 + agreement x s2 x (1 - s1), s1 >= s2 its two best parts' scores); its explain names the best
 * part and the lift. A part that holds the best one, or is held by it (the message holds every part, a question with
 * its context the question alone), agrees for `nested` of its score only: finding a memory again through the same
 * words is weaker evidence than another question finding it. A memory no part found stays out. Sorted best first by
 * `compare`.
 */
export function fuseRankings(
  parts: readonly string[],
  rankings: readonly (readonly ScoredCandidate[])[],
  compare: (a: ScoredCandidate, b: ScoredCandidate) => number,
  agreement = 0,
  nested = 1,
): ScoredCandidate[] {
  const found = new Map<string, { best: ScoredCandidate; part: number; scores: number[] }>();
  rankings.forEach((ranking, i) => {
    for (const scored of ranking) {
      const id = scored.candidate.memory.id;
      const known = found.get(id);
      if (known === undefined) {
        const scores = parts.map(() => 0);
        scores[i] = scored.score;
        found.set(id, { best: scored, part: i, scores });
        continue;
      }
      known.scores[i] = Math.max(known.scores[i] ?? 0, scored.score);
      if (scored.score > known.best.score) {
        known.best = scored;
        known.part = i;
      }
    }
  });
  const holds = (a: string, b: string): boolean => a.includes(b) || b.includes(a);
  return [...found.values()]
    .map(({ best, part: i, scores }) => {
      const part = parts[i] ?? '';
      const second = Math.max(0, ...scores.map((score, j) => (j === i ? 0 : holds(parts[j] ?? '', part) ? nested * score : score)));
      const lift = agreement * second * (1 - best.score);
      const explained = best.parts ? { ...best.parts, part, ...(lift > 0 ? { agreement: Math.round(lift * 10_000) / 10_000 } : {}) } : undefined;
      return { ...best, score: Math.min(1, best.score + lift), ...(explained ? { parts: explained } : {}) };
    })
    .sort(compare);
}
