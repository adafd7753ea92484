import { describe, expect, it } from 'vitest';
import { HybridRanker, MAX_IMPLIED_PARTS } from '../../../src/core/ranking/hybrid-ranker.js';
import { impliedNeeds, impliedParts } from '../../../src/core/ranking/needs.js';
import { LOCAL_CALLER } from '../../../src/core/types.js';
import { withHashService } from '../../helpers/hash-service.js';
import { candidate } from '../../helpers/ranking.js';

describe('impliedNeeds: what a request implies', () => {
  it('reads requests and "what should I" questions about food as the allergies and diet they imply', () => {
    expect(impliedNeeds('What should I cook for dinner tonight?', 'en')).toEqual(['What am I allergic to?', "What food and drink don't I have?"]);
    expect(impliedNeeds('suggest a restaurant for dinner with my sister', 'en')).toHaveLength(2);
    // Friday is a plan's day too: what the user already does that day.
    expect(impliedNeeds('Hi! Long day. Book me a table for a drink after work on Friday.', 'en')).toEqual(['What am I allergic to?', "What food and drink don't I have?", 'Which days am I busy?']);
    expect(impliedNeeds('Was soll ich heute Abend kochen?', 'de')).toEqual(['Bin ich allergisch?', 'Was esse und trinke ich nicht?']);
    expect(impliedNeeds('¿Qué puedo cocinar para la cena?', 'es')).toEqual(['¿A qué soy alérgico?', '¿Qué no como ni bebo?']);
  });

  it('reads a question whether a food is all right for someone as the same needs, the food named anywhere in the message', () => {
    expect(impliedNeeds('Can I eat soba?', 'en')).toHaveLength(2);
    expect(impliedNeeds('Is hummus safe for me to eat?', 'en')).toHaveLength(2);
    expect(impliedNeeds('Hiii. Daniel baked cookies with almonds. Are they ok for him?', 'en')).toHaveLength(2);
    expect(impliedNeeds('Is the new laptop ok for gaming?', 'en')).toEqual([]);
    // Not food: a day off is a plan's day.
    expect(impliedNeeds('Can I take Friday off?', 'en')).toEqual(['Which days am I busy?']);
  });

  it('reads packing as a trip, a meal called tea or an order as food, and what one needs to sort as a request', () => {
    expect(impliedNeeds('help me pack for lisbon', 'en')).toEqual(['How do I travel, and where do my family live?']);
    expect(impliedNeeds('what should I make for my tea tonight', 'en')).toEqual(['What am I allergic to?', "What food and drink don't I have?"]);
    expect(impliedNeeds('what do I need to sort out before we head south for the winter', 'en')).toEqual(['How do I travel, and where do my family live?']);
    expect(impliedNeeds('can you find me a workout i can do at home', 'en')).toEqual(['Do I have any injuries or health problems?']);
  });

  it('reads a choice asked after what the message said before it, and a request inside a sentence read as something else', () => {
    const food = ['What am I allergic to?', "What food and drink don't I have?"];
    const trip = ['How do I travel, and where do my family live?'];
    const cases: readonly (readonly [string, readonly string[]])[] = [
      // The topic is in the sentence before the question.
      // Friday is a plan's day too.
      ["uncle's coming round friday, i'm cooking for him, mama and nigar. what should i make", [...food, 'Which days am I busy?']],
      ['cooking supper for the three of us tonight, any ideas?', food],
      // The request is a clause of a sentence read as a statement.
      ['nuria and arnau are coming for lunch what should i cook', food],
      ['kondwani is home, give me ideas for lunch for all of us', food],
      ['thinking of going to tehran for a few days next month, help me plan', trip],
      // A visit is a trip.
      ['want to go see my sister for 3 days next month, what do i need to sort out', trip],
      ["I'll need to go to Bishkek for a few days in december, how should I plan it?", trip],
      // A week is a plan's time too.
      ["me and iván are going to my sister's for a week, how should we get there?", ['Which days am I busy?', ...trip]],
    ];
    for (const [message, needs] of cases) expect(impliedNeeds(message, 'en'), message).toEqual(needs);
  });

  it('reads "anything I should ...", "the best way to", "is it doable", "does that work" as a choice, and "go see" or "drive up to" as a trip', () => {
    const trip = ['How do I travel, and where do my family live?'];
    for (const message of [
      'thinking of driving up to see garazi, the three of us plus the dog. anything i should think about?',
      'thinking of going to see my boy, whats the best way for me to get there?',
      'want to fly up to see my mom in rosario between trips, is it doable?',
      'i have to go see the bank manager in maseru, help me plan it',
    ]) {
      expect(impliedNeeds(message, 'en'), message).toEqual(trip);
    }
    // "get him" in a choice is a present; "get him to" is not.
    expect(impliedNeeds('djaimy turns 6, what should i get him?', 'en')).toEqual(['What do my family and friends like?']);
    expect(impliedNeeds('how should i get him to practise more?', 'en')).toEqual([]);
    // Not a trip: going to bed or to work.
    expect(impliedNeeds('i have to head back to work early, any ideas?', 'en')).toEqual([]);
  });

  it('reads no choice into a question of fact after context ("where do we sell it", "what do I usually do")', () => {
    for (const message of [
      "ok so a man from a restaurant in sassari wants to buy my cheese and i want to tell him where else it is sold where do we sell it now",
      "Good morning! I'm on a layover in Bangkok. What do I usually do to keep fit while travelling?",
      'I had a great dinner with Marta last week. When is her birthday?',
    ]) {
      expect(impliedNeeds(message, 'en'), message).toEqual([]);
    }
  });

  it('implies nothing for how-to questions, questions of fact, statements or other topics', () => {
    for (const message of ['How long should I boil an egg for a soft yolk?', 'What is the best way to store fresh basil?', 'What did I have for dinner on Friday?', 'I had a great dinner with Marta.', '']) {
      expect(impliedNeeds(message, 'en'), message).toEqual([]);
    }
  });

  it('reads a plan for a day as when the user is busy, training as their health, a trip as how they travel, a pain as the medicines they must avoid, a present as what people like', () => {
    expect(impliedNeeds('Which weekend works for a family day out?', 'en')).toEqual([]);
    expect(impliedNeeds('Suggest something fun for the kids on Saturday.', 'en')).toEqual(['Which days am I busy?', 'What do my family and friends like?']);
    expect(impliedNeeds('Plan an outing with the grandchildren while they\'re here.', 'en')).toEqual(['What do my family and friends like?']);
    expect(impliedNeeds('Suggest a way for me to get back in shape this winter.', 'en')).toEqual(['Do I have any injuries or health problems?']);
    expect(impliedNeeds('Sort out a weekend away by train for Ciarán and me.', 'en')).toContain('How do I travel, and where do my family live?');
    // "stay away from" is no trip.
    expect(impliedNeeds('what fruit should I stay away from?', 'en')).not.toContain('How do I travel, and where do my family live?');
    expect(impliedNeeds('Plan my training for the next few months.', 'en')).toEqual(['Do I have any injuries or health problems?']);
    expect(impliedNeeds('Help me plan a visit to my grandma.', 'en')).toEqual(['How do I travel, and where do my family live?']);
    expect(impliedNeeds('Plan mein Training für die nächsten Monate.', 'de')).toEqual(['Habe ich Verletzungen oder gesundheitliche Probleme?']);
    // Requests in German and Spanish, and their words for a dish, a café, an outing.
    expect(impliedNeeds('Such mir ein Restaurant für ein Abendessen mit meiner Schwester.', 'de')).toEqual(['Bin ich allergisch?', 'Was esse und trinke ich nicht?']);
    expect(impliedNeeds('Empfiehl mir ein Gericht beim Inder.', 'de')).toEqual(['Bin ich allergisch?', 'Was esse und trinke ich nicht?']);
    expect(impliedNeeds('Plan einen Wochenendausflug für die Familie.', 'de')).toContain('Wie reise ich, und wo wohnt meine Familie?');
    expect(impliedNeeds('Recomiéndame un restaurante para cenar con mi hermano.', 'es')).toEqual(['¿A qué soy alérgico?', '¿Qué no como ni bebo?']);
    expect(impliedNeeds('¿Qué puedo hacer el sábado?', 'es')).toEqual(['¿Qué días estoy ocupado?']);
    expect(impliedNeeds('which painkillers should I avoid?', 'en')).toEqual(['Which medicines am I allergic to or must I avoid?']);
    expect(impliedNeeds("Hey hey. I've got a headache from hell. What can I take?", 'en')).toEqual(['Which medicines am I allergic to or must I avoid?']);
    expect(impliedNeeds('Suggest a birthday present for my son.', 'en')).toEqual(['What do my family and friends like?']);
    expect(impliedNeeds('A colleague invited me to a 5k charity run next month. Can I do it?', 'en')).toEqual(['Do I have any injuries or health problems?']);
    expect(impliedNeeds('Sara wants to do a boat tour this summer. Good idea for me?', 'en')).toEqual(['How do I travel, and where do my family live?']);
    // A question of fact about the same things implies nothing: it asks for itself.
    for (const message of ['What did the doctor say about my headache?', 'Can I go back to work?', 'When is my next training session?', 'How was your weekend?', 'I went running on Saturday.']) {
      expect(impliedNeeds(message, 'en'), message).toEqual([]);
    }
  });

  it('recalls at most MAX_IMPLIED_PARTS implied questions for one message, food first', () => {
    const message = 'Plan my weekend: a dinner with Sara, my long run, a present for my son and the flights to Rome.';
    expect(impliedNeeds(message, 'en').length).toBeGreaterThan(MAX_IMPLIED_PARTS);
    const implied = new HybridRanker().parts(message).filter((part) => impliedNeeds(message, 'en').includes(part));
    expect(implied).toEqual(impliedNeeds(message, 'en').slice(0, MAX_IMPLIED_PARTS));
    expect(implied[0]).toBe('What am I allergic to?');
  });

  it('knows its own questions, and only those: a part it implied, never one the person typed', () => {
    const ranker = new HybridRanker();
    const dinner = 'What should I cook for dinner tonight?';
    expect(ranker.plan('What am I allergic to?', 5, dinner).answeredBy).toBeDefined();
    expect(ranker.plan('What is Ines allergic to?', 5, dinner).answeredBy).toBeUndefined();
    expect(ranker.plan(dinner, 5, dinner).answeredBy).toBeUndefined();
    // Typed, alone or beside a request, the same words are the person's own question.
    expect(ranker.plan('What am I allergic to?', 5).answeredBy).toBeUndefined();
    expect(ranker.plan('What am I allergic to?', 5, `${dinner} What am I allergic to?`).answeredBy).toBeUndefined();
  });
});

describe('what settles an implied need whatever its words', () => {
  const settles = (message: string, text: string): boolean => impliedParts(message, 'en').some((part) => part.settles?.test(text) === true);

  it('a restriction settles food, a condition training, a fear of the means a trip, a drug allergy a pain', () => {
    expect(settles('Plan a dinner for Sanna and me.', 'Sanna is lactose intolerant.')).toBe(true);
    expect(settles('Plan a dinner for Sanna and me.', "Hemi can't eat onions or garlic.")).toBe(true);
    expect(settles('Suggest a workout routine for me.', 'The user has asthma and carries an inhaler.')).toBe(true);
    expect(settles('Find me a boat trip for my birthday.', 'I get seasick on boats, even on calm days.')).toBe(true);
    expect(settles("I've got a headache. What can I take?", "I'm allergic to ibuprofen.")).toBe(true);
    // Where the trip starts, or where the one visited lives; a weight goal for training; a liking for an outing.
    expect(settles('Book a trip for the boys and me to visit my mum at Easter.', 'I live in Neukölln.')).toBe(true);
    expect(settles('Can you look up flights for my trip to see my son?', 'My son Antoine lives in Montreal.')).toBe(true);
    expect(settles('Give me a workout plan I can actually stick to.', 'User is trying to lose 15 kg before his 40th birthday.')).toBe(true);
    expect(settles('Plan an outing with the grandchildren.', 'My granddaughter Lotte is 8 and loves dinosaurs.')).toBe(true);
  });

  it('knows whom an "is it all right" question is about: a name, or the one name "he" or "she" points at', () => {
    const about = (message: string): (string | undefined)[] => impliedParts(message, 'en').map((part) => part.about);
    expect(about('Rafa wants pizza tonight. Can he eat the four-cheese one?')).toEqual(['Rafa', 'Rafa']);
    expect(about('Can Musa have peanuts?')).toEqual(['Musa', 'Musa']);
    expect(about('Hiii. Daniel baked cookies with almonds. Are they ok for him?')).toEqual(['Daniel', 'Daniel']);
    expect(about('Can I eat soba?')).toEqual([undefined, undefined]);
    expect(about('Tom and Ana made a cake. Can she have it?')).toEqual([undefined, undefined]);
  });

  it('a liking on the same topic settles nothing, nor an allergy to something else, nor a busy day', () => {
    expect(settles('Plan a dinner for Sanna and me.', 'User takes her coffee black, no sugar.')).toBe(false);
    expect(settles('Suggest a workout routine for me.', 'I want to learn to swim properly this year.')).toBe(false);
    expect(settles("I've got a headache. What can I take?", 'Léa is allergic to cats.')).toBe(false);
    expect(settles('Plan my Saturday.', 'I work Saturdays.')).toBe(false);
  });

  it('the ranker lifts a memory that settles the need, unless it is about a relative the message does not bring', () => {
    const ranker = new HybridRanker();
    const message = 'Can I eat soba?';
    const food = impliedNeeds(message, 'en')[0] as string;
    const mine = ranker.plan(food, 5, message).settles;
    expect(mine?.relations).toEqual(new Set());
    expect(ranker.plan(food, 5, 'Plan a dinner for the whole family.').settles?.relations).toBe('anyone');
    const fact = (id: string, text: string) => candidate(id, text, 0.45);
    const facts = [fact('me', "I can't eat peanuts."), fact('sis', "My sister Marta doesn't eat meat."), fact('run', 'I run 10 km every Sunday.')];
    const on = ranker.rank(food, ranker.plan(food, 5, message), facts);
    const off = new HybridRanker({ impliedCoverage: 0 }).rank(food, ranker.plan(food, 5, message), facts);
    const words = (list: typeof on, id: string): number => list.find((s) => s.candidate.memory.id === id)?.parts?.words ?? -1;
    // Its words cover less of the rule's wording ("What am I allergic to?") than the share it earns.
    expect(words(off, 'me')).toBeLessThan(0.5);
    expect(words(on, 'me')).toBe(0.5);
    expect(on.find((x) => x.candidate.memory.id === 'me')?.parts?.settles).toBe(0.5);
    expect(words(on, 'sis')).toBe(words(off, 'sis'));
    // About someone else by name: the user's own restriction settles nothing, theirs does.
    const rafa = 'Rafa wants pizza tonight. Can he eat the four-cheese one?';
    const rafaFacts = [fact('me', "I can't eat peanuts."), fact('rafa', 'Rafael is lactose intolerant.'), fact('he', 'He is vegan.')];
    const forRafa = ranker.rank(food, ranker.plan(food, 5, rafa), rafaFacts);
    const settled = (id: string): number | undefined => forRafa.find((x) => x.candidate.memory.id === id)?.parts?.settles;
    expect(settled('me')).toBeUndefined();
    expect(settled('rafa')).toBe(0.5);
    expect(settled('he')).toBe(0.5);
  });
});

// Through the real service, SQLite and the hash model: a dinner request finds the food allergy and the diet, not an
// allergy to a medicine; turned off, the allergy is not among the results at all.
const MEMORIES = ['Ines is allergic to shellfish.', 'I am allergic to penicillin.', "My sister Marta doesn't eat meat.", 'Ines runs 10 km every Sunday.'];

function recallWith(impliedNeedsOn: boolean, query: string) {
  return withHashService({ impliedNeeds: impliedNeedsOn }, 'ines', MEMORIES, (service) =>
    service.recall(LOCAL_CALLER, { userId: 'ines', query, explain: true, minScore: 0, limit: 10 }),
  );
}

describe('recall of a request recalls what it implies', () => {
  it('finds the food allergy by the implied question, and not the allergy to a medicine by it', async () => {
    const on = await recallWith(true, 'Suggest a restaurant for dinner with my sister.');
    const off = await recallWith(false, 'Suggest a restaurant for dinner with my sister.');
    const shellfish = on.memories.find((m) => m.text.startsWith('Ines is allergic'));
    expect(shellfish?.explain?.part).toBe('What am I allergic to?');
    expect(shellfish?.score ?? 0).toBeGreaterThan(off.memories.find((m) => m.text.startsWith('Ines is allergic'))?.score ?? 0);
    const penicillin = on.memories.find((m) => m.text.includes('penicillin'));
    expect(penicillin?.explain?.part).not.toBe('What am I allergic to?');
  });

  it('answers a typed "What am I allergic to?" with every allergy, food or not', async () => {
    const typed = await recallWith(true, 'What am I allergic to?');
    expect(typed.memories.map((m) => m.text)).toEqual(expect.arrayContaining(['Ines is allergic to shellfish.', 'I am allergic to penicillin.']));
  });
});
