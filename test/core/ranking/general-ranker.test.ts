import { describe, expect, it } from 'vitest';
import { builtInCalibration, DEFAULT_CALIBRATION, parseCalibration } from '../../../src/core/ranking/calibration.js';
import { HybridRanker, paramsFor } from '../../../src/core/ranking/hybrid-ranker.js';
import { relatedStems } from '../../../src/core/ranking/lexicon/related.js';
import type { Candidate } from '../../../src/core/store.js';

// What the ranker must do on memories that are not dialogue turns (issue 14): facts stored one by one, paraphrased
// questions, newer facts, dates written in the text, and the score's parts.

const APP = { id: '00000000-0000-4000-8000-000000000000', slug: 'default', createdAt: '2024-01-01T00:00:00.000Z' };

function fact(id: string, text: string, cosine: number, createdAt: string, extra: Partial<Candidate> = {}, metadata = {}): Candidate {
  return {
    memory: { id, uuid: `uuid-${id}`, userId: 'gina', app: APP, text, metadata, createdAt, updatedAt: createdAt, expiresAt: null },
    cosine,
    prevId: null,
    nextId: null,
    ...extra,
  };
}

function scores(query: string, candidates: Candidate[]): Map<string, number> {
  const ranker = new HybridRanker();
  return new Map(ranker.rank(query, ranker.plan(query, 5), candidates).map((s) => [s.candidate.memory.id, s.score]));
}

describe('a stored question is not evidence', () => {
  it('ranks the statement that answers it above a stored question, and explain says why', () => {
    const query = 'Can Alice eat peanut butter?';
    const candidates = [
      fact('q', 'Can I eat peanut butter?', 0.6, '2026-01-01T10:00:00.000Z'),
      fact('s', 'Alice is allergic to peanuts.', 0.45, '2026-01-02T10:00:00.000Z'),
    ];
    const ranker = new HybridRanker();
    const ranked = ranker.rank(query, ranker.plan(query, 5), candidates);
    expect(ranked[0]?.candidate.memory.id).toBe('s');
    expect(ranked.find((r) => r.candidate.memory.id === 'q')?.parts?.question).toBe(0.5);
    expect(ranked[0]?.parts?.question).toBeUndefined();
    // The stored question speaks as the user, not Alice: the other-person rule lowers it too, so it is off here.
    const off = new HybridRanker({ questionFactor: 1, otherPersonFactor: 1 });
    expect(off.rank(query, off.plan(query, 5), candidates)[0]?.candidate.memory.id).toBe('q');
  });

  it('keeps the weight of a question that is a turn of a conversation', () => {
    const query = 'Which team did Gina sign with?';
    const candidates = [
      fact('t1', 'Which team did you sign with, Gina?', 0.6, '2026-01-01T10:00:00.000Z', { nextId: 't2' }),
      fact('t2', 'The Wolves!', 0.2, '2026-01-01T10:00:01.000Z', { prevId: 't1' }),
    ];
    const ranker = new HybridRanker();
    const ranked = ranker.rank(query, ranker.plan(query, 5), candidates);
    expect(ranked.every((r) => r.parts?.question === undefined)).toBe(true);
  });
});

describe('neighbours in storage order', () => {
  const cello = (extra: Partial<Candidate>, at = '2025-01-10T09:00:00.000Z'): Candidate =>
    fact('cello', 'Gina plays the cello in a community orchestra.', 0.62, at, extra);
  const bicycle = (extra: Partial<Candidate>, at: string, metadata = {}): Candidate =>
    fact('bike', 'Gina bought a new bicycle.', 0.12, at, extra, metadata);

  it('never lift a fact stored months after a perfect match over the threshold (regression)', () => {
    const s = scores('What instrument does Gina play?', [
      cello({ nextId: 'bike' }),
      bicycle({ prevId: 'cello' }, '2025-06-10T09:00:00.000Z'),
    ]);
    expect(s.get('cello')).toBeGreaterThanOrEqual(0.7);
    expect(s.get('bike')).toBeLessThan(0.5);
  });

  it('never read facts an agent stored in one burst as turns of a conversation (regression)', () => {
    // Stored a second apart, but neither speaks as a turn does (no question, no I / we / you).
    const birthday = fact('birthday', "Maria's birthday is on 14 July.", 0.6, '2025-01-10T09:00:00.000Z', { nextId: 'film' });
    const film = fact('film', "Cinema Paradiso is Maria's favourite film.", 0.2, '2025-01-10T09:00:01.000Z', { prevId: 'birthday' });
    const s = scores("When is Maria's birthday?", [birthday, film]);
    const alone = scores("When is Maria's birthday?", [fact('film', "Cinema Paradiso is Maria's favourite film.", 0.2, '2025-01-10T09:00:01.000Z')]);
    expect(s.get('birthday')).toBeGreaterThanOrEqual(0.7);
    expect(s.get('film')).toBeLessThan(0.7);
    const ranker = new HybridRanker({ turnsMustSpeak: false });
    const q = "When is Maria's birthday?";
    const asTurns = ranker.rank(q, ranker.plan(q, 5), [birthday, film]).find((x) => x.candidate.memory.id === 'film');
    expect(asTurns?.parts?.context).toBeGreaterThan(0);
    expect(s.get('film')).toBeLessThan(asTurns?.score ?? 0);
    expect(s.get('film')).toBeLessThanOrEqual((alone.get('film') ?? 0) + 0.05);
  });

  it('read turns stored seconds apart together, and turns of one conversation named in metadata', () => {
    const query = 'Which team did Ana sign with?';
    const question = fact('q', 'Ben: Which team did you sign with?', 0.6, '2025-01-10T09:00:00.000Z', { nextId: 'a' });
    const answer = (at: string, metadata = {}): Candidate => fact('a', 'Ana: The Minnesota Wolves!', 0.3, at, { prevId: 'q' }, metadata);
    const alone = scores(query, [answer('2025-01-10T09:00:01.000Z')]).get('a') as number;
    const turn = scores(query, [question, answer('2025-01-10T09:00:01.000Z')]).get('a') as number;
    const later = scores(query, [question, answer('2025-01-11T09:00:00.000Z')]).get('a') as number;
    const q2 = fact('q', 'Ben: Which team did you sign with?', 0.6, '2025-01-10T09:00:00.000Z', { nextId: 'a' }, { conversationId: 'c1' });
    const sameConversation = scores(query, [q2, answer('2025-01-11T09:00:00.000Z', { conversationId: 'c1' })]).get('a') as number;
    expect(turn).toBeGreaterThan(alone);
    expect(later).toBeLessThan(turn);
    expect(sameConversation).toBe(turn);
  });
});

describe('paraphrases, dates and newer facts', () => {
  it('relates a question word to the memory word WordNet relates it to', () => {
    expect(relatedStems('instrument')).toContain('cello');
    expect(relatedStems('cello')).toContain('instrument');
    expect(relatedStems('zzzz')).toEqual([]);
    const s = scores('What instrument does Gina play?', [
      fact('cello', 'Gina has played the cello since school.', 0.35, '2025-01-10T09:00:00.000Z'),
      fact('soup', 'Gina has made lentil soup since school.', 0.35, '2025-01-10T09:00:00.000Z'),
    ]);
    expect(s.get('cello')).toBeGreaterThan(s.get('soup') as number);
  });

  it('counts a date written in the memory, not only when it was stored', () => {
    const s = scores('Where did Maria move in March 2025?', [
      fact('dated', 'Maria moved to Lisbon on 2025-03-14.', 0.4, '2025-09-01T09:00:00.000Z'),
      fact('undated', 'Maria moved to Lisbon from Porto.', 0.4, '2025-09-01T09:00:00.000Z'),
    ]);
    expect(s.get('dated')).toBeGreaterThan(s.get('undated') as number);
  });

  it('ranks the newer of two memories that state the same thing first when the question asks about now', () => {
    const ranker = new HybridRanker();
    const rank = (query: string, newer: Partial<Candidate> = {}): string[] =>
      ranker
        .rank(query, ranker.plan(query, 5), [
          fact('old', 'Dan lives in Seattle near the lake.', 0.5, '2023-01-01T00:00:00.000Z'),
          fact('new', 'Dan lives in Austin.', 0.45, '2025-01-01T00:00:00.000Z', newer),
        ])
        .map((s) => s.candidate.memory.id);
    expect(rank('Where does Dan live now?')).toEqual(['new', 'old']);
    expect(rank('Where does Dan currently live?')).toEqual(['new', 'old']);
    // Without a question about the present, the better match leads (a question may be about any time).
    expect(rank('Where does Dan live?')).toEqual(['old', 'new']);
    // Turns of one conversation are not restatements of each other.
    expect(rank('Where does Dan live now?', { prevId: 'old' }).indexOf('new')).toBeGreaterThanOrEqual(0);
  });

  it('reads "newer" as updatedAt: a memory edited later states the newer fact', () => {
    const ranker = new HybridRanker();
    const query = 'Where does Dan live now?';
    const old = fact('old', 'Dan lives in Seattle near the lake.', 0.5, '2023-01-01T00:00:00.000Z');
    const edited = fact('edited', 'Dan lives in Austin.', 0.45, '2022-01-01T00:00:00.000Z');
    edited.memory = { ...edited.memory, updatedAt: '2025-01-01T00:00:00.000Z' };
    const ranked = ranker.rank(query, ranker.plan(query, 5), [old, edited]);
    expect(ranked.map((s) => s.candidate.memory.id)).toEqual(['edited', 'old']);
    expect(ranked[0]?.parts?.newer).toBeGreaterThan(0);
  });

  it('discounts a memory far weaker than the best match of the query, without changing the order', () => {
    const query = 'What instrument does Gina play?';
    const both = [
      fact('cello', 'Gina plays the cello in a community orchestra.', 0.62, '2025-01-10T09:00:00.000Z'),
      fact('choir', 'Gina sometimes sings in a choir.', 0.35, '2025-03-10T09:00:00.000Z'),
    ];
    const together = new HybridRanker().rank(query, new HybridRanker().plan(query, 5), both);
    const alone = new HybridRanker().rank(query, new HybridRanker().plan(query, 5), [both[1] as Candidate]);
    expect(together.map((s) => s.candidate.memory.id)).toEqual(['cello', 'choir']);
    expect(together[1]?.parts?.gap).toBeGreaterThan(0);
    expect(together[1]?.score).toBeLessThan(alone[0]?.score as number);
  });

  it('discounts the words a long memory contains by chance', () => {
    const query = 'How do I fix a segmentation fault in C?';
    const filler = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
    const s = scores(query, [
      fact('short', 'Fixing a segmentation fault.', 0.3, '2025-01-10T09:00:00.000Z'),
      fact('long', `Fixing a segmentation fault. ${filler}`, 0.3, '2025-01-10T09:00:00.000Z'),
    ]);
    expect(s.get('long')).toBeLessThan(s.get('short') as number);
  });

  it('says which query words no memory contains, and which one a memory lacks most', () => {
    const ranker = new HybridRanker();
    const query = "What is Gina's blood type?";
    const [top] = ranker.rank(query, ranker.plan(query, 5), [fact('c', 'Gina plays the cello.', 0.3, '2025-01-01T00:00:00.000Z')]);
    expect(top?.parts?.absent).toBeGreaterThan(0.5);
    expect(top?.parts?.missing).toBeGreaterThan(0);
  });

  it('explains every score with its parts', () => {
    const ranker = new HybridRanker();
    const [top] = ranker.rank('Gina cello', ranker.plan('Gina cello', 5), [fact('c', 'Gina plays the cello.', 0.7, '2025-01-01T00:00:00.000Z')]);
    expect(top?.parts).toMatchObject({ cosine: 0.7, semantic: 1, words: 1, context: 0, date: 0, brevity: 1, gap: 0, missing: 0, absent: 0 });
    expect(top?.parts?.raw).toBeGreaterThan(0);
  });
});

describe('calibration per model', () => {
  it('ships USE-lite\'s and gives the ranker its cosine range and score map', () => {
    expect(builtInCalibration('use-lite')).toBe(DEFAULT_CALIBRATION);
    expect(builtInCalibration('Xenova/unknown')).toBeUndefined();
    const p = paramsFor({ model: 'm', cosineFloor: 0.5, cosineCeiling: 0.9, knots: [[0, 0], [0.3, 0.7], [2, 1]] });
    expect(p).toMatchObject({ cosineFloor: 0.5, cosineCeiling: 0.9, calibration: [[0, 0], [0.3, 0.7], [2, 1]] });
  });

  it('refuses a file that is not a calibration, naming the problem', () => {
    expect(() => parseCalibration('{', 'x.json')).toThrow('x.json is not JSON.');
    expect(() => parseCalibration('{"model":"m","cosineFloor":0.6,"cosineCeiling":0.2,"knots":[[0,0],[1,1]]}', 'x.json')).toThrow(/cosineCeiling/);
    expect(() => parseCalibration('{"model":"m","cosineFloor":0.1,"cosineCeiling":0.2,"knots":[[0,0],[0,1]]}', 'x.json')).toThrow(/knots/);
  });
});
