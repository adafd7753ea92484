import { describe, expect, it } from 'vitest';
import { loadEvalData, usersOf, type EvalData } from '../../tools/eval/dataset.js';
import { CHAT_SETS, defaultSuite, evalSetOf, FACT_LANGUAGES, FACT_SETS, tuningSets } from '../../tools/eval/suite.js';

// The hand-written fact sets in other languages (tools/eval/data/facts-<code>/, and facts-mixed): read through the
// evaluation's own loader and checked for what a typo or a copy-paste slip would break: ids, gold that points nowhere or at another
// user, the shape of each person's questions, and text in the wrong script.

const DATA = new URL('../../tools/eval/data/', import.meta.url).pathname;

const HAN = /\p{Script=Han}/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL = /\p{Script=Hangul}/u;
const CYRILLIC = /\p{Script=Cyrillic}/u;
const LATIN = /\p{Script=Latin}/u;
const FOREIGN_TO_LATIN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Cyrillic}]/u;

/** What every text (fact or question) of a language must look like: its script, and none that belongs elsewhere. */
const SCRIPT: Record<(typeof FACT_SETS)[number], (text: string) => boolean> = {
  // Chinese and Japanese are written without spaces; Chinese has no kana, Japanese always has some.
  zh: (t) => HAN.test(t) && !KANA.test(t) && !HANGUL.test(t) && !t.includes(' '),
  ja: (t) => KANA.test(t) && !HANGUL.test(t) && !t.includes(' '),
  ko: (t) => HANGUL.test(t) && !KANA.test(t) && !HAN.test(t),
  ru: (t) => CYRILLIC.test(t) && !HAN.test(t),
  de: (t) => LATIN.test(t) && !FOREIGN_TO_LATIN.test(t),
  es: (t) => LATIN.test(t) && !FOREIGN_TO_LATIN.test(t),
  fr: (t) => LATIN.test(t) && !FOREIGN_TO_LATIN.test(t),
  pt: (t) => LATIN.test(t) && !FOREIGN_TO_LATIN.test(t),
  // Mixed on purpose; what it must hold is checked below.
  mixed: () => true,
};

/** Letters only the language of a Latin-script set uses: a set that holds them is not another language's copy. */
const MARKS: Partial<Record<(typeof FACT_SETS)[number], RegExp>> = {
  de: /[äöüß]/,
  es: /[ñ¿]/,
  fr: /[èêçœ]/,
  pt: /[ãõç]/,
};

const byUser = <T extends { userId: string }>(rows: readonly T[], userId: string): T[] => rows.filter((r) => r.userId === userId);

describe.each(FACT_SETS)('facts-%s', (lang) => {
  const dir = `${DATA}facts-${lang}`;
  const data: EvalData = loadEvalData(dir);
  const memoryById = new Map(data.memories.map((m) => [m.id, m]));

  it('is named for its language and has exhaustive gold', () => {
    expect(evalSetOf(dir)).toMatchObject({ name: `facts-${lang}`, exhaustive: true });
  });

  it('has 4 people of the language, 12 facts and 10 questions each, with unique ids of the set layout', () => {
    const users = usersOf(data.memories);
    expect(users).toHaveLength(4);
    expect(new Set(data.queries.map((q) => q.userId))).toEqual(new Set(users));
    for (const user of users) {
      expect(user).toMatch(new RegExp(`^u-${lang}-[a-z-]+$`));
      expect(byUser(data.memories, user)).toHaveLength(12);
      expect(byUser(data.queries, user)).toHaveLength(10);
    }
    expect(memoryById.size).toBe(data.memories.length);
    expect(new Set(data.queries.map((q) => q.id)).size).toBe(data.queries.length);
    for (const m of data.memories) expect(m.id).toMatch(new RegExp(`^${m.userId}:f\\d\\d$`));
    for (const q of data.queries) expect(q.id).toMatch(new RegExp(`^${q.userId}:q\\d\\d$`));
  });

  it('stores the facts in increasing createdAt order, a few minutes apart within a person', () => {
    const times = data.memories.map((m) => Date.parse(m.createdAt));
    for (const [i, t] of times.entries()) {
      expect(Number.isNaN(t), data.memories[i]?.createdAt).toBe(false);
      if (i > 0) expect(t).toBeGreaterThan(times[i - 1] as number);
    }
    for (const user of usersOf(data.memories)) {
      const own = byUser(data.memories, user).map((m) => Date.parse(m.createdAt));
      for (let i = 1; i < own.length; i++) expect((own[i] as number) - (own[i - 1] as number)).toBeGreaterThanOrEqual(3 * 60_000);
      // Random order: ids are in topic order, so a set stored in id order was not shuffled.
      const ids = byUser(data.memories, user).map((m) => m.id);
      expect(ids).not.toEqual([...ids].sort());
    }
  });

  it('points every gold id at a fact of the question\'s own user, once', () => {
    for (const q of data.queries) {
      expect(new Set(q.gold).size, q.id).toBe(q.gold.length);
      for (const id of q.gold) expect(memoryById.get(id)?.userId, `${q.id} -> ${id}`).toBe(q.userId);
    }
  });

  it('asks each person 3 unanswerable, 1+ multi-fact and 6 direct, paraphrased or temporal questions', () => {
    for (const user of usersOf(data.memories)) {
      const queries = byUser(data.queries, user);
      const of = (category: string): typeof queries => queries.filter((q) => q.category === category);
      expect(queries.every((q) => ['direct', 'paraphrase', 'temporal', 'multi-fact', 'unanswerable'].includes(q.category))).toBe(true);
      expect(of('unanswerable').map((q) => [q.gold.length, q.unanswerable])).toEqual([[0, true], [0, true], [0, true]]);
      expect(of('multi-fact').length).toBeGreaterThanOrEqual(1);
      for (const q of of('multi-fact')) expect(q.gold.length, q.id).toBeGreaterThanOrEqual(2);
      expect(of('direct').length).toBeGreaterThanOrEqual(2);
      expect(of('paraphrase').length).toBeGreaterThanOrEqual(2);
      expect(of('direct').length + of('paraphrase').length + of('temporal').length).toBe(6);
      for (const q of queries.filter((x) => x.category !== 'unanswerable')) expect(q.gold.length, q.id).toBeGreaterThan(0);
    }
  });

  it('lists the newest fact first in a temporal question\'s gold, the superseded ones after it', () => {
    const temporal = data.queries.filter((q) => q.category === 'temporal');
    expect(temporal.length).toBeGreaterThan(0);
    for (const q of temporal) {
      expect(q.gold.length, q.id).toBeGreaterThanOrEqual(2);
      const [newest, ...older] = q.gold.map((id) => Date.parse(memoryById.get(id)?.createdAt ?? ''));
      for (const t of older) expect(newest, q.id).toBeGreaterThan(t);
    }
  });

  it('writes every fact and question in the language\'s script', () => {
    const texts = [...data.memories.map((m) => m.text), ...data.queries.map((q) => q.query)];
    expect(texts.filter((t) => !SCRIPT[lang](t))).toEqual([]);
    const marks = MARKS[lang];
    if (marks !== undefined) expect(texts.filter((t) => marks.test(t)).length).toBeGreaterThanOrEqual(5);
  });
});

describe('facts-mixed holds what it is for', () => {
  const data = loadEvalData(`${DATA}facts-mixed`);
  const facts = data.memories.map((m) => m.text);
  const questions = data.queries.map((q) => q.query);
  const some = (texts: string[], pattern: RegExp): boolean => texts.some((t) => pattern.test(t));

  it('has Arabic and Hebrew facts, emoji, a decomposed accent, and English words inside Chinese and Japanese', () => {
    expect(some(facts, /\p{Script=Arabic}/u)).toBe(true);
    expect(some(facts, /\p{Script=Hebrew}/u)).toBe(true);
    expect(some(facts, /\p{Extended_Pictographic}/u)).toBe(true);
    expect(some(facts, /\p{M}/u)).toBe(true);
    expect(facts.some((t) => t !== t.normalize('NFC'))).toBe(true);
    expect(some(facts, /\p{Script=Han}.*[A-Za-z]{3}|[A-Za-z]{3}.*\p{Script=Han}/u)).toBe(true);
    expect(some(facts, /\p{Script=Hiragana}.*[A-Za-z]{3}|[A-Za-z]{3}.*\p{Script=Hiragana}/u)).toBe(true);
  });

  it('asks English questions over facts in other languages', () => {
    const english = data.queries.filter((q) => /^[\x20-\x7e]+$/.test(q.query) && q.gold.length > 0);
    expect(english.length).toBeGreaterThanOrEqual(6);
    const factById = new Map(data.memories.map((m) => [m.id, m.text]));
    for (const q of english.filter((x) => x.userId !== 'u-mixed-lukas-weber')) {
      for (const id of q.gold) expect(factById.get(id), q.id).toMatch(/[^\x20-\x7e]/);
    }
    expect(some(questions, /\p{Script=Arabic}/u) && some(questions, /\p{Script=Hebrew}/u)).toBe(true);
  });
});

/** The kinds of chat message, each a row of `npm run eval`; only "unanswerable" has (and must have) empty gold. */
const CHAT_KINDS = ['plain', 'multi-sentence', 'implicit', 'unanswerable'];
/** The three ways a memory names its user: an agent's note, the user's own words, or the user's name. */
const AGENT_NOTE = /^(?:(?:The )?user(?:'s)?|(?:Der|Die) Nutzer(?:in)?s?|(?:El|La) usuari[oa])\b/iu;
const FIRST_PERSON = /(?<![\p{L}'])(?:I|I'm|I've|I'd|my|me|[Ii]ch|[Mm]ein|[Mm]eine|[Mm]ir|[Mm]ich|[Mm]i|[Mm]e|[Yy]o|[Jj]uego)(?![\p{L}'])/u;
const NAME_MEMORY = /^(?:My name is|User's name is|Ich heiße|Me llamo|El usuario se llama) /;
/** People a set has at least: 10, fewer in the first check set and the German and Spanish one. */
const FEWER_PEOPLE: Readonly<Record<string, number>> = { 'chat-check': 6, 'chat-de-es': 4 };
const minPeopleOf = (name: string): number => FEWER_PEOPLE[name] ?? 10;
/** chat-check-21 and -25 give each person 14 memories, so that pools of 10 to 20 (STANDING_POOL and up) are measured too. */
const FEWER_MEMORIES: Readonly<Record<string, number>> = { 'chat-check-21': 14, 'chat-check-25': 14 };
const minMemoriesOf = (name: string): number => FEWER_MEMORIES[name] ?? 15;
/** The user-id mark of the numbered chat check sets: `u-chat2-*` for `chat-check-2`, and so on. */
const userPrefixOf = (name: string): string => /^chat-check-(\d+)$/u.exec(name)?.[1] ?? '';
/** The check-only chat sets, written after the tuning set with other people: never tuned on. */
const CHAT_CHECK_SETS: string[] = CHAT_SETS.filter((name) => /^chat-check(?:-\d+)?$/u.test(name));

describe.each(CHAT_SETS)('%s', (name) => {
  const dir = `${DATA}${name}`;
  const data: EvalData = loadEvalData(dir);
  const memoryById = new Map(data.memories.map((m) => [m.id, m]));
  const users = usersOf(data.memories);
  const styleOf = (text: string): string => (AGENT_NOTE.test(text) ? 'agent' : FIRST_PERSON.test(text) ? 'first' : 'third');

  it('is named for its folder, has exhaustive gold and one row per kind of message, and is check-only if a check set', () => {
    expect(evalSetOf(dir)).toMatchObject({ name, exhaustive: true, rowPerCategory: true, checkOnly: CHAT_CHECK_SETS.includes(name) });
  });

  it('has its people with 15+ memories (chat-check-21 and -25: 14) and 12 messages each, with unique ids of the set layout', () => {
    expect(users.length).toBeGreaterThanOrEqual(minPeopleOf(name));
    expect(new Set(data.queries.map((q) => q.userId))).toEqual(new Set(users));
    for (const user of users) {
      expect(user).toMatch(new RegExp(`^u-chat${userPrefixOf(name)}-[a-z]+-[a-z]+$`));
      expect(byUser(data.memories, user).length).toBeGreaterThanOrEqual(minMemoriesOf(name));
      expect(byUser(data.queries, user)).toHaveLength(12);
    }
    expect(memoryById.size).toBe(data.memories.length);
    expect(new Set(data.queries.map((q) => q.id)).size).toBe(data.queries.length);
    for (const m of data.memories) expect(m.id).toMatch(new RegExp(`^${m.userId}:f\\d\\d$`));
    for (const q of data.queries) expect(q.id).toMatch(new RegExp(`^${q.userId}:q\\d\\d$`));
  });

  it('stores the memories in increasing createdAt order, in random order of topic, minutes apart within a person', () => {
    const times = data.memories.map((m) => Date.parse(m.createdAt));
    for (const [i, t] of times.entries()) {
      expect(Number.isNaN(t), data.memories[i]?.createdAt).toBe(false);
      if (i > 0) expect(t).toBeGreaterThan(times[i - 1] as number);
    }
    for (const user of users) {
      const own = byUser(data.memories, user);
      for (let i = 1; i < own.length; i++) {
        expect(Date.parse((own[i] as EvalData['memories'][number]).createdAt) - Date.parse((own[i - 1] as EvalData['memories'][number]).createdAt)).toBeGreaterThanOrEqual(3 * 60_000);
      }
      const ids = own.map((m) => m.id);
      expect(ids).not.toEqual([...ids].sort());
    }
  });

  it('points every gold id at a memory of the message\'s own user, once', () => {
    for (const q of data.queries) {
      expect(new Set(q.gold).size, q.id).toBe(q.gold.length);
      for (const id of q.gold) expect(memoryById.get(id)?.userId, `${q.id} -> ${id}`).toBe(q.userId);
    }
  });

  it('asks each person every kind of message, with gold exactly when a memory answers', () => {
    for (const user of users) {
      const queries = byUser(data.queries, user);
      expect(queries.filter((q) => !CHAT_KINDS.includes(q.category)).map((q) => q.id)).toEqual([]);
      for (const kind of CHAT_KINDS) expect(queries.filter((q) => q.category === kind).length, `${user} ${kind}`).toBeGreaterThanOrEqual(2);
      for (const q of queries) expect([q.id, q.gold.length > 0, q.unanswerable]).toEqual([q.id, q.category !== 'unanswerable', q.category === 'unanswerable']);
    }
    // An implicit need usually rests on several memories (the allergy and the sister's diet).
    const implicit = data.queries.filter((q) => q.category === 'implicit');
    expect(implicit.filter((q) => q.gold.length >= 2).length).toBeGreaterThanOrEqual(implicit.length * 0.75);
  });

  it('writes multi-sentence messages as several sentences, and messages in the first person', () => {
    // An emoji ends a sentence as typed ("migraine from hell after last night's run 🤕 pharmacy's asking ...").
    const sentences = (t: string): number => t.split(/(?<=[.!?]|\p{Extended_Pictographic})\s+/u).filter((x) => x.trim().length > 0).length;
    // Or one voice-typed run-on of several sentences without their stops (20 words or more).
    const runOn = (t: string): boolean => !/[.!?]/.test(t.trim().slice(0, -1)) && t.split(/\s+/).length >= 20;
    for (const q of data.queries.filter((x) => x.category === 'multi-sentence')) {
      if (!runOn(q.query)) expect(sentences(q.query), q.id).toBeGreaterThanOrEqual(2);
    }
    const firstPerson = data.queries.filter((q) => /(?<![\p{L}'])(?:I|I'm|my|me|we|our|us|ich|mein|meine|meiner|mir|mich|wir|unser|mi|me|yo|soy|nuestro)(?![\p{L}'])/iu.test(q.query));
    expect(firstPerson.length).toBeGreaterThanOrEqual(data.queries.length / 2);
  });

  it('mixes the three styles of memory within people, and only some people have a memory of their name', () => {
    const styles = data.memories.map((m) => styleOf(m.text));
    for (const style of ['agent', 'first', 'third']) expect(styles.filter((s) => s === style).length, style).toBeGreaterThanOrEqual(data.memories.length / 6);
    for (const user of users) expect(new Set(byUser(data.memories, user).map((m) => styleOf(m.text))).size, user).toBeGreaterThanOrEqual(2);
    const named = users.filter((user) => byUser(data.memories, user).some((m) => NAME_MEMORY.test(m.text)));
    expect(named.length).toBeGreaterThanOrEqual(2);
    expect(users.length - named.length).toBeGreaterThanOrEqual(2);
  });
});

describe('chat-de-es is German and Spanish', () => {
  it('has two German and two Spanish people, whose texts hold their languages\' letters', () => {
    const data = loadEvalData(`${DATA}chat-de-es`);
    const texts = (marks: RegExp): number => [...data.memories.map((m) => m.text), ...data.queries.map((q) => q.query)].filter((t) => marks.test(t)).length;
    expect(usersOf(data.memories)).toHaveLength(4);
    expect(texts(/[äöüß]/u)).toBeGreaterThanOrEqual(5);
    expect(texts(/[ñ¿¡á]/u)).toBeGreaterThanOrEqual(5);
  });
});

describe.each(CHAT_CHECK_SETS)('the chat check set %s is apart from the tuning set and the check sets before it', (name) => {
  it('shares no person, memory or message with them', () => {
    const check = loadEvalData(`${DATA}${name}`);
    const firstNames = (d: EvalData): Set<string> => new Set(usersOf(d.memories).map((u) => u.split('-')[2] as string));
    for (const other of ['chat', ...CHAT_CHECK_SETS.slice(0, CHAT_CHECK_SETS.indexOf(name))]) {
      const tune = loadEvalData(`${DATA}${other}`);
      expect([...firstNames(check)].filter((n) => firstNames(tune).has(n)), other).toEqual([]);
      const texts = new Set([...tune.memories.map((m) => m.text), ...tune.queries.map((q) => q.query)].map((t) => t.toLowerCase()));
      expect([...check.memories.map((m) => m.text), ...check.queries.map((q) => q.query)].filter((t) => texts.has(t.toLowerCase())), other).toEqual([]);
    }
  });
});

// Our other English fact sets (tools/eval/data/people-facts-2 and -3): the layout and labels of people-facts.
describe.each(['people-facts-2', 'people-facts-3'])('%s', (name) => {
  const dir = `${DATA}${name}`;
  const data: EvalData = loadEvalData(dir);
  const memoryById = new Map(data.memories.map((m) => [m.id, m]));

  it('is named for its folder, has exhaustive gold and stores facts in time order across people', () => {
    expect(evalSetOf(dir)).toMatchObject({ name, exhaustive: true });
    const times = data.memories.map((m) => Date.parse(m.createdAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    for (const m of data.memories) expect(m.id, m.id).toMatch(new RegExp(`^${m.userId}:f\\d{2}$`));
    for (const q of data.queries) expect(q.id, q.id).toMatch(new RegExp(`^${q.userId}:q\\d{2}$`));
    expect(new Set(data.memories.map((m) => m.id)).size).toBe(data.memories.length);
  });

  it('points every gold id at a fact of the question\'s own user, once, and leaves only the unanswerable ones empty', () => {
    for (const q of data.queries) {
      expect(new Set(q.gold).size, q.id).toBe(q.gold.length);
      for (const id of q.gold) expect(memoryById.get(id)?.userId, `${q.id} -> ${id}`).toBe(q.userId);
      expect([q.id, q.gold.length === 0, q.unanswerable]).toEqual([q.id, q.category === 'unanswerable', q.category === 'unanswerable']);
    }
  });

  it('asks each of its people 18 or more questions, about a quarter of them unanswerable', () => {
    const users = usersOf(data.memories);
    expect(users.length).toBeGreaterThanOrEqual(8);
    for (const user of users) {
      const queries = byUser(data.queries, user);
      expect(queries.length, user).toBeGreaterThanOrEqual(18);
      const share = queries.filter((q) => q.unanswerable).length / queries.length;
      expect(share, user).toBeGreaterThan(0.2);
      expect(share, user).toBeLessThan(0.35);
      expect(byUser(data.memories, user).length, user).toBeGreaterThanOrEqual(20);
    }
  });

  it('lists the newest fact first in a temporal question\'s gold', () => {
    for (const q of data.queries.filter((x) => x.category === 'temporal' && x.gold.length > 1)) {
      const [newest, ...older] = q.gold.map((id) => Date.parse(memoryById.get(id)?.createdAt ?? ''));
      for (const t of older) expect(newest, q.id).toBeGreaterThan(t);
    }
  });
});

describe('the evaluation suite', () => {
  it('measures the English fact sets, then each language in its own row, then the mixed set', () => {
    const names = defaultSuite().sets.map((s) => s.name);
    const people = names.indexOf('people-facts');
    expect(people).toBeGreaterThanOrEqual(0);
    expect(names.slice(people, people + 3)).toEqual(['people-facts', 'people-facts-2', 'people-facts-3']);
    expect(names.slice(people + 3, people + 3 + FACT_SETS.length)).toEqual([...FACT_LANGUAGES.map((l) => `facts-${l}`), 'facts-mixed']);
  });

  it('measures the chat sets last, one row per kind of message', () => {
    const sets = defaultSuite().sets;
    expect(sets.slice(-CHAT_SETS.length).map((s) => [s.name, s.rowPerCategory])).toEqual(CHAT_SETS.map((name) => [name, true]));
    expect(sets.filter((s) => s.rowPerCategory).length).toBe(CHAT_SETS.length);
  });

  it('leaves the check sets out of what fitting and tuning use, and only them', () => {
    expect(defaultSuite().sets.filter((s) => s.checkOnly).map((s) => s.name)).toEqual(CHAT_CHECK_SETS);
    const tuning = tuningSets().map((s) => s.name);
    for (const name of CHAT_CHECK_SETS) expect(tuning).not.toContain(name);
    expect(tuning).toEqual(expect.arrayContaining(['people-facts', 'chat', 'chat-de-es']));
    expect(tuning).toHaveLength(defaultSuite().sets.length - CHAT_CHECK_SETS.length);
  });
});
