import type { Candidate } from '../store.js';
import { DEFAULT_CALIBRATION, modelLanguages, type ModelCalibration } from './calibration.js';
import { TermWeights } from './coverage.js';
import { relatedStems } from './lexicon/related.js';
import { knownEnglishWord } from './lexicon/known-words.js';
import { commonWordsFrom } from './lexicon/common-words.js';
import { dateSpanOf, dateSpansIn, inSpan, overlaps, type DateSpan } from './dates.js';
import { answerFactsOf, answerKindOf, ASKS_AGE, ASKS_BIRTHDAY, commonNames, knownNames, nameAskedOf, namesThe, NOT_NAMES, offersAnswer, statesAgeOf, statesBirthdayOf, type AnswerFacts } from './answer-kind.js';
import { asksGeneral } from './general.js';
import { frameCoveredBy, frameStemsOf, intentNames, intentsOf, type Intent } from './intents.js';
import { aboutOtherRelative, aboutUserAlone, askedRelations, OWN_NAME, relationsIn, relativeOfNamed, relativesOf, type Relation } from './relatives.js';
import { asksAboutNow, stripQuestionFrame, stripRequestFrame } from './question.js';
import { fuseRankings, MAX_QUERY_PARTS, queryParts } from './query-parts.js';
import { asksToChoose, impliedParts, type ImpliedPart } from './needs.js';
import { speakAsUser, speaksAsSelf } from './self.js';
import { standsOut, withStanding } from './standing.js';
import { analyzeText, isStopWordIn, stemIn, termsOf, words as queryWords } from '../text/analyze.js';
import type { Language } from '../text/languages.js';
import { isPartOf } from '../text/parts.js';
import { informalForms } from '../text/informal.js';
import { conceptRelated } from '../text/related.js';
import { withoutFillers } from '../text/fillers.js';
import { withApostrophes } from '../text/contractions.js';
import { correctTypos, vocabularyOf } from '../text/typos.js';
import type { QueryPlan, Ranker, ScoreParts, ScoredCandidate } from './types.js';

/** The tunable constants of the ranker (the values in use are DEFAULT_RANKER_PARAMS plus the model's calibration). */
export interface RankerParams {
  /** Candidates per side of the search (at least; more when a large `limit` asks for more). */
  depth: number;
  /** Memories per query term the word side reads (its cost is bounded by terms x this, whatever the user's size). */
  perTerm: number;
  /** Cosine at or below which a memory has no semantic evidence, and at or above which it has full evidence. */
  cosineFloor: number;
  cosineCeiling: number;
  /** Weight of semantic evidence; lexical coverage has the rest. */
  semanticWeight: number;
  /** Share of a query term's weight that a related word (WordNet, lexicon/related.ts) earns; 0 turns it off. */
  relatedCredit: number;
  /**
   * A query term WordNet relates to more than this many words ("work": 645, "instrument": 560) gives each of them
   * relatedCredit x relatedBreadth / count: a word among hundreds is weak evidence for the term.
   */
  relatedBreadth: number;
  /** Pseudo-memories added to the pool when weighing terms, so that a tiny pool (a new user) still weighs sensibly. */
  poolPrior: number;
  /** Discount of a memory read together with the turn before it, and with the turn after it. */
  contextBefore: number;
  contextAfter: number;
  /** Extra weight of the context before when that turn asks a question (the memory is then likely its answer). */
  answerLift: number;
  /**
   * Two memories are turns of one conversation (so each is read with the other) only when both carry the same
   * `conversationId` / `sessionId` in metadata, or when they were stored at most this many seconds apart and one of
   * them speaks as a conversation does (asks, or says I / we / you; see `speaks`). Facts an agent stores are
   * independent even when stored in one burst ("Maria's birthday is on 14 July." says nothing of the fact stored
   * a second later): a neighbour in storage order says nothing about them.
   */
  turnGapSeconds: number;
  /** Off: any two memories stored within turnGapSeconds are turns (the rule before the fact lists). */
  turnsMustSpeak: boolean;
  /**
   * How much of the context reading a memory may keep beyond its own evidence: evidence = own + contextShare x
   * (context - own). Below 1, a memory next to a perfect match cannot pass the threshold on its neighbour alone.
   */
  contextShare: number;
  /** Memories with fewer content words (stop words aside) get a discount of (count / briefWords)^briefExponent. */
  briefWords: number;
  briefExponent: number;
  /**
   * A long memory contains many words by chance (a pasted transcript covers half of any question): the word
   * coverage of a memory with more than lengthWords content words is multiplied by (lengthWords / count)^lengthExponent.
   */
  lengthWords: number;
  lengthExponent: number;
  /**
   * A memory that holds no answer of the kind the question asks for ("What colour...", "How old...", "...called?":
   * answer-kind.ts), nor does a turn of its conversation beside it, has its evidence multiplied by this (1: off).
   */
  answerKindFactor: number;
  /**
   * A question about someone by name ("When is Musa's birthday?") is not answered by a memory about someone else by
   * name ("Fatima's birthday is 3 March."): a memory that names people, none of them a name the query gives that
   * the user's memories know, and is not a turn of a conversation, has its evidence multiplied by this (1: off).
   */
  otherPersonFactor: number;
  /**
   * The same for a question about one of the user's relatives ("How old is my mom?", "What's Kofi's wife called?",
   * relatives.ts): a memory that names relatives, none of them one the question asks about ("My daughter Itzel is
   * 7."), and is not a turn, has its evidence multiplied by this (1: off). English only.
   */
  otherRelativeFactor: number;
  /**
   * An English question about the world, not about anyone the memories know ("how high is mount kenya", "Is it safe
   * to give a greyhound raw chicken wings?": general.ts) is answered by the assistant, not by a memory on its topic
   * ("The user wants to climb Mount Kenya ..."): every memory's evidence is multiplied by this (1: off).
   */
  generalFactor: number;
  /**
   * A memory that meets an English question about someone by name only through the name ("Does Marta have any
   * kids?" over "User's sister Marta lives in Porto."): none of the question's other words, nor a form or related
   * word of one, nor the kind of answer it asks for, and a cosine below nameOnlyCosine (a paraphrase of what is
   * asked still meets it in meaning). Its evidence is multiplied by this (1: off).
   */
  nameOnlyFactor: number;
  nameOnlyCosine: number;
  /**
   * A memory that asks a question and is not a turn of a conversation (an agent stored what the user asked: "Can I
   * eat peanut butter?") is no evidence of its answer: its evidence is multiplied by this (1: off), so it never
   * outranks the statement that answers it. Questions that are turns keep their weight (the answer beside them
   * lifts them: answerLift).
   */
  questionFactor: number;
  /**
   * A memory that only says the user's name ("User's name is Dorji Wangchuk.") answers a question about the name and
   * nothing else: for any other message its evidence is multiplied by this (1: off). Ranked first over a trip or a
   * visit ("me and pema wanna go over to my brother's place"), it took standing's lift from the memories that answer.
   */
  nameMemoryFactor: number;
  /** Added to memories stored on (or whose text names) the day or month the query names. */
  dateBonus: number;
  /**
   * For a question about the present ("Where does Lena live now?"), memories stored one by one (not turns of a
   * conversation) whose scores are this close and that cover the same query terms state the same thing about it:
   * the newer one (by updatedAt) ranks first (it is lifted to the older one's score; ties go to the newer).
   */
  supersedeMargin: number;
  /**
   * A memory far weaker than the best match of the same query is rarely what the asker means: its raw evidence is
   * multiplied by (evidence / best evidence)^bestGap (0 leaves scores independent of each other; the order of the
   * memories never changes).
   */
  bestGap: number;
  /** Piecewise-linear map from the raw evidence to the calibrated score: (raw, score) knots, increasing. */
  calibration: readonly (readonly [number, number])[];
  /**
   * The languages the embedding model understands ('all' for a multilingual model). Where the query or a memory is
   * in another language the model's cosine says little (USE-lite gives every Chinese sentence nearly the same
   * vector), so the words carry the evidence: the semantic weight is foreignSemanticWeight and the score map is
   * foreignCalibration.
   */
  languages: 'all' | readonly Language[];
  foreignSemanticWeight: number;
  /**
   * Share of a query term's weight that a word holding it as a part earns, or a word it holds ("allergisch" in
   * "Haselnussallergie", "车" in "汽车": text/parts.ts), in queries other than English.
   */
  partCredit: number;
  /** Share of a query term's weight that a word of the same everyday concept earns (text/concepts.ts), in queries other than English. */
  conceptCredit: number;

  foreignCalibration: readonly (readonly [number, number])[];
  /** Parts of a chat message recalled at most, the message itself included (query-parts.ts); 1 reads it whole. */
  maxQueryParts: number;
  /** Whether a message's statements are parts of their own (they may carry a need: "Dinner with my sister tonight."). */
  statementParts: boolean;
  /**
   * Parts of a message that find the same memory agree: its best part's score s1 is lifted by
   * partAgreement x s2 x (1 - s1), s2 its score in the next best part (0: the best part alone).
   */
  partAgreement: number;
  /**
   * How much of its score a part that holds the best part, or is held by it, agrees with (query-parts.ts
   * fuseRankings): the message and the question inside it find the same memories through the same words. 0.5 on the
   * unread chat-check-12 and -13: precision 0.721 -> 0.756 and 0.806 -> 0.840, hit unchanged; wrapped unanswerable
   * questions answered with nothing 0.72-0.77 -> 0.79-0.85 (0.875 asked alone: tools/eval/chat-probe.ts); the read
   * sets, whose rules were written under full agreement, lose 0.011-0.055 of hit.
   */
  nestedAgreement: number;
  /**
   * For a message typed as people type it (not one clean question, text/statements.ts isCleanQuestion) in a language
   * the model understands: each memory's score moves by standing x (its score - the best of the other memories'),
   * so the first rises by its margin and the rest fall by their distance below it (standing.ts). The model's
   * calibration's (0: off).
   */
  standing: number;
  /** Whether a request about food is also recalled as the questions it implies (needs.ts: allergies, diet). */
  impliedNeeds: boolean;
  /**
   * Read a first-person part as an agent's note too ("what am I allergic to?" -> "what is user allergic to?",
   * ranking/self.ts). Chat: hit at the defaults 0.467 -> 0.522, precision 0.764 -> 0.787 (no-need empty 0.767 ->
   * 0.733); reading it with the user's name instead pulled every memory naming them (precision 0.703).
   */
  selfParts: boolean;
  /** Read a part with its typos corrected to the user's words too (text/typos.ts). */
  typos: boolean;
  /** Put back the apostrophes of contractions typed without them ("whats", "im": text/contractions.ts). */
  apostrophes: boolean;
  /**
   * A first-person question ("what do I drive?") meets the facts stored about the user in the third person or as an
   * agent's notes ("User drives a grey Toyota Corolla.") further apart in meaning than the clean questions the score
   * map was fitted on ("What does Lukas drive?"): their evidence is multiplied by this (1: off). Memories in the first
   * person and turns of a conversation (LongMemEval: the user's own messages) are met as typed and keep theirs.
   */
  selfLift: number;
  /** English words as typed in chat count as the words memories are written in ("meds" / "medication", text/informal.ts). */
  informalWords: boolean;
  /** English chat fillers ("these days", "remind me", "again") are no query terms (text/fillers.ts). */
  dropFillers: boolean;
  /**
   * The word side's share of an implied question (needs.ts) that a memory on its topic earns at least: the question
   * is the rule's wording, not the user's, so its words say little of which memory answers it (0: off).
   */
  impliedCoverage: number;
  /**
   * A memory that states what an English question plainly asks about someone covers the question's frame words
   * (intents.ts: "How old is Emir?" over "Emir is 10", "what do I drive" over "Lukas's car is a van").
   */
  intentCovers: boolean;
}

/**
 * The names a chat message types in lower case ("how old is rudis", "what does dawit do"): its words that a memory of
 * the pool writes with a capital as a name ("Our dog Rudis ..."), and that are no everyday word (WordNet knows none of
 * them: "will", "rose" and "mum" stay words), no stop word and no relative. Looked for only in the memories that hold
 * the word, so a message without such names reads no memory's names.
 */
function typedNames(query: string, nameLike: readonly string[], features: readonly Features[], factsOf: (f: Features) => AnswerFacts): string[] {
  const capitalised = answerFactsOf(query).names;
  const found: string[] = [];
  for (const word of nameLike) {
    if (capitalised.has(word)) continue;
    const stem = stemIn(word, 'en');
    if (features.some((f) => f.reading.stems.has(stem) && factsOf(f).names.has(word))) found.push(word);
  }
  return found;
}

/** The words of an English query that could be a name: no stop word, relative or word WordNet or chat knows. */
function nameLikeWords(query: string): string[] {
  return [...new Set(queryWords(query))].filter((word) => word.length >= 3 && relationsIn(word).size === 0 && !knownEnglishWord(word));
}

/**
 * The names a query gives short ("tobe" for Tobenna, "agus" for Agustín, "zuza" for Zuzanna): a name-like word of three
 * letters or more that no memory of the pool holds, and that starts exactly one name the pool's memories write with a
 * capital. By the word's stem, the stems of that name (a memory that says "Tobenna" holds "tobe" as a form of it).
 */
function shortNames(nameLike: readonly string[], features: readonly Features[], factsOf: (f: Features) => AnswerFacts): Map<string, string> {
  const found = new Map<string, string>();
  const words = nameLike.filter((word) => {
    const stem = stemIn(word, 'en');
    return !features.some((f) => f.reading.stems.has(stem));
  });
  if (words.length === 0) return found;
  const names = new Set(features.flatMap((f) => [...factsOf(f).names]));
  for (const word of words) {
    const full = [...names].filter((name) => name.length > word.length && name.startsWith(word));
    if (full.length === 1) found.set(stemIn(word, 'en'), full[0] as string);
  }
  return found;
}

/**
 * Tuned with the evaluation suite (`npm run eval`: dialogue turns, facts stored in random order, long chat messages,
 * fact lists with unanswerable questions) for the default model; the cosine range and the calibration knots come
 * from the model's calibration (calibration.ts), fitted per model by `npm run calibrate`.
 */
export const DEFAULT_RANKER_PARAMS: RankerParams = {
  // 150 scored as 200 on LoCoMo (one conversation = ~600 memories) but lost 0.017 of recall@10 at 100,000
  // memories in one user (npm run bench), where near-duplicates crowd the vector side: kept at 200.
  depth: 200,
  perTerm: 400,
  cosineFloor: DEFAULT_CALIBRATION.cosineFloor,
  cosineCeiling: DEFAULT_CALIBRATION.cosineCeiling,
  semanticWeight: 0.4,
  // Tuned on the suite: a new user's handful of memories weigh terms as a pool of 20 more would.
  poolPrior: 20,
  // WordNet's relations are broad: at 0.3 they lifted paraphrased questions of fact lists (hit at the defaults
  // 0.75 -> 0.82) and cost nothing elsewhere; at 0.5 and above they let unrelated memories through.
  relatedCredit: 0.3,
  // Broad terms let off-topic questions through on a loose relation: at 30, off-topic questions answered with nothing
  // 0.960 -> 0.987 on LoCoMo turns, 0.837 -> 0.863 on LongMemEval (before the threshold's refit).
  relatedBreadth: 30,
  contextBefore: 0.7,
  contextAfter: 0.5,
  answerLift: 0.3,
  // Dialogue turns are stored seconds apart (LoCoMo 1 s, LongMemEval 2 s); an agent's facts minutes to months.
  turnGapSeconds: 120,
  turnsMustSpeak: true,
  contextShare: 1,
  // "Thanks!" (1 content word) x 0.85, 2 words x 0.94; "Alice is allergic to peanuts." (3) x 1.
  briefWords: 3,
  briefExponent: 0.15,
  lengthWords: 30,
  lengthExponent: 0.35,
  dateBonus: 0.2,
  // No memory of the suite's fact sets is a question, and those of its dialogue sets are turns: unchanged figures.
  questionFactor: 0.5,
  nameMemoryFactor: 0.5,
  // Fact lists: unanswerable questions answered with nothing 0.34 -> 0.43 at 0.6; nothing changed elsewhere (no
  // right answer of the suite lacks the kind its question asks for).
  answerKindFactor: 0.6,
  otherPersonFactor: 0.6,
  otherRelativeFactor: 0.6,
  // 0.7 -> 0.55: chat-check-4 unanswerable empty 0.667 -> 0.767 (0.7 moved it by nothing); no answerable message of the suite asks generally.
  generalFactor: 0.55,
  nameOnlyFactor: 0.8,
  nameOnlyCosine: 0.55,
  supersedeMargin: 0.15,
  // Fact lists: precision at the defaults 0.44 -> 0.60 for a hit rate 0.82 -> 0.78; dialogue sets lose 0.01-0.02 of
  // their hit rate. A memory far below the best match is rarely what the asker meant (the order never changes).
  bestGap: 0.5,
  calibration: DEFAULT_CALIBRATION.knots,
  standing: DEFAULT_CALIBRATION.standing ?? 0,
  languages: modelLanguages(DEFAULT_CALIBRATION),
  foreignSemanticWeight: 0,
  // Words-only path, fitted on the suite's fact sets in eight languages (0.5 -> 0.75: hit at the defaults 0.528 ->
  // 0.552, unanswerable questions answered with nothing 0.639 -> 0.611).
  partCredit: 0.75,
  // 0 -> 0.5: recall@5 0.788 -> 0.831 on those sets; above it, near-miss questions pass on a related word.
  conceptCredit: 0.5,
  foreignCalibration: DEFAULT_CALIBRATION.foreignKnots ?? DEFAULT_CALIBRATION.knots,
  // The message and up to three of its sentences: chat messages rarely hold more needs, and each part costs a search.
  maxQueryParts: MAX_QUERY_PARTS,
  // Off: alone, a statement pulled other memories of LongMemEval's long questions into the top 10 ("I've been feeling
  // nostalgic lately.": recall@10 0.929 -> 0.857 on its 7 questions of several sentences); a question carries the
  // statements before it instead.
  statementParts: false,
  // Chat set: multi-sentence messages answered right at the defaults 0.53 -> 0.60 (precision 0.89 -> 0.86), German and
  // Spanish 0.25 -> 0.33; single questions are one part and unchanged.
  // 0.4 -> 0.7 once a message had more parts (implied needs, a pronoun read as its name): chat hit 0.811 -> 0.844
  // (precision 0.817 -> 0.792), chat-check 0.741 -> 0.778, chat-check-2 0.667 -> 0.711 (precision 0.824 -> 0.774);
  // no-need messages and every English set unchanged, chat-de-es precision 0.938 -> 0.882.
  partAgreement: 0.7,
  nestedAgreement: 0.5,
  impliedNeeds: true,
  selfParts: true,
  typos: true,
  apostrophes: true,
  // Chat (tuning): hit at the defaults 0.667 -> 0.711 (multi-sentence messages 0.633 -> 0.700), unanswerable messages
  // answered with nothing 0.767 -> 0.733; chat-check's multi-sentence messages 0.833 -> 0.944. No English set moved by
  // more than 0.005 (LoCoMo's questions are in the third person, LongMemEval's memories are turns).
  selfLift: 1.1,
  // chat 0.767 -> 0.778, chat-check 0.667 -> 0.685, chat-check-2 (never read) 0.611 -> 0.644 of hits; people-facts 0.740 -> 0.744.
  informalWords: true,
  dropFillers: true,
  impliedCoverage: 0.5,
  // Age and job (the first two intents): people-facts hit 0.744 -> 0.758 (precision 0.655 -> 0.640), people-facts-2
  // 0.659 -> 0.689, chat-check-2 0.644 -> 0.667. Home, vehicle, reading, study: people-facts 0.758 -> 0.767,
  // people-facts-3 0.654 -> 0.684, chat 0.789 -> 0.811, chat-check 0.722 -> 0.741, chat-check-2 unchanged. A team
  // intent was dropped: "She supports Celtic." answered people-facts-3's unanswerable "Which team does Kirsty support?".
  intentCovers: true,
};

/** The ranker's parameters for a model: the defaults with the model's cosine range and score map. */
export function paramsFor(calibration: ModelCalibration, overrides: Partial<RankerParams> = {}): RankerParams {
  return {
    ...DEFAULT_RANKER_PARAMS,
    cosineFloor: calibration.cosineFloor,
    cosineCeiling: calibration.cosineCeiling,
    calibration: calibration.knots,
    standing: calibration.standing ?? 0,
    languages: modelLanguages(calibration),
    foreignCalibration: calibration.foreignKnots ?? calibration.knots,
    ...overrides,
  };
}

const NO_RELATIONS: ReadonlySet<Relation> = new Set();
/** A message about a group: any relative's restriction may settle its needs ("a dinner for the family"). */
const GROUP = /(?<![\p{L}])(?:family|families|kids|children|everyone|everybody|all of us|us|we|our|guests|friends|girls|boys|the whole|party|together|in-laws|parents|relatives)(?![\p{L}])/iu;

/**
 * Two written forms of one name: equal, one the start of the other ("Mel", "Melanie"), or inflected ("Annas",
 * "Anna"; "Анны", "Анна": Russian and German decline names, and a possessive is not split off by an apostrophe).
 */
export function sameName(a: string, b: string): boolean {
  if (a === b) return true;
  const shorter = a.length <= b.length ? a : b;
  const longer = shorter === a ? b : a;
  if (shorter.length >= 3 && longer.startsWith(shorter)) return true;
  let common = 0;
  while (common < shorter.length && a[common] === b[common]) common++;
  return common >= 3 && longer.length - common <= 2;
}

/** A memory that says the user's name and nothing else ("User's name is Benedikt Aigner, but everyone calls him Bene."). */
function namesUserOnly(text: string): boolean {
  return OWN_NAME.test(text.trim()) && !/\band\b|;/iu.test(text) && text.split(/\s+/u).length <= 12;
}

/** A question about the user's own name. */
const ASKS_OWN_NAME = /\bmy (?:full |first |last |middle |maiden )?name\b|\bwhat am i called\b|\bwho am i\b/iu;

/**
 * The user's own names: those in most of the memories (commonNames), and those a memory writes down as theirs
 * ("User's name is Ayelet Mizrahi."). `facts`: each text's answer facts, as the ranker keeps them.
 */
function userNamesOf(texts: readonly string[], facts: readonly AnswerFacts[]): ReadonlySet<string> {
  const names = commonNames(facts);
  texts.forEach((text, i) => {
    if (OWN_NAME.test(text.trim())) for (const name of (facts[i] as AnswerFacts).names) names.add(name);
  });
  return names;
}

/** "Melanie's friend", "Tom's kids", "his sister": the question is about a relative of the person it names. */
const ASKS_ABOUT_RELATIVE =
  /['\u2019]s?\s+(?:(?:best|old|new|little|younger|older|big|eldest|youngest|late|ex|step|twin|close)[\s-]+)?(?:friends?|sisters?|brothers?|siblings?|mother|mum|mom|father|dad|parents?|sons?|daughters?|kids?|children|child|babies|baby|husband|wife|partner|spouse|boyfriend|girlfriend|fianc[eé]e?|colleagues?|coworkers?|co-workers?|boss|manager|neighbou?rs?|cousins?|aunts?|uncles?|grand(?:ma|pa|mother|father|parents?|son|daughter|children|kids?)|nieces?|nephews?|family|in-laws?|roommates?|flatmates?|students?|teachers?|team(?:mates?)?|pets?|dogs?|cats?)(?![\p{L}])/iu;

/** Implied questions (needs.ts) recalled at most for one message, beside its typed parts (MAX_QUERY_PARTS). */
export const MAX_IMPLIED_PARTS = 3;

/** Query terms at most (a pasted page must not become a 2,000-term query). */
const MAX_QUERY_TERMS = 32;

/** What the ranker derives from one candidate before combining. */
interface Features {
  candidate: Candidate;
  /** What its text says alone (stems, asks, speaks, content words), shared between recalls: readText. */
  reading: TextReading;
  semantic: number;
  time: number;
  thread: string | undefined;
}

/** First- and second-person words: turns of a conversation use them, the facts an agent writes about a user do not. */
const PERSONAL = new Set(['i', 'me', 'my', 'mine', 'myself', 'we', 'us', 'our', 'ours', 'you', 'your', 'yours']);

/** What the ranker reads from a memory's text alone (shared between recalls: only `answers` is ever added, once). */
interface TextReading {
  /** The text's language (text/analyze.ts): its words are split and stemmed by its rules. */
  language: Language;
  stems: Set<string>;
  asks: boolean;
  /** Written as a turn of a conversation: asks, or speaks in the first or second person. */
  speaks: boolean;
  /** Words other than stop words. */
  contentWords: number;
  /** Says "I" or "my" (self.ts): the user's own words, which a first-person question meets as typed. */
  self: boolean;
  /** Read on the first question that asks for a kind of answer (answer-kind.ts). */
  answers?: AnswerFacts;
  /** Which intents (intents.ts) the text states, as far as questions have asked. */
  intents?: Map<Intent, boolean>;
  /** The relatives the text names (relatives.ts), read on the first question about one. */
  relations?: ReadonlySet<Relation>;
}

/**
 * Readings by text. Splitting and stemming the candidates' texts was nearly half of the ranking's time, and recalls
 * read the same memories again and again (a user's, and the same texts in many users'). Keyed by the text itself,
 * so an edited memory is read afresh; past either bound the cache starts afresh (a working set, not a leak).
 */
const readings = new Map<string, TextReading>();
const READINGS_LIMIT = 20_000;
const READINGS_CHARS_LIMIT = 8_000_000;
let readingsChars = 0;

function readText(text: string): TextReading {
  const known = readings.get(text);
  if (known !== undefined) return known;
  const { language, words: all } = analyzeText(text);
  const asks = isQuestion(text);
  const reading: TextReading = {
    language,
    stems: new Set(all.map((w) => stemIn(w, language))),
    asks,
    speaks: asks || all.some((w) => PERSONAL.has(w)),
    contentWords: all.filter((w) => !isStopWordIn(w, language)).length,
    self: speaksAsSelf(text),
  };
  if (readings.size >= READINGS_LIMIT || readingsChars + text.length > READINGS_CHARS_LIMIT) {
    readings.clear();
    readingsChars = 0;
  }
  readings.set(text, reading);
  readingsChars += text.length;
  return reading;
}

/** A turn that ends by asking something (closing quotes, brackets and spaces aside). */
export function isQuestion(text: string): boolean {
  return /[?\uff1f\u061f]["'\u201d\u2019\u300d\u300f)\]\s]*$/u.test(text);
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** Piecewise-linear interpolation through increasing knots, flat beyond the ends. */
export function piecewise(knots: readonly (readonly [number, number])[], x: number): number {
  const first = knots[0];
  const last = knots[knots.length - 1];
  if (first === undefined || last === undefined) return x;
  if (x <= first[0]) return first[1];
  for (let i = 1; i < knots.length; i++) {
    const [x1, y1] = knots[i] as readonly [number, number];
    const [x0, y0] = knots[i - 1] as readonly [number, number];
    if (x <= x1) return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return last[1];
}

/** The conversation a memory says it belongs to (a client may send one), if any. */
function threadOf(metadata: Record<string, unknown>): string | undefined {
  for (const key of ['conversationId', 'sessionId', 'threadId']) {
    const value = metadata[key];
    if (typeof value === 'string' || typeof value === 'number') return `${key}:${value}`;
  }
  return undefined;
}

/**
 * The recall ranker. Each candidate's score is an absolute measure of evidence (never min-max normalised per
 * query), so that one threshold means the same thing for every query and an unrelated question scores low
 * everywhere; the best match of the query only ever lowers the others (step 5):
 *
 * 1. semantic = clamp((cosine - cosineFloor) / (cosineCeiling - cosineFloor), 0, 1), with the query embedded
 *    without its question frame ("When did Jo move" -> "Jo move"); the two constants are the model's;
 * 2. words = idf-weighted coverage of the query's terms (Porter stems, stop words dropped; WordNet's related words
 *    earn relatedCredit) by the memory (see coverage.ts), in [0, 1], discounted for a memory of more than
 *    lengthWords content words (a long text contains many words by chance);
 * 3. own = semanticWeight x semantic + (1 - semanticWeight) x words;
 * 4. turns of one conversation answer each other ("Which team did you sign with?" / "The Wolves!"), so a memory
 *    stored within turnGapSeconds of its neighbour (or in the same conversation, by metadata) is also read
 *    together with it: the same formula over both, discounted by contextBefore (x (1 + answerLift) when the turn
 *    before asks a question) or contextAfter; evidence = own + contextShare x max(0, context - own);
 * 5. e = evidence x brevity (a memory with almost no content words, "Thanks!", rarely answers anything)
 *    + dateBonus when the query names a calendar day or month and the memory was stored then or names it,
 *    x answerKindFactor when the question asks for a colour, a number, a name, a date or a time and neither the memory nor a turn
 *    beside it holds one (answer-kind.ts);
 *    raw = e x (e / best e of the query)^bestGap: a memory far weaker than the best match is rarely meant;
 * 6. score = the model's piecewise-linear map of raw to [0, 1], fitted so that unrelated and unanswerable
 *    questions stay below the default minScore 0.7 while answerable ones reach it.
 *
 * Then, for a question about the present ("now", "currently"), memories that state the same thing about it (close
 * scores, the same query terms covered, not turns of one conversation) are ordered newer first. Other ties go to the
 * higher cosine, then the newest (last updated, then created): see compareScored.
 */
export class HybridRanker implements Ranker {
  readonly params: RankerParams;

  constructor(params: Partial<RankerParams> = {}) {
    this.params = { ...DEFAULT_RANKER_PARAMS, ...params };
  }

  parts(typed: string): string[] {
    // Contractions typed without their apostrophe ("whats", "im", "dont") read as written (text/contractions.ts).
    const query = this.params.apostrophes && analyzeText(typed).language === 'en' ? withApostrophes(typed) : typed;
    const parts = this.#typedParts(query);
    // Each part costs a search (two when it speaks in the first person): a message that touches every need
    // ("dinner, training and a trip this weekend") is read for the first MAX_IMPLIED_PARTS of them, food first.
    return [...parts, ...this.#implied(query, parts).slice(0, MAX_IMPLIED_PARTS).map((part) => part.text)];
  }

  /** The parts of what the person typed (query-parts.ts). */
  #typedParts(message: string): string[] {
    return queryParts(message, this.params.maxQueryParts, this.params.statementParts);
  }

  /** The message's implied questions that are not parts it typed (a typed "What am I allergic to?" is read as typed). */
  #implied(message: string, typed: readonly string[]): ImpliedPart[] {
    if (!this.params.impliedNeeds) return [];
    return impliedParts(message, analyzeText(message).language).filter((part) => !typed.includes(part.text));
  }

  corrected(parts: readonly string[], candidates: readonly Candidate[]): (string | undefined)[] | undefined {
    if (!this.params.typos) return undefined;
    let read: ReadonlyMap<string, string> | undefined;
    const vocabulary = (): ReadonlyMap<string, string> => (read ??= vocabularyOf(candidates.map((c) => c.memory.text)));
    const fixed = parts.map((part) => (analyzeText(part).language === 'en' ? correctTypos(part, vocabulary, knownEnglishWord, commonWordsFrom) : undefined));
    return fixed.some((text) => text !== undefined) ? fixed : undefined;
  }

  asUser(parts: readonly string[]): (string | undefined)[] | undefined {
    if (!this.params.selfParts || !parts.some(speaksAsSelf)) return undefined;
    return parts.map((part) => speakAsUser(part));
  }

  fuse(parts: readonly string[], rankings: readonly (readonly ScoredCandidate[])[]): ScoredCandidate[] {
    const p = this.params;
    const fused = rankings.length === 1 ? [...(rankings[0] ?? [])] : fuseRankings(parts, rankings, compareScored, p.partAgreement, p.nestedAgreement);
    const message = parts[0] ?? '';
    return p.standing > 0 && this.#understands(analyzeText(message).language) && standsOut(message) ? withStanding(fused, p.standing) : fused;
  }

  /** Whether the model reads a text of this language (RankerParams.languages; undetermined texts are read). */
  #understands(language: Language): boolean {
    const languages = this.params.languages;
    return languages === 'all' || language === 'und' || languages.includes(language);
  }

  plan(query: string, limit: number, message: string = query): QueryPlan {
    const k = Math.max(this.params.depth, limit * 2);
    const analysis = analyzeText(query);
    const implied = message === query ? undefined : this.#implied(message, this.#typedParts(message)).find((part) => part.text === query);
    return {
      ...(implied === undefined ? {} : { answeredBy: implied.evidence }),
      ...(implied?.settles === undefined
        ? {}
        : { settles: { answers: implied.settles, relations: GROUP.test(message) ? 'anyone' : relationsIn(message), ...(implied.about ? { person: implied.about.toLowerCase() } : {}) } }),
      embedText: stripQuestionFrame(stripRequestFrame(query)),
      language: analysis.language,
      // Chat fillers ("these days", "remind me") and a request's frame ("help me plan") ask nothing of the memory
      // (text/fillers.ts, question.ts).
      terms: termsOf(this.params.dropFillers && analysis.language === 'en' ? analyzeText(withoutFillers(stripRequestFrame(query))) : analysis, MAX_QUERY_TERMS),
      vectorK: k,
      textK: k,
      perTerm: Math.max(this.params.perTerm, k),
    };
  }

  rank(query: string, plan: QueryPlan, candidates: readonly Candidate[]): ScoredCandidate[] {
    const p = this.params;
    // An implied question (needs.ts) is answered only by memories on its topic: "I'm allergic to latex." is no
    // answer to the allergies a dinner implies.
    const answeredBy = plan.answeredBy;
    const features: Features[] = (answeredBy === undefined ? candidates : candidates.filter((c) => answeredBy.test(c.memory.text))).map((candidate) => ({
      candidate,
      reading: readText(candidate.memory.text),
      semantic: clamp01((candidate.cosine - p.cosineFloor) / (p.cosineCeiling - p.cosineFloor)),
      time: Date.parse(candidate.memory.createdAt),
      thread: threadOf(candidate.memory.metadata),
    }));
    const byId = new Map(features.map((f) => [f.candidate.memory.id, f]));
    const factsOf = (f: Features): AnswerFacts => (f.reading.answers ??= answerFactsOf(f.candidate.memory.text));
    // A name typed short stands for the whole one, as a typed word for the written one (informal.ts).
    const nameLike = plan.language === 'en' ? nameLikeWords(query) : [];
    const short = p.informalWords ? shortNames(nameLike, features, factsOf) : new Map<string, string>();
    const typedForms = (stem: string): readonly string[] => {
      const name = short.get(stem);
      return name === undefined ? informalForms(stem) : [...informalForms(stem), stemIn(name, 'en')];
    };
    const weights = new TermWeights(
      plan.terms,
      features.map((f) => f.reading.stems),
      p.poolPrior,
      // WordNet relates English words; the concepts of everyday facts (text/concepts.ts) those of other languages.
      plan.language === 'en'
        ? { stems: relatedStems, credit: p.relatedCredit, breadth: p.relatedBreadth, forms: true, ...(p.informalWords ? { informal: typedForms } : {}) }
        : { stems: conceptRelated(plan.language), credit: p.conceptCredit },
      // English compounds are written apart, and its recall was tuned without parts.
      { credit: plan.language === 'en' ? 0 : p.partCredit, isPart: isPartOf },
    );
    const span = dateSpanOf(query);
    // Read by the model's rules when it understands both texts; by the words otherwise (see RankerParams.languages).
    // A query that could not be embedded has no semantic side at all: the words carry every candidate; so do they
    // a memory still waiting for its vector (its cosine, 0, says nothing).
    const native = (f: Features): boolean =>
      plan.wordsOnly !== true && f.candidate.memory.vectorPending !== true && this.#understands(plan.language) && this.#understands(f.reading.language);
    const weightOf = (f: Features): number => (native(f) ? p.semanticWeight : p.foreignSemanticWeight);
    const evidenceOf = (f: Features, semantic: number, coverage: number): number => {
      const w = weightOf(f);
      return w * semantic + (1 - w) * coverage;
    };
    const sameConversation = (a: Features, b: Features): boolean =>
      a.thread !== undefined && b.thread !== undefined
        ? a.thread === b.thread
        : Math.abs(a.time - b.time) <= p.turnGapSeconds * 1000 && (!p.turnsMustSpeak || a.reading.speaks || b.reading.speaks);

    // The user's own names, read once per ranking when a rule needs them (userNamesOf), over every candidate: an
    // implied question ranks only those on its topic, but the user is named across them all.
    let own: ReadonlySet<string> | undefined;
    const ownNames = (): ReadonlySet<string> =>
      (own ??= userNamesOf(
        candidates.map((c) => c.memory.text),
        candidates.map((c) => {
          const reading = readText(c.memory.text);
          return (reading.answers ??= answerFactsOf(c.memory.text));
        }),
      ));

    // The kind of answer the question asks for, and which candidates hold one (answer-kind.ts).
    const kind = p.answerKindFactor < 1 ? answerKindOf(query) : undefined;
    const offers = new Map<string, boolean>();
    if (kind !== undefined) {
      const facts = features.map((f) => (f.reading.answers ??= answerFactsOf(f.candidate.memory.text)));
      const known = knownNames(query, facts);
      // The user's own name answers only a question about it ("what's my dog's name" over "User's name is ...").
      if (kind === 'name' && !ASKS_OWN_NAME.test(query)) for (const name of ownNames()) known.add(name);
      // The name of someone's relative or pet is in a memory that names them by it, not anywhere ("Lena has a brother
      // in Graz." holds a name, but not her brother's).
      const nameOf = kind === 'name' ? nameAskedOf(query) : undefined;
      // Whose age or birthday is asked: the one name of the question the memories hold, not the user's ("how old is
      // oskar" is not answered by "Saga, Oskar's daughter, turns 5", which names him beside another's age; "when is
      // putu's birthday" not by "Putu is 5 and starts school in July 2027").
      const statesOf = kind === 'number' && ASKS_AGE.test(query) ? statesAgeOf : kind === 'date' && ASKS_BIRTHDAY.test(query) ? statesBirthdayOf : undefined;
      const common = statesOf === undefined ? undefined : commonNames(facts);
      const whose = common === undefined ? [] : [...new Set(queryWords(query))].filter((w) => !common.has(w) && facts.some((x) => x.names.has(w)));
      const person = statesOf !== undefined && whose.length === 1 ? { name: whose[0] as string, states: statesOf } : undefined;
      features.forEach((f, i) => {
        const own = facts[i] as AnswerFacts;
        offers.set(
          f.candidate.memory.id,
          offersAnswer(kind, own, known) &&
            (nameOf === undefined || namesThe(nameOf, f.candidate.memory.text, known)) &&
            (person === undefined || !own.names.has(person.name) || person.states(person.name, f.candidate.memory.text)),
        );
      });
    }

    // What an English question plainly asks about someone, which a memory may state without its words (intents.ts).
    // Not for an implied question: its words are the rule's, and what settles it is said below.
    const intents = p.intentCovers && plan.language === 'en' && answeredBy === undefined ? intentsOf(query) : [];
    // What a memory about someone's relative states ("Ingrid's father is a priest") is not Ingrid's, unless the
    // question asks about a relative.
    const askedNames = intents.length === 0 || ASKS_ABOUT_RELATIVE.test(query) ? undefined : answerFactsOf(query).names;
    const frameOf = (f: Features): ReadonlySet<string> | undefined => {
      if (intents.length === 0) return undefined;
      const relativeOf = askedNames === undefined || askedNames.size === 0 ? undefined : relativeOfNamed(f.candidate.memory.text);
      if (relativeOf !== undefined && askedNames?.has(relativeOf) === true) return undefined;
      return frameCoveredBy(intents, f.candidate.memory.text, (f.reading.intents ??= new Map()));
    };
    // The names the query gives that some memory of the pool holds (a name no memory knows says nothing here).
    // "I" is capitalised everywhere and "User" opens an agent's note: neither names someone else.
    // A question about someone's relative ("When did Melanie's friend adopt a child?") is about another person, whom
    // the memory may well name ("Caroline adopted ..."): the rule stands aside.
    // English only: names decline in German and Russian ("Annas", "Анны"), and the rule cost Russian facts their hits.
    const queryNames =
      p.otherPersonFactor < 1 && plan.language === 'en' && !ASKS_ABOUT_RELATIVE.test(query)
        ? [...answerFactsOf(query).names, ...typedNames(query, nameLike, features, factsOf), ...short.values()].filter((name) => !NOT_NAMES.has(name))
        : [];
    const named = queryNames.length === 0 ? [] : queryNames.filter((name) => features.some((f) => factsOf(f).names.has(name)));
    // The question's words besides the names it gives (what it asks about them).
    const nameStems = new Set([...named.map((name) => stemIn(name, plan.language)), ...[...short].filter(([, name]) => named.includes(name)).map(([stem]) => stem)]);
    // Nor the words of what it plainly asks ("old" of "how old is boudin"): a memory that does not state it meets
    // them by chance ("an old bluetick hound named Boudin").
    const frameStems = frameStemsOf(intents);
    // A request to plan or choose for someone it names asks for what is known of them, whatever it is (needs.ts).
    const choosing = p.nameOnlyFactor < 1 && named.length > 0 && asksToChoose(query);
    const asksOf = p.nameOnlyFactor < 1 && named.length > 0 && !choosing ? plan.terms.filter((t) => !nameStems.has(t) && !frameStems.has(t)) : [];
    // A question of nothing but a name and a frame ("What does Antoine do?") asks what its intent says (intents.ts):
    // a memory that names them and does not state it meets it through the name only.
    const nameOnly = (f: Features): boolean =>
      !choosing &&
      (asksOf.length > 0 || (named.length > 0 && intents.length > 0)) &&
      f.candidate.cosine < p.nameOnlyCosine &&
      named.some((name) => factsOf(f).names.has(name)) &&
      // A memory that states what the question plainly asks meets more than the name, whatever its words.
      frameOf(f) === undefined &&
      (asksOf.length === 0 || !weights.holdsAny(asksOf, f.reading.stems));
    // Named people other than the user: a memory about the user alone answers nothing about them ("when is Noam's
    // birthday" over "User's birthday is 30 April."), unless the user speaks of themself too ("Plan a weekend away
    // for Mick and me": where the user lives is an answer).
    // Read only once a memory about the user alone is met (most pools of named people have none: LoCoMo's turns).
    let others: boolean | undefined;
    const onlyOthersNamed = (): boolean =>
      (others ??= !speaksAsSelf(query) && named.every((name) => ![...ownNames()].some((own) => sameName(name, own))));
    const aboutOther = (f: Features): boolean => {
      if (named.length === 0) return false;
      const names = [...factsOf(f).names].filter((name) => !NOT_NAMES.has(name));
      if (names.length === 0) return aboutUserAlone(f.candidate.memory.text, relationsOf(f)) && onlyOthersNamed();
      return !named.some((name) => names.some((other) => sameName(name, other)));
    };

    const relationsOf = (f: Features): ReadonlySet<Relation> => (f.reading.relations ??= relationsIn(f.candidate.memory.text));

    // An implied question is settled by a memory that states what it needs (a restriction for a dinner), unless the
    // memory is about a relative the message does not bring along ("my sister" for "Can I eat soba?").
    const settles = plan.settles;
    const settled = (f: Features): boolean => {
      if (settles === undefined || p.impliedCoverage === 0 || !settles.answers.test(f.candidate.memory.text)) return false;
      // About someone by name ("Can Rafa eat ..."): a memory that names them settles it, or one that names nobody
      // and is not the user's own ("He is lactose intolerant."); unless the name is the user's (ownNames).
      const person = settles.person;
      if (person !== undefined && !ownNames().has(person)) {
        const names = [...factsOf(f).names].filter((name) => !NOT_NAMES.has(name));
        return names.length > 0 ? names.some((name) => sameName(name, person)) : !f.reading.self && !/^(?:the )?user\b/iu.test(f.candidate.memory.text);
      }
      const brought = settles.relations;
      if (brought === 'anyone') return true;
      const own = relationsOf(f);
      return own.size === 0 || [...own].some((r) => brought.has(r));
    };

    // The user's relatives the question asks about ("my mom", "Kofi's wife"): a memory about another one is no answer.
    const relatives = p.otherRelativeFactor < 1 && plan.language === 'en' ? askedRelations(query) : NO_RELATIONS;
    const aboutOtherKin = (f: Features): boolean => relatives.size > 0 && aboutOtherRelative(relatives, relativesOf(f.candidate.memory.text, relationsOf(f)));

    // A question about the world ("how high is mount kenya"): no memory holds its answer (general.ts).
    const general =
      p.generalFactor < 1 && plan.language === 'en' && answeredBy === undefined && asksGeneral(query, () => features.map((f) => f.candidate.memory.text))
        ? p.generalFactor
        : 1;
    // "how much goes to the bank every month for the house", "how much is left on the car": what the user pays or is
    // paid is asked as prices are, without "my"; a memory that states an amount is no memory merely on the topic.
    const amountAsked = general !== 1 && kind === 'number' && /^how much\b/iu.test(query.trim());

    const asksOwnName = ASKS_OWN_NAME.test(query);
    // A first-person question over facts stored about the user one by one (RankerParams.selfLift).
    const selfQuery = p.selfLift !== 1 && speaksAsSelf(query);
    const lengthFactor = (f: Features): number =>
      p.lengthExponent > 0 && f.reading.contentWords > p.lengthWords ? (p.lengthWords / f.reading.contentWords) ** p.lengthExponent : 1;
    const evidences = features.map((f) => {
      // A memory that states what the question plainly asks covers its frame ("Emir is 10" and "How old ...?").
      // A memory on an implied question's topic (needs.ts evidence) answers it whatever its words: it covers a share.
      const frame = frameOf(f);
      const typed = weights.coverage(f.reading.stems, frame);
      const settles = settled(f) && typed < p.impliedCoverage;
      const coverage = (settles ? p.impliedCoverage : typed) * lengthFactor(f);
      const evidence = (semantic: number, c: number): number => evidenceOf(f, semantic, c);
      const own = evidence(f.semantic, coverage);
      let context = 0;
      const before = f.candidate.prevId === null ? undefined : byId.get(f.candidate.prevId);
      if (before && sameConversation(f, before)) {
        const lift = p.contextBefore * (before.reading.asks ? 1 + p.answerLift : 1);
        context = Math.max(context, lift * evidence(Math.max(f.semantic, before.semantic), weights.coverage(f.reading.stems, before.reading.stems) * Math.min(lengthFactor(f), lengthFactor(before))));
      }
      const after = f.candidate.nextId === null ? undefined : byId.get(f.candidate.nextId);
      if (after && sameConversation(f, after)) {
        context = Math.max(context, p.contextAfter * evidence(Math.max(f.semantic, after.semantic), weights.coverage(f.reading.stems, after.reading.stems) * Math.min(lengthFactor(f), lengthFactor(after))));
      }
      const turn = (before !== undefined && sameConversation(f, before)) || (after !== undefined && sameConversation(f, after));
      const best = own + p.contextShare * Math.max(0, context - own);
      const brevity = p.briefWords > 0 ? Math.min(1, (Math.max(1, f.reading.contentWords) / p.briefWords) ** p.briefExponent) : 1;
      const dated = span !== undefined && mentionsSpan(f.candidate.memory, span) ? p.dateBonus : 0;
      // A turn's answer may be in the turn beside it ("What's your dog called?" / "Rex!").
      // A memory that states what a question plainly asks holds the name it asks for, though not with a capital
      // ("takes amlodipine" for "what are my bp pills called"). Not a number: "is 30 January" states no age.
      const answer =
        kind === undefined
          ? undefined
          : offers.get(f.candidate.memory.id) === true ||
            (kind === 'name' && frame !== undefined) ||
            [before, after].some((n) => n !== undefined && sameConversation(f, n) && offers.get(n.candidate.memory.id) === true);
      // Each discount below marks a near miss in the parts; standing.ts noAnswer reads them (a near miss does not rise).
      const kindFactor = answer === false ? p.answerKindFactor : 1;
      const other = !turn && aboutOther(f) ? p.otherPersonFactor : 1;
      const kin = !turn && other === 1 && aboutOtherKin(f) ? p.otherRelativeFactor : 1;
      const byName = !turn && other === 1 && kin === 1 && answer !== true && nameOnly(f) ? p.nameOnlyFactor : 1;
      const asked = f.reading.asks && !turn ? p.questionFactor : 1;
      const nameMemory = !turn && !asksOwnName && namesUserOnly(f.candidate.memory.text) ? p.nameMemoryFactor : 1;
      const self = selfQuery && !turn && !f.reading.self ? p.selfLift : 1;
      const world = amountAsked && answer === true ? 1 : general;
      return { f, coverage, settles, own, best, brevity, dated, turn, answer, asked, nameMemory, other, kin, byName, self, world, evidence: (best * brevity + dated) * kindFactor * asked * nameMemory * other * kin * byName * self * world };
    });
    const absent = weights.absentShare();
    const top = evidences.reduce((m, e) => Math.max(m, e.evidence), 0);
    const scored = evidences.map(({ f, coverage, settles, own, best, brevity, dated, turn, answer, asked, nameMemory, other, kin, byName, self, world, evidence: e }): ScoredCandidate & { covered: string } => {
      const raw = top > 0 && e > 0 ? e * (e / top) ** p.bestGap : e;
      const gap = e - raw;
      const parts: ScoreParts = {
        cosine: round(f.candidate.cosine),
        semantic: round(f.semantic),
        words: round(coverage),
        context: round(Math.max(0, best - own)),
        brevity: round(brevity),
        date: dated,
        gap: round(gap),
        missing: round(weights.largestMissing(f.reading.stems)),
        absent: round(absent),
        raw: round(raw),
      };
      if (answer !== undefined) parts.answer = answer ? 1 : 0;
      if (asked !== 1) parts.question = asked;
      if (nameMemory !== 1) parts.nameMemory = nameMemory;
      if (other !== 1) parts.otherPerson = other;
      if (kin !== 1) parts.otherRelative = kin;
      if (settles) parts.settles = p.impliedCoverage;
      if (byName !== 1) parts.nameOnly = byName;
      if (self !== 1) parts.selfLift = self;
      if (world !== 1) parts.general = world;
      const stated = intents.filter((i) => f.reading.intents?.get(i) === true);
      if (stated.length > 0) parts.intent = intentNames(stated).join(',');
      // Turns of a conversation are not restatements of one another: newer-first is for facts stored one by one.
      parts.language = f.reading.language;
      parts.path = native(f) ? 'semantic' : 'words';
      const knots = native(f) ? p.calibration : p.foreignCalibration;
      return { candidate: f.candidate, score: clamp01(piecewise(knots, raw)), parts, covered: turn ? '' : weights.coveredKey(f.reading.stems) };
    });
    // Only a question about the present ("now", "currently", "still") wants the newer of two statements: lifting
    // newer memories for every question cost LoCoMo's facts 0.03 of recall@5 (questions about a given time).
    if (p.supersedeMargin > 0 && asksAboutNow(query)) preferNewer(scored, p.supersedeMargin);
    return scored.map(({ covered: _covered, ...rest }) => rest).sort(compareScored);
  }
}

/** The memory was stored on the day (or in the month) the query names, or its text names a day or month in it. */
function mentionsSpan(memory: Candidate['memory'], span: DateSpan): boolean {
  if (inSpan(memory.createdAt, span)) return true;
  return dateSpansIn(memory.text).some((s) => overlaps(s, span));
}

/**
 * When two memories state the same thing about the query (they cover the same query terms and score within
 * `margin` of each other), the newer one is the current fact ("relocated to Austin" after "lives in Seattle"):
 * it is lifted to the older one's score, and ties go to the newer.
 */
function preferNewer(scored: (ScoredCandidate & { covered: string })[], margin: number): void {
  const groups = new Map<string, (ScoredCandidate & { covered: string })[]>();
  for (const s of scored) {
    if (s.covered === '') continue;
    const group = groups.get(s.covered) ?? [];
    group.push(s);
    groups.set(s.covered, group);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    for (const newer of group) {
      for (const older of group) {
        if (older.candidate.memory.updatedAt >= newer.candidate.memory.updatedAt) continue;
        if (older.score > newer.score && older.score - newer.score <= margin) {
          if (newer.parts) newer.parts.newer = round(older.score - newer.score);
          newer.score = older.score;
        }
      }
    }
  }
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

/**
 * Best first. Equal scores (the calibration is flat above its last knot, and the cosine saturates at the model's
 * ceiling) go to a memory lifted above an older statement of the same thing (preferNewer), then to the closer
 * meaning (cosine: 0.006-0.009 of recall@5 on the fact sets), then to the newer memory.
 */
export function compareScored(a: ScoredCandidate, b: ScoredCandidate): number {
  if (b.score !== a.score) return b.score - a.score;
  const lifted = (s: ScoredCandidate): number => (s.parts?.newer !== undefined ? 1 : 0);
  if (lifted(a) !== lifted(b)) return lifted(b) - lifted(a);
  if (a.candidate.cosine !== b.candidate.cosine) return b.candidate.cosine - a.candidate.cosine;
  const am = a.candidate.memory;
  const bm = b.candidate.memory;
  if (am.updatedAt !== bm.updatedAt) return am.updatedAt < bm.updatedAt ? 1 : -1;
  if (am.createdAt !== bm.createdAt) return am.createdAt < bm.createdAt ? 1 : -1;
  return am.id < bm.id ? 1 : am.id > bm.id ? -1 : 0;
}
