import { describe, expect, it } from 'vitest';
import type { MemoryService } from '../../../src/core/service.js';
import { LOCAL_CALLER } from '../../../src/core/types.js';
import { withHashService } from '../../helpers/hash-service.js';

// A typo is read as the word of the user's memories it is close to (text/typos.ts), through the real service, SQLite
// and the hash model (whose vectors are the words: a typo shares none with the memory).

const MEMORIES = ['Ines is allergic to shellfish.', 'Ines runs 10 km every Sunday.', "Ines's sister Marta lives in Porto."];

function recallAll(service: MemoryService, query: string) {
  return service.recall(LOCAL_CALLER, { userId: 'ines', query, explain: true, minScore: 0, limit: 10 });
}

describe('recall reads a typo as the word of the memories it is close to', () => {
  it('finds the memory, and explain.corrected names the reading', async () => {
    const [on, off] = await Promise.all(
      // standing 0: the typed question's first memory would rise to 1 either way (standing.ts).
      [true, false].map((typos) => withHashService({ typos, standing: 0 }, 'ines', MEMORIES, (s) => recallAll(s, 'what is Ines alergic to?'))),
    );
    const allergyOn = on?.memories.find((m) => m.text.includes('allergic'));
    const allergyOff = off?.memories.find((m) => m.text.includes('allergic'));
    expect(allergyOn?.explain?.corrected).toBe('what is Ines allergic to?');
    expect(allergyOn?.score ?? 0).toBeGreaterThan(allergyOff?.score ?? 1);
    expect(on?.memories[0]?.text).toBe('Ines is allergic to shellfish.');
    expect(off?.memories.every((m) => m.explain?.corrected === undefined)).toBe(true);
  });

  it('leaves a question without typos as it was', async () => {
    const [on, off] = await Promise.all(
      [true, false].map((typos) => withHashService({ typos }, 'ines', MEMORIES, (s) => recallAll(s, 'Where does Marta live?'))),
    );
    expect(on?.memories.map((m) => [m.text, m.score])).toEqual(off?.memories.map((m) => [m.text, m.score]));
    expect(on?.memories.every((m) => m.explain?.corrected === undefined)).toBe(true);
  });
});
