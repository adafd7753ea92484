import { describe, expect, it } from 'vitest';
import { commonWordsFrom } from '../../../src/core/ranking/lexicon/common-words.js';
import { correctTypos, editDistance, vocabularyOf } from '../../../src/core/text/typos.js';

const MEMORIES = ["I'm allergic to shellfish.", 'My dentist appointment is on 3 March.', 'Matěj teaches maths in Brno.', 'Dougie has a meat allergy.', 'Assignments are due every second Friday.'];
const vocabulary = vocabularyOf(MEMORIES);
const KNOWN = new Set(['what', 'when', 'about', 'again', 'teach', 'right', 'meat', 'night', 'mean']);
const known = (word: string): boolean => KNOWN.has(word);

describe('editDistance: one letter added, dropped, changed, or two neighbours swapped', () => {
  it.each([
    ['allergic', 'allergic', 0],
    ['alergic', 'allergic', 1],
    ['allerggic', 'allergic', 1],
    ['alelrgic', 'allergic', 1],
    ['dentsit', 'dentist', 1],
    ['assignmnets', 'assignments', 1],
    ['dentits', 'dentist', 1],
    ['dnetsit', 'dentist', 2],
  ])('%s ~ %s: %i', (a, b, d) => {
    expect(editDistance(a, b, 2)).toBe(d);
    expect(editDistance(b, a, 2)).toBe(d);
  });

  it('stops at the bound', () => {
    expect(editDistance('shellfish', 'dentist', 2)).toBe(3);
    expect(editDistance('ab', 'abcdef', 1)).toBe(2);
  });
});

describe('correctTypos: a typo read as the one word of the memories it is that close to', () => {
  it.each([
    ['what am I alergic to?', 'what am I allergic to?'],
    ['when is my dentsit appointment', 'when is my dentist appointment'],
    ['how often are my course assignmnets due?', 'how often are my course assignments due?'],
    // A possessive keeps its 's; a lower-case name typed without its accent stays (it is the same word folded).
    ["my dentsit's address", "my dentist's address"],
  ])('%j -> %j', (typed, corrected) => {
    expect(correctTypos(typed, vocabulary, known)).toBe(corrected);
  });

  it.each([
    // Words of the memories, words the reader knows, irregular forms, contractions and short words stay as typed.
    'what does matej teach?',
    'what am I meant to avoid',
    "she's off to the dentist",
    'what time tonight',
    // Capitalised: a name two edits or a first letter away from the memories' is another name.
    'does Dagi like it?',
    'does Pougie like it?',
    // Another first letter is another word ("aight" is no "night").
    'aight when is it',
  ])('leaves %j alone', (typed) => {
    expect(correctTypos(typed, vocabulary, known)).toBeUndefined();
  });

  it('leaves a word alone when two words of the memories are as close', () => {
    expect(correctTypos('is it the bakker', vocabularyOf(['The baker opens at six.', 'The banker called.']), () => false)).toBeUndefined();
    expect(correctTypos('is it the bakker', vocabularyOf(['The baker opens at six.']), () => false)).toBe('is it the baker');
  });
});

describe('correctTypos with common words, where the memories hold no word that close', () => {
  it.each([
    ['what race am I trainnig for', 'what race am I training for'],
    ['which lnguages do I speak', 'which languages do I speak'],
    ['what do I do for a livnig', 'what do I do for a living'],
  ])('%j -> %j', (typed, corrected) => {
    expect(correctTypos(typed, vocabulary, known, commonWordsFrom)).toBe(corrected);
  });

  it.each([
    // Shorter than 6 letters: borrowed words and slang are one edit from too many common words.
    'can I have satay tonight',
    'noche buena plans',
    // A common word is no typo, nor is a word no common word is one edit from.
    'is there anything Vedika cannot eat',
    'what about the quokkas',
  ])('leaves %j alone', (typed) => {
    expect(correctTypos(typed, vocabulary, known, commonWordsFrom)).toBeUndefined();
  });

  it('leaves a word beside one written with letters English has not: it is that language\'s too', () => {
    expect(correctTypos('Góðan morgun. The twins are asking how old the dog is', vocabulary, known, commonWordsFrom)).toBeUndefined();
    expect(correctTypos('Góðan morgun. what race am I trainnig for', vocabulary, known, commonWordsFrom)).toBe('Góðan morgun. what race am I training for');
  });

  it('reads a capitalised name typed wrong as the memories\' name, capitalised, and never as a common word', () => {
    expect(correctTypos('does Dougi like it?', vocabulary, known, commonWordsFrom)).toBe('does Dougie like it?');
    expect(correctTypos("when is Dougei's birthday", vocabulary, known, commonWordsFrom)).toBe("when is Dougie's birthday");
    // "Trainnig" at a sentence's start is capitalised too: only a word of the memories, so left here.
    expect(correctTypos('Trainnig starts when?', vocabulary, known, commonWordsFrom)).toBeUndefined();
  });

  it('takes, of common words as close, the one that is a form of a word of the memories, if exactly one is', () => {
    // "studing" is one edit from "studying" and from "studding"; the memories say "studies".
    expect(correctTypos('what is annelie studing', vocabularyOf(["User's daughter Annelie studies veterinary science."]), known, commonWordsFrom)).toBe(
      'what is annelie studying',
    );
    expect(correctTypos('what is annelie studing', vocabularyOf(['Annelie lives in Pretoria.']), known, commonWordsFrom)).toBeUndefined();
  });

  it('prefers a word of the memories to a common word: a lower-case name typed wrong is theirs', () => {
    expect(correctTypos('is dougiee coming', vocabularyOf(['Dougie has a meat allergy.']), known, commonWordsFrom)).toBe('is dougie coming');
  });

  it('holds only lower-case words of letters, three or more, the inflections included', () => {
    for (const letter of 'abcdefghijklmnopqrstuvwxyz') for (const word of commonWordsFrom(letter)) expect(word).toMatch(/^[a-z]{3,}$/);
    expect(commonWordsFrom('t')).toContain('training');
    expect(commonWordsFrom('l')).toContain('languages');
  });
});

describe('correctTypos: a possessive typed without its apostrophe', () => {
  const names = vocabularyOf(['Rafa works as a chef.', "User's wife Noor is a pilot."]);
  const knownWords = (word: string): boolean => ['wife', 'what', 'job', 'car'].includes(word);

  it.each([
    // "whats" too: "what" with an s ("what's" is its contraction as much as its possessive).
    ['whats Rafas job', "what's Rafa's job"],
    ['is rafas job far', "is rafa's job far"],
    ['my wifes car', "my wife's car"],
  ])('%j -> %j', (typed, corrected) => {
    expect(correctTypos(typed, names, knownWords)).toBe(corrected);
  });

  it('leaves a word the reader knows, a name of the memories and a possessive as typed', () => {
    expect(correctTypos('what does Noor do', names, knownWords)).toBeUndefined();
    expect(correctTypos("what's Rafa's job", names, knownWords)).toBeUndefined();
    // Capitalised, an s after a word the reader knows but the memories do not hold is no name's possessive.
    expect(correctTypos('Cars and trucks', names, knownWords)).toBeUndefined();
  });
});
