import { describe, expect, it } from 'vitest';
import { HybridRanker } from '../../../src/core/ranking/hybrid-ranker.js';
import { speakAsUser, speaksAsSelf } from '../../../src/core/ranking/self.js';

describe('speakAsUser: first person read as an agent note about the user', () => {
  it('names the user where the query says I, my, me, with English agreement', () => {
    expect(speakAsUser('what am I allergic to?')).toBe('what is user allergic to?');
    expect(speakAsUser('where does my sister live again')).toBe("where does user's sister live again");
    expect(speakAsUser('Can you remind me where Marta lives?')).toBe('Can you remind user where Marta lives?');
    expect(speakAsUser("I'm cooking tonight, what do I avoid?")).toBe('user is cooking tonight, what do user avoid?');
    expect(speakAsUser('Am I free on Sunday?')).toBe('Is user free on Sunday?');
    expect(speakAsUser('what am I allergic to?', 'Ines')).toBe('what is Ines allergic to?');
  });

  it('reads the first person of the other languages the text analysis knows', () => {
    expect(speakAsUser('Wo wohnt meine Schwester?')).toBe('Wo wohnt users Schwester?');
    expect(speakAsUser('¿Dónde vive mi hermana?')).toBe('¿Dónde vive de user hermana?');
  });

  it('leaves a text with no first-person word alone', () => {
    expect(speakAsUser('What is Ines allergic to?')).toBeUndefined();
    expect(speakAsUser('')).toBeUndefined();
    expect(speaksAsSelf('Where does Alice live?')).toBe(false);
    expect(speaksAsSelf('Is it mine?')).toBe(true);
    // "I" inside a word is not the pronoun.
    expect(speaksAsSelf('Italy in May')).toBe(false);
  });
});

describe('HybridRanker.asUser', () => {
  it('reads each first-person part, and nothing when no part speaks in the first person', () => {
    const ranker = new HybridRanker();
    expect(ranker.asUser(['Hi! What am I allergic to?', 'What am I allergic to?'])).toEqual(['Hi! What is user allergic to?', 'What is user allergic to?']);
    expect(ranker.asUser(['Where does Alice live?', 'Thanks, where is my cat?'])).toEqual([undefined, "Thanks, where is user's cat?"]);
    expect(ranker.asUser(['Where does Alice live?'])).toBeUndefined();
    expect(new HybridRanker({ selfParts: false }).asUser(['What am I allergic to?'])).toBeUndefined();
  });
});
