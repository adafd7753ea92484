import { describe, expect, it } from 'vitest';
import { HybridRanker, isQuestion, piecewise } from '../../../src/core/ranking/hybrid-ranker.js';
import type { Candidate } from '../../../src/core/store.js';

const APP = { id: '00000000-0000-4000-8000-000000000000', slug: 'default', createdAt: '2024-01-01T00:00:00.000Z' };

interface Spec {
  id: string;
  text: string;
  cosine: number;
  createdAt?: string;
  prevId?: string | null;
  nextId?: string | null;
}

function candidate(spec: Spec): Candidate {
  return {
    memory: {
      id: spec.id,
      uuid: `uuid-${spec.id}`,
      userId: 'u1',
      app: APP,
      text: spec.text,
      metadata: {},
      createdAt: spec.createdAt ?? '2024-03-01T10:00:00.000Z',
      updatedAt: spec.createdAt ?? '2024-03-01T10:00:00.000Z',
      expiresAt: null,
    },
    cosine: spec.cosine,
    prevId: spec.prevId ?? null,
    nextId: spec.nextId ?? null,
  };
}

/** Filler memories: a realistic pool, so that term rarity means something. */
const filler = Array.from({ length: 30 }, (_, i) =>
  candidate({ id: `f${i}`, text: `Ana: Just a normal day at work number ${i}, nothing special happened today.`, cosine: 0.1 }),
);

function rank(query: string, candidates: Candidate[], ranker = new HybridRanker()): Map<string, number> {
  const plan = ranker.plan(query, 5);
  return new Map(ranker.rank(query, plan, [...candidates, ...filler]).map((s) => [s.candidate.memory.id, s.score]));
}

function order(query: string, candidates: Candidate[]): string[] {
  const ranker = new HybridRanker();
  return ranker.rank(query, ranker.plan(query, 5), candidates).map((s) => s.candidate.memory.id);
}

describe('HybridRanker.plan', () => {
  it('embeds the query without its question frame and searches the stems of words that are not stop words', () => {
    const plan = new HybridRanker().plan('When did Ana start pottery classes?', 5);
    expect(plan.embedText).toBe('Ana start pottery classes');
    expect(plan.language).toBe('en');
    expect(plan.terms).toEqual(['ana', 'start', 'potteri', 'class']);
  });

  it('reads a query in its own language', () => {
    const plan = new HybridRanker().plan('小明对什么过敏？', 5);
    expect(plan.language).toBe('zh');
    expect(plan.terms).toEqual(['小明', '过敏']);
  });

  it('searches deeper for large limits', () => {
    const ranker = new HybridRanker({ depth: 50 });
    expect(ranker.plan('pottery', 5).vectorK).toBe(50);
    expect(ranker.plan('pottery', 100).textK).toBe(200);
  });
});

describe('HybridRanker.rank', () => {
  it('ranks the memory that covers the query and is close in meaning first, with a score above 0.7', () => {
    const scores = rank('When did Ana start pottery classes?', [
      candidate({ id: 'gold', text: 'Ana: I signed up for pottery classes last week, so excited to start!', cosine: 0.62 }),
      candidate({ id: 'near', text: 'Ana: I love making things with my hands.', cosine: 0.45 }),
      candidate({ id: 'far', text: 'Ben: The train was late again this morning.', cosine: 0.05 }),
    ]);
    const sorted = [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
    expect(sorted[0]).toBe('gold');
    expect(scores.get('gold')).toBeGreaterThanOrEqual(0.7);
    expect(scores.get('far')).toBeLessThan(scores.get('near') as number);
  });

  it('keeps every score in [0, 1]', () => {
    const extreme = [
      candidate({ id: 'max', text: 'pottery '.repeat(50), cosine: 1 }),
      candidate({ id: 'min', text: '', cosine: -1 }),
      candidate({ id: 'q', text: 'pottery? ', cosine: 1, nextId: 'max' }),
    ];
    for (const score of rank('pottery on 1 March 2024', extreme).values()) {
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });

  it('is monotone in cosine and in term coverage', () => {
    const text = 'Ana: my pottery class was fun';
    const scores = rank('Ana pottery class', [
      candidate({ id: 'c3', text, cosine: 0.3 }),
      candidate({ id: 'c4', text, cosine: 0.4 }),
      candidate({ id: 'c5', text, cosine: 0.5 }),
      candidate({ id: 'one', text: 'Ana: my class was fun', cosine: 0.4 }),
      candidate({ id: 'none', text: 'Ana: my day was fun', cosine: 0.4 }),
    ]);
    expect(scores.get('c4')).toBeGreaterThan(scores.get('c3') as number);
    expect(scores.get('c5')).toBeGreaterThan(scores.get('c4') as number);
    expect(scores.get('c4')).toBeGreaterThan(scores.get('one') as number);
    expect(scores.get('one')).toBeGreaterThan(scores.get('none') as number);
  });

  it('scores unrelated memories low for an off-topic question', () => {
    const scores = rank('What is the capital of Mongolia?', [
      candidate({ id: 'a', text: 'Ana: I signed up for pottery classes last week!', cosine: 0.08 }),
      candidate({ id: 'b', text: 'Ben: My capital idea is to repaint the kitchen.', cosine: 0.2 }),
    ]);
    for (const score of scores.values()) expect(score).toBeLessThan(0.7);
  });

  it('breaks ties newest first, then by id', () => {
    const same = { text: 'Ana: pottery', cosine: 0.5 };
    expect(
      order('pottery', [
        candidate({ id: 'old', ...same, createdAt: '2024-01-01T00:00:00.000Z' }),
        candidate({ id: 'new', ...same, createdAt: '2024-02-01T00:00:00.000Z' }),
        candidate({ id: 'new2', ...same, createdAt: '2024-02-01T00:00:00.000Z' }),
      ]),
    ).toEqual(['new2', 'new', 'old']);
  });

  it('reads a memory afresh when its text changes, and the same text the same way every time', () => {
    const before = rank('pottery class', [candidate({ id: 'm', text: 'Ana: my day was fun', cosine: 0.4 })]).get('m') as number;
    const edited = rank('pottery class', [candidate({ id: 'm', text: 'Ana: my pottery class was fun', cosine: 0.4 })]).get('m') as number;
    const again = rank('pottery class', [candidate({ id: 'm', text: 'Ana: my pottery class was fun', cosine: 0.4 })]).get('m') as number;
    expect(edited).toBeGreaterThan(before);
    expect(again).toBe(edited);
  });

  it('gives equal scores to the closer meaning before the newer memory', () => {
    // Both cosines are above the model's ceiling and both memories hold every query word: equal scores.
    expect(
      order('pottery', [
        candidate({ id: 'closer', text: 'Ana: pottery', cosine: 0.9, createdAt: '2024-01-01T00:00:00.000Z' }),
        candidate({ id: 'newer', text: 'Ana: pottery', cosine: 0.8, createdAt: '2024-02-01T00:00:00.000Z' }),
      ]),
    ).toEqual(['closer', 'newer']);
  });

  it('lifts the answer that follows a matching question', () => {
    const question = candidate({ id: 'q', text: 'Ben: Which team did you sign with?', cosine: 0.6, nextId: 'answer' });
    const answer = { id: 'answer', text: 'Ana: The Minnesota Wolves! Cannot wait to play with them.', cosine: 0.3 };
    const alone = rank('Which team did Ana sign with?', [candidate(answer)]).get('answer') as number;
    const inContext = rank('Which team did Ana sign with?', [question, candidate({ ...answer, prevId: 'q' })]).get('answer') as number;
    expect(inContext).toBeGreaterThan(alone);
  });

  it('prefers memories stored on the day the query names', () => {
    const text = 'Ana: I made a lemon cake for the party.';
    const scores = rank('What did Ana bake on 9 November, 2022?', [
      candidate({ id: 'that-day', text, cosine: 0.4, createdAt: '2022-11-09T18:00:00.000Z' }),
      candidate({ id: 'other-day', text, cosine: 0.4, createdAt: '2022-12-09T18:00:00.000Z' }),
    ]);
    expect(scores.get('that-day')).toBeGreaterThan(scores.get('other-day') as number);
  });

  it('returns nothing for no candidates', () => {
    const ranker = new HybridRanker();
    expect(ranker.rank('anything', ranker.plan('anything', 5), [])).toEqual([]);
  });
});

describe('helpers', () => {
  it('recognises a turn that asks a question', () => {
    expect(isQuestion('Where did you go?')).toBe(true);
    expect(isQuestion('Where did you go?" ')).toBe(true);
    expect(isQuestion('I asked where you went.')).toBe(false);
  });

  it('interpolates piecewise-linearly and stays flat beyond the knots', () => {
    const knots = [
      [0, 0],
      [0.5, 0.7],
      [1, 1],
    ] as const;
    expect(piecewise(knots, -1)).toBe(0);
    expect(piecewise(knots, 0.25)).toBeCloseTo(0.35);
    expect(piecewise(knots, 0.75)).toBeCloseTo(0.85);
    expect(piecewise(knots, 2)).toBe(1);
  });
});

describe('HybridRanker in languages the model does not understand', () => {
  // USE-lite gives every Chinese sentence nearly the same vector: the cosines below are what it gave these facts.
  const facts = [
    candidate({ id: 'allergy', text: '小明对花生过敏。', cosine: 0.586 }),
    candidate({ id: 'work', text: '小明在北京的一家医院当护士。', cosine: 0.586 }),
    candidate({ id: 'car', text: '小明开一辆蓝色的丰田车。', cosine: 0.586 }),
    candidate({ id: 'daughter', text: '小明的女儿叫小红。', cosine: 0.586 }),
  ];
  const ranked = (query: string, candidates = facts) => {
    const ranker = new HybridRanker();
    return ranker.rank(query, ranker.plan(query, 5), candidates);
  };

  it('ranks by the words, says so in explain, and keeps 0.7 for the memory that answers', () => {
    const [first, second] = ranked('小明对什么过敏？');
    expect(first?.candidate.memory.id).toBe('allergy');
    expect(first?.parts).toMatchObject({ language: 'zh', path: 'words' });
    expect(first?.score).toBeGreaterThanOrEqual(0.7);
    expect(second?.score).toBeLessThan(0.7);
  });

  it('relates everyday words in the language: a question about work finds the nurse', () => {
    expect(ranked('小明做什么工作？')[0]?.candidate.memory.id).toBe('work');
  });

  it('answers nothing above 0.7 for a question about something never stated', () => {
    expect(ranked('小明的儿子叫什么名字？').every((s) => s.score < 0.7)).toBe(true);
  });

  it('keeps the semantic path for English, and reads an English question over German memories by the words', () => {
    const english = ranked('Where does Ana work?', [candidate({ id: 'en', text: 'Ana works as a nurse.', cosine: 0.6 })]);
    expect(english[0]?.parts).toMatchObject({ language: 'en', path: 'semantic' });
    const german = ranked('Where does Anna live?', [candidate({ id: 'de', text: 'Anna wohnt in Hamburg und arbeitet in einem Krankenhaus.', cosine: 0.6 })]);
    expect(german[0]?.parts).toMatchObject({ language: 'de', path: 'words' });
  });

  it('follows the model: a multilingual one reads every language by meaning', () => {
    const ranker = new HybridRanker({ languages: 'all' });
    const [first] = ranker.rank('小明对什么过敏？', ranker.plan('小明对什么过敏？', 5), facts);
    expect(first?.parts?.path).toBe('semantic');
  });
});
