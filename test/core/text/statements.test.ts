import { describe, expect, it } from 'vitest';
import { loadEvalData } from '../../../tools/eval/dataset.js';
import { CHAT_SETS } from '../../../tools/eval/suite.js';
import { askedClause, asksOrStates, isCleanQuestion, readSentences, statementsOf } from '../../../src/core/text/statements.js';

const DATA = new URL('../../../tools/eval/data/', import.meta.url).pathname;

describe('statementsOf: what of a chat message is worth remembering', () => {
  it.each([
    ['I\'m vegetarian.', 'I\'m vegetarian.'],
    ['Frank, my brother, is vegan.', 'Frank, my brother, is vegan.'],
    ['My daughter Mia was born in 2019.', 'My daughter Mia was born in 2019.'],
    ['We\'re expecting twins in August.', 'We\'re expecting twins in August.'],
    ['I want to visit Japan in 2027.', 'I want to visit Japan in 2027.'],
    ['I moved to Lyon yesterday.', 'I moved to Lyon yesterday.'],
    ['User doesn\'t eat beef.', 'User doesn\'t eat beef.'],
    ['Lukas built the kitchen table himself from old oak.', 'Lukas built the kitchen table himself from old oak.'],
    // Corrections keep their "actually" and "not ...".
    ['Actually, it\'s Porto, not Lisbon.', 'Actually, it\'s Porto, not Lisbon.'],
    ['No, I\'m allergic to shellfish, not peanuts.', 'No, I\'m allergic to shellfish, not peanuts.'],
    // An explicit "remember" keeps what follows it.
    ['Remember that I\'m allergic to shellfish.', 'I\'m allergic to shellfish.'],
    ['Dr. Bianchi is my doctor.', 'Dr. Bianchi is my doctor.'],
    // A question word inside is no question ("how" the user makes it, "where" they live).
    ['I know how to make pierogi.', 'I know how to make pierogi.'],
    ['Marta lives where the tram ends.', 'Marta lives where the tram ends.'],
    ['Ich bin Vegetarierin.', 'Ich bin Vegetarierin.'],
    ['Tengo dos gatos.', 'Tengo dos gatos.'],
    ['Annas Bruder heißt Jonas.', 'Annas Bruder heißt Jonas.'],
    ['小明对花生过敏。', '小明对花生过敏。'],
    // A name that is also a greeting is the subject when a verb follows it; a relative clause after a comma stays.
    ['Vale runs a bakery in Murcia.', 'Vale runs a bakery in Murcia.'],
    ['Ciao has two kittens.', 'Ciao has two kittens.'],
    ['My nephews are Teo, who\'s 7, and Bruno, who\'s 4.', 'My nephews are Teo, who\'s 7, and Bruno, who\'s 4.'],
    ['My aunt lives in Cádiz, where she grows lemons.', 'My aunt lives in Cádiz, where she grows lemons.'],
    ['I moved to Oslo, which was a big change.', 'I moved to Oslo, which was a big change.'],
    ['She is who she is, and Ana loves her for it.', 'She is who she is, and Ana loves her for it.'],
    ['My pension is small; the boats are what really pay the bills.', 'My pension is small; the boats are what really pay the bills.'],
    // A sentence after a question that is not about this moment or who asks.
    ['What should I cook? I just became vegan.', 'I just became vegan.'],
    // A clause of time before the main clause, and "anything" as a subject, open like questions but state.
    ['When it snows the back road closes, so Ana parks by the church.', 'When it snows the back road closes, so Ana parks by the church.'],
    ['Whenever I fly I ask for an aisle seat.', 'Whenever I fly I ask for an aisle seat.'],
    ['Anything with coriander tastes like soap to me, so I skip it.', 'Anything with coriander tastes like soap to me, so I skip it.'],
    ['I need more sleep.', 'I need more sleep.'],
  ])('keeps the statement %j', (message, kept) => {
    expect(statementsOf(message)).toBe(kept);
  });

  it.each([
    'Can I eat peanut butter?',
    'Can I order the prawn curry? What am I allergic to?',
    'what am I allergic to',
    // Typed in a hurry: a typo in the question word, or the question word last.
    'wat time is my dentist appointment',
    "my sister's bday is when again",
    'and Marta lives where',
    'the school trip leaves wen',
    'bin day is wich day',
    // A need with no subject before its question is the question's context, not a fact.
    'need new tyres for the van, which ones fit',
    // Still questions: a time clause that asks, or that asks the assistant.
    'When we get to Lyon what should I see first',
    'When I get home remind me to ring the vet',
    'when my gas safety check due',
    'Anything on this weekend',
    // Thanks to someone by name or pet name, and thanks in more languages.
    'thank you hun, god bless',
    'gracias che, sos un genio',
    'qujanaq, that helped',
    'suggest a restaurant for dinner with my sister',
    'Please book a table for two at 8.',
    'I need a restaurant for tonight.',
    'Let me know if you need anything else.',
    'Hi!',
    'Morning! 😊',
    'lol ok',
    'Thanks so much!! You\'re the best.',
    'Thanks, that worked perfectly.',
    'cheers, that helps a lot',
    'ta, off to bed now',
    'Hope you\'re well.',
    'So tired.',
    'Long day at the hospital.',
    'Work was insane today.',
    'Was macht Anna beruflich?',
    '¿Dónde vive mi hermana?',
    '小明对花生过敏吗',
    'Danke!',
    '¡Hola! ¿Qué tal?',
    '',
  ])('keeps nothing of %j', (message) => {
    expect(statementsOf(message)).toBeUndefined();
  });

  it('keeps the statements of a message that mixes them with a greeting, a request and thanks, joined in order', () => {
    const message = 'Hi! I\'m vegetarian now, and my sister Marta lives in Porto. Can you suggest a restaurant for Saturday? Thanks!';
    expect(readSentences(message).map((s) => s.kind)).toEqual(['small-talk', 'statement', 'question', 'small-talk']);
    expect(statementsOf(message)).toBe('I\'m vegetarian now, and my sister Marta lives in Porto.');
  });

  it.each([
    // Questions typed without their mark: asked after a comma, asked in place, or put as a statement.
    'the blood pressure tablets, what are they called again',
    'my passport renewal, when\'s it due',
    'nadia\'s wedding, is it june or july',
    'pilates is which evening ah',
    'bongani works where again',
    'i\'ve lost track of when the plumber is coming',
    'I forget what time the dentist said',
    'whereabouts in Leeds does my cousin live',
    // Small talk in pieces, and sign-offs.
    'ok thanks, good night my friend',
    'thank you so much, God bless',
    'sweet as, cheers',
    'lol ok thank u po',
    'diolch cariad, that\'s me sorted',
    'right that\'s me off to my bed, cheerio',
    'bless you hun, that\'s all i needed',
    'ka pai, thanks love',
    'femi does what for work over there',
    'bins - is that every monday or every other',
    "tomi's bday, when is it",
    'righto cheers',
    'och that\'s lovely, cheers hen',
    'where am i from again, cork or kerry? my memory is going',
    'by when must we send in the papers',
    'how old is aysel now, 10? 11?',
    'every how many days does he get back',
    'that monthly clinic visit, what is it for again',
    'jerejef, you are helping me a lot',
    'ok sağ ol, that helps a lot',
    'which blood thinner am i on? the dentist is asking',
    'how big is the salar? a tourist asked me and i blanked',
    "does wara have a boyfriend?? she's been glued to her phone all night",
    'some day out there today eh, sun splittin the rocks',
    'how much do i pay a month for the moto? i always forget',
    "b'y what's the one thing the grandson can't eat again",
  ])('keeps nothing of %j', (message) => {
    expect(statementsOf(message)).toBeUndefined();
  });

  it('reads the clause before a trailing question on its own', () => {
    expect(statementsOf('I\'m vegetarian, so what should I cook?')).toBe('I\'m vegetarian.');
  });

  it('reads every memory of the chat sets as a statement, and keeps nothing of their plain and unanswerable messages', () => {
    for (const name of CHAT_SETS) {
      const data = loadEvalData(`${DATA}${name}`);
      expect(data.memories.filter((m) => statementsOf(m.text) !== m.text).map((m) => m.text)).toEqual([]);
      const asked = data.queries.filter((q) => q.category === 'plain' || q.category === 'unanswerable');
      expect(asked.filter((q) => statementsOf(q.query) !== undefined).map((q) => q.query)).toEqual([]);
    }
  });
});

describe('askedClause: the question inside a sentence that says more', () => {
  it.each([
    // Spoken in one breath: a frame before, the reason after.
    ["hey so i was just sitting here thinking and i wanted to ask where does my sister live again because i honestly can't remember", 'where does my sister live again'],
    ["ok so what does my sister do asking cause i've got a lot on this week", 'what does my sister do'],
    ['so busy today, quick question - when is the dentist', 'when is the dentist'],
    ['been meaning to ask, i was wondering if my sister is vegetarian', 'my sister is vegetarian'],
    // Thanks typed on without a stop.
    ['what do I do for a living Thanks!', 'what do I do for a living'],
    ["what's my brother's job thanks so much, you're a star", "what's my brother's job"],
    ['what time is my dentist cause i need to book a taxi', 'what time is my dentist'],
    // To a comma before a clause of its own: the reason for asking, whose pronouns are not the question's.
    ['wait what date is the concert again, need to put it in my calendar', 'what date is the concert again'],
    ['what year is it, bloke at the garage wants to know', 'what year is it'],
    ['whats the wifi password, cheers', 'whats the wifi password'],
    // After "and" or a comma.
    ["i'm at the cafe and what's the wifi password", "what's the wifi password"],
  ])('finds %j -> %j', (sentence, clause) => {
    expect(askedClause(sentence)).toBe(clause);
  });

  it.each([
    // The question and nothing else, or a frame whose words are fillers.
    'where does my sister live again',
    'Can you remind me where Marta lives?',
    'i was wondering if my sister is vegetarian',
    // A question mark ends the question where the writer put it: what comes before it is part of it.
    "What pets wouldn't cause any discomfort to Joanna?",
    'What kind of job is Joanna beginning to do because of her movie scripts?',
    // What follows a comma and is no clause of its own is the question's ("the 14th or 15th").
    'what date is it, the 14th or 15th',
    // No question in it; a relative clause is not one.
    'I live in Porto, where my sister teaches.',
    'My aunt lives in Cádiz, which I love.',
  ])('finds none in %j', (sentence) => {
    expect(askedClause(sentence)).toBeUndefined();
  });

  it('makes a framed question a question, never a statement to keep', () => {
    expect(statementsOf("so i was thinking and i wanted to ask when my mum's birthday is because i forgot")).toBeUndefined();
    expect(statementsOf('I was wondering whether Marta eats fish')).toBeUndefined();
    expect(statementsOf("I'm vegan. i wanted to ask what I can cook")).toBe("I'm vegan.");
  });

  it('reads an exclamation that opens like a question as small talk', () => {
    expect(readSentences('Ugh, what a day. What do I drive?').filter((s) => s.kind !== 'small-talk').map((s) => s.text)).toEqual(['What do I drive?']);
    expect(readSentences('What a lovely surprise!').map((s) => s.kind)).toEqual(['small-talk']);
  });

  it('reads a question whose words are inverted anywhere in the sentence as a question ("the dog\'s meds when do i give them")', () => {
    for (const text of ["the dog's meds when do i give them", "Kasia's flight what time does it land", 'the puffer he uses whats it called']) {
      expect(readSentences(text).map((s) => s.kind), text).toEqual(['question']);
    }
    // A relative clause is not inverted.
    expect(readSentences('I give them their meds when they wake up.').map((s) => s.kind)).toEqual(['statement']);
  });

  it('reads a sentence that opens with a word that merely starts like a question word as what it is ("Doña")', () => {
    expect(statementsOf('Doña Candelaria turns 80 on 8 November.')).toBe('Doña Candelaria turns 80 on 8 November.');
  });

  it('reads thanks and praise for the help as small talk, in the languages mixed into chat', () => {
    for (const text of ['dyakuyu! that really helped', 'thank you, very helpful as always', 'ok gracias muy amable', 'aight, thanks boss', 'buena, gracias po']) {
      expect(statementsOf(text), text).toBeUndefined();
      expect(readSentences(text).every((s) => s.kind === 'small-talk'), text).toBe(true);
    }
  });

  it('reads praise typed after thanks as small talk, however its pieces open ("medaase, you do all")', () => {
    for (const text of ['medaase, you do all', 'děkuji, you are very kind', 'tack så mycket, du är snäll', 'merci bien, à plus']) {
      expect(readSentences(text).every((s) => s.kind === 'small-talk'), text).toBe(true);
    }
    expect(statementsOf("Thanks, I'm vegan now.")).toBe("Thanks, I'm vegan now.");
  });

  it('reads a terse request with its "please" at the end, and a question after "roughly"', () => {
    expect(readSentences('vet phone number pls').map((s) => s.kind)).toEqual(['request']);
    expect(readSentences('roughly how many people live in kumasi').map((s) => s.kind)).toEqual(['question']);
  });

  it('does not end a sentence at "No." before its number', () => {
    expect(statementsOf('My wife teaches English at School No. 12.')).toBe('My wife teaches English at School No. 12.');
  });

  it('reads asking after the assistant\'s day as small talk', () => {
    expect(readSentences("Which exam am I studying for? Anyway, how's your day?").map((s) => s.kind)).toEqual(['question', 'small-talk', 'small-talk']);
    expect(readSentences('hows ur weekend going').map((s) => s.kind)).toEqual(['small-talk']);
    expect(readSentences('How was your day?').map((s) => s.kind)).toEqual(['small-talk']);
  });

  it('reads chat typed in other ways as small talk: an emoji between thanks, "whats up", a message that says it only says hi', () => {
    for (const text of ['kadrinchey la 🙏 that helps a lot', 'heyy whats up', 'ok my friend, thank you, goodnight', 'cant sleep after nights lol, just saying hi']) {
      expect(statementsOf(text), text).toBeUndefined();
    }
    expect(readSentences('cher how much did that new boat set me back').map((s) => s.kind)).toEqual(['question']);
    for (const text of ['ya, gracias mija, nos vemos 😘', 'takk fyri, góða nátt', "hey, how's it going? bored at work lol"]) expect(statementsOf(text), text).toBeUndefined();
    // A noun with its own clause before a question is its topic: nothing to keep.
    expect(statementsOf('the money I borrowed for the house, how many more months do i pay?')).toBeUndefined();
    expect(statementsOf('The dog is sick, what should I do?')).toBe('The dog is sick.');
  });

  it('reads a reason with no subject after a question as no statement, and "a.m." as no sentence end', () => {
    expect(statementsOf('wat year did me n claudette tie the knot? want to get the anniversary right')).toBeUndefined();
    expect(statementsOf('I want to get the anniversary right.')).toBe('I want to get the anniversary right.');
    const shift = 'User\'s husband Sokha is out on the lake from 4 a.m. to noon.';
    expect(statementsOf(shift)).toBe(shift);
  });

  it('reads praise of the assistant and putting the chat off as small talk, but not a question about something put off', () => {
    for (const text of ["ah you're a star, what would i do without you?", 'bless you, can we pick this up later?', 'ok talk later!', 'can we continue tomorrow?', 'just saying hi', 'morning! just wanted to say good night lol']) {
      expect(readSentences(text).every((s) => s.kind === 'small-talk'), text).toBe(true);
      expect(asksOrStates(text), text).toBe(false);
    }
    for (const text of ['can we talk about my knee later?', 'can we continue my packing list?']) expect(asksOrStates(text), text).toBe(true);
  });
});

describe('isCleanQuestion: one question as the fact sets ask it', () => {
  it.each(['What does Aiko do for a living?', 'When is Musa\'s birthday?', '¿Dónde vive Marta?', '王芳的女儿几岁了？', 'Where does Dr. Okafor work?'])('%j is clean', (message) => {
    expect(isCleanQuestion(message)).toBe(true);
  });

  it.each(['whats mick do for a crust', 'what am I allergic to?', 'What does Mick do', 'Hi! What does Mick do?', 'dentist when', 'I\'m vegan. What can I cook?', '3 kids?', '', '?'])(
    '%j is typed as people type',
    (message) => {
      expect(isCleanQuestion(message)).toBe(false);
    },
  );
});
