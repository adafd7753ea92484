import { describe, expect, it } from 'vitest';
import type { MemoryService } from '../../../src/core/service.js';
import { LOCAL_CALLER } from '../../../src/core/types.js';
import { withHashService } from '../../helpers/hash-service.js';

// "I" and "my" are the user: recall reads a first-person part as an agent's note too, through the real service,
// SQLite and the hash model (whose vectors share the word "user" with the note).

const MEMORIES = ['User is allergic to shellfish.', 'I run 10 km every Sunday.', "User's sister Marta lives in Porto."];

function withService<T>(selfParts: boolean, run: (service: MemoryService) => Promise<T>): Promise<T> {
  return withHashService({ selfParts }, 'ines', MEMORIES, run);
}

function recallAll(service: MemoryService, query: string) {
  return service.recall(LOCAL_CALLER, { userId: 'ines', query, explain: true, minScore: 0, limit: 10 });
}

describe('recall reads "I" and "my" as the user', () => {
  it('meets an agent note with a first-person question, and explain.self names the reading', async () => {
    const [on, off] = await Promise.all([true, false].map((self) => withService(self, (s) => recallAll(s, 'what am I allergic to?'))));
    const allergyOn = on?.memories.find((m) => m.text.startsWith('User is allergic'));
    const allergyOff = off?.memories.find((m) => m.text.startsWith('User is allergic'));
    expect(allergyOn?.explain?.self).toBe('what is user allergic to?');
    expect(allergyOn?.score ?? 0).toBeGreaterThan(allergyOff?.score ?? 1);
    expect(allergyOff?.explain?.self).toBeUndefined();
    expect(on?.memories[0]?.text).toBe('User is allergic to shellfish.');
  });

  it('keeps the score as typed where it is better, and leaves a query with no first person as it was', async () => {
    await withService(true, async (service) => {
      // A memory in the first person matches the query as typed: never lowered by the second reading.
      const run = (await recallAll(service, 'when do I run?')).memories.find((m) => m.text.startsWith('I run'));
      expect(run).toBeDefined();
      expect(run?.explain?.self).toBeUndefined();
      const third = await recallAll(service, 'Where does Marta live?');
      expect(third.memories.every((m) => m.explain?.self === undefined)).toBe(true);
    });
    const [on, off] = await Promise.all([true, false].map((self) => withService(self, (s) => recallAll(s, 'Where does Marta live?'))));
    expect(on?.memories.map((m) => [m.text, m.score])).toEqual(off?.memories.map((m) => [m.text, m.score]));
  });
});

describe('a first-person question over facts stored about the user', () => {
  // Stored in one burst, a memory in the first person would make its neighbours turns of a conversation (which keep
  // their evidence): the notes and the first-person memory are stored for users of their own.
  const NOTES = ['User is allergic to shellfish.', "User's sister Marta lives in Porto."];

  it('lifts the notes and third-person facts by selfLift (explain.selfLift)', async () => {
    const [lifted, plain] = await Promise.all(
      // standing 0: the typed question's first memory would rise to 1 either way (standing.ts).
      [1.1, 1].map((selfLift) => withHashService({ selfLift, standing: 0 }, 'ines', NOTES, (s) => recallAll(s, 'what am I allergic to?'))),
    );
    const note = lifted?.memories.find((m) => m.text.startsWith('User is allergic'));
    expect(note?.explain?.selfLift).toBe(1.1);
    expect(note?.score ?? 0).toBeGreaterThan(plain?.memories.find((m) => m.text.startsWith('User is allergic'))?.score ?? 1);
    expect(plain?.memories.every((m) => m.explain?.selfLift === undefined)).toBe(true);
    // A question in the third person is read as it was.
    const third = await withHashService({ selfLift: 1.1 }, 'ines', NOTES, (s) => recallAll(s, 'What is Ines allergic to?'));
    expect(third.memories.every((m) => m.explain?.selfLift === undefined)).toBe(true);
  });

  it('leaves a memory in the first person as it was: the question meets it as typed', async () => {
    const [lifted, plain] = await Promise.all(
      [1.1, 1].map((selfLift) => withHashService({ selfLift }, 'ines', ['I am allergic to penicillin.'], (s) => recallAll(s, 'what am I allergic to?'))),
    );
    expect(lifted?.memories[0]?.explain?.selfLift).toBeUndefined();
    expect(lifted?.memories[0]?.score).toBe(plain?.memories[0]?.score);
  });
});
