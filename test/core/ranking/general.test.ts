import { describe, expect, it } from 'vitest';
import { asksGeneral } from '../../../src/core/ranking/general.js';
import { impliedNeeds } from '../../../src/core/ranking/needs.js';
import { candidate, rankedById } from '../../helpers/ranking.js';

const memories = [
  'The user wants to climb Mount Kenya before he turns 50.',
  "I'm saving to take the whole family to Tonga for Christmas next year.",
  'Wiremu coaches Manaia\u2019s touch rugby team on Wednesday afternoons.',
  "I've got twin boys, An and Minh, who are 9.",
  'My twins start school in Hilo.',
  'Sam works as a nurse in Leeds.',
  'Darío is a mountain guide who leads treks on the Inca Trail.',
  'Caroline: I went to a support group yesterday.',
  'User surfs at Sopelana whenever the swell is good.',
  "I'm learning Manx Gaelic at an evening class on Wednesdays.",
  "Riaan's bakkie is a 2014 Toyota Hilux with 410,000 km on it.",
];

describe('asksGeneral: a question about the world, not about anyone', () => {
  it('reads measures, the best or usual, safety and translations as general', () => {
    for (const q of [
      'how high is mount kenya',
      "what's the population of tonga",
      'how many players are on a touch rugby team',
      'Is it safe to give a greyhound raw chicken wings?',
      'how do you say cheers in irish',
      "What's the Gaelic for happy birthday?",
      'how long do kelpies usually live',
      "what's the best month to visit Sicily",
      'Who discovered penicillin?',
      'what time is it in Tokyo',
      'what does hygge mean',
      'what year did the Berlin Wall fall',
      // typed without the apostrophe, a word or two before the frame's noun, the weather and the daylight
      "what's the surf forecast for tomorrow",
      'whats the speed limit for trucks on the autobahn',
      "what's the manx word for thank you",
      'is it gonna rain in bradford tomorrow',
      'what time does it get dark in whitehorse in december',
      'what do you call a female reindeer in english',
    ]) {
      expect(asksGeneral(q, memories), q).toBe(true);
    }
  });

  it('reads people or animals in general as the world: a bare plural with "usually" or "typically"', () => {
    for (const q of ['what age do kids usually start hurling', 'how long do dogs typically live', 'at what age do babies normally walk', 'can dogs eat grapes', 'can babies have honey']) {
      expect(asksGeneral(q, memories), q).toBe(true);
    }
    // Not someone's own, nor without the word that says "in general".
    for (const q of ['what age do my kids usually start school', 'how many kids does my sister usually have over', 'what age do kids start hurling', 'can my dogs eat grapes']) {
      expect(asksGeneral(q, memories), q).toBe(false);
    }
  });

  it('never reads a question about someone as general', () => {
    for (const q of [
      // a pronoun, a relative, a possessive, the assistant as a person
      'how long does she usually stay',
      'how many kids does my sister have',
      "how much is Sam's rent",
      'how long have you known me',
      // a person the memories know, by a verb, a speaker's name or without accents
      'how many kids does sam have',
      'How many times has Caroline gone to the beach?',
      'How much does a trek with Dario cost?',
      // "the twins": the user's, as a memory says; "the hilux": "Riaan's bakkie is a 2014 Toyota Hilux"
      'where do the twins go to school',
      'how many kms on the hilux now',
      // no general frame
      'which days is league training',
      'how old is Jitka?',
      'what year did I move to Leeds',
      "who is the coach of my son's team",
    ]) {
      expect(asksGeneral(q, memories), q).toBe(false);
    }
  });

  it('implies no need of the user for a general question about what is all right', () => {
    expect(impliedNeeds('Is it safe to give a greyhound raw chicken wings?', 'en')).toEqual([]);
    expect(impliedNeeds('Is it safe for Rafa to eat cashews?', 'en').length).toBeGreaterThan(0);
    expect(impliedNeeds('Can I eat sushi?', 'en').length).toBeGreaterThan(0);
  });
});

describe('generalFactor: a general question over memories on its topic', () => {
  const kenya = candidate('kenya', 'The user wants to climb Mount Kenya before he turns 50.', 0.62);
  const car = candidate('car', 'User drives a Toyota Prado.', 0.1);

  it('discounts every memory, and shows it in explain', () => {
    const general = rankedById('how high is mount kenya', [kenya, car]);
    expect(general.get('kenya')?.parts?.general).toBe(0.55);
    const off = rankedById('how high is mount kenya', [kenya, car], { generalFactor: 1 });
    expect(off.get('kenya')?.parts?.general).toBeUndefined();
    expect(off.get('kenya')?.score ?? 0).toBeGreaterThan(general.get('kenya')?.score ?? 1);
  });

  it('leaves a question about the user alone', () => {
    expect(rankedById('when am I climbing mount kenya', [kenya, car]).get('kenya')?.parts?.general).toBeUndefined();
  });

  it('leaves alone a memory that states the amount "how much" asks, as the user asks about what they pay', () => {
    const loan = candidate('loan', "I'm paying off a 2019 Hyundai Elantra, 420 manat a month until August 2027.", 0.48);
    const trip = candidate('trip', 'Gulnara runs a yurt camp on the south shore of Song-Kol lake.', 0.4);
    const amount = rankedById('how much is left on the car, monthly and until when', [loan, trip]);
    expect(amount.get('loan')?.parts?.general).toBeUndefined();
    expect(amount.get('trip')?.parts?.general).toBe(0.55);
    // Not for another measure: "how high" asks about the world though a memory holds a number.
    expect(rankedById('how high is mount kenya', [kenya, candidate('climb', 'The user climbed 3 peaks over 4,000 m.', 0.5)]).get('climb')?.parts?.general).toBe(0.55);
  });
});
