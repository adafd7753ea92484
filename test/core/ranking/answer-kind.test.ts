import { describe, expect, it } from 'vitest';
import { answerFactsOf, answerKindOf, knownNames, nameAskedOf, namesIn, namesThe, offersAnswer, statesAgeOf, statesBirthdayOf } from '../../../src/core/ranking/answer-kind.js';
import { candidate, rankedById } from '../../helpers/ranking.js';

describe('answerKindOf', () => {
  it('reads the kinds a question asks for plainly', () => {
    expect(answerKindOf('What colour is Maria’s car?')).toBe('colour');
    expect(answerKindOf('which color are her shoes')).toBe('colour');
    expect(answerKindOf('How old is Kenji?')).toBe('number');
    expect(answerKindOf('how much does Tom charge per hour')).toBe('number');
    // A height or a weight is a measure: a number with its unit.
    expect(answerKindOf('how tall is matas now')).toBe('measure');
    expect(answerKindOf('how heavy is the anchor')).toBe('measure');
    expect(answerKindOf('how far is it to my mum')).toBe('number');
    expect(answerKindOf("What's Lena's dog called?")).toBe('name');
    expect(answerKindOf('what are the names of Tom’s kids?')).toBe('name');
    expect(answerKindOf('When is Musa’s birthday?')).toBe('date');
    expect(answerKindOf("when's our anniversary?")).toBe('date');
    expect(answerKindOf('When was Mia born?')).toBe('date');
  });

  it('asks for no name where the thing is called by a common word, nor for a phone call', () => {
    expect(answerKindOf("What's her condition called again?")).toBeUndefined();
    expect(answerKindOf('what are my bp pills called')).toBeUndefined();
    expect(answerKindOf("whats brayan's puffer called")).toBeUndefined();
    expect(answerKindOf("which med i'm on for them, what's it called")).toBeUndefined();
    expect(answerKindOf('What course did I sign up for, what is it called?')).toBeUndefined();
    expect(answerKindOf('Amma called about Achan\'s check-up. What surgery did he have again?')).toBeUndefined();
    expect(answerKindOf("what's my dog called")).toBe('name');
    expect(answerKindOf("What is the name of Lena's brother?")).toBe('name');
  });

  it('leaves frames whose answers are as often common words or the memory\'s own date: who, which, where, when did, how many', () => {
    for (const q of ['Who did John go to yoga with?', 'Which activity does Nate enjoy?', 'Where did they meet?', 'When did Caroline go to the support group?', 'How many times has John hurt his ankle?', 'What is Aiko allergic to?', 'Is the colour of the sea blue?']) {
      expect(answerKindOf(q), q).toBeUndefined();
    }
  });

  it('asks for a time when something happens, is due or recurs', () => {
    for (const q of ['When is the party?', "when's bub due again", 'what day does the new roster usually come out', 'What time is the jummah talk these days', 'remind me when ana sees her diabetes doctor', 'wat days is netball practice', 'when do i have to pay the landlord', 'how long is dougie away each stint', 'How often does Mum visit?']) {
      expect(answerKindOf(q), q).toBe('time');
    }
    // A birthday's date is a date, not any time ("every spring" is no birthday).
    expect(answerKindOf('When is Musa’s birthday?')).toBe('date');
    // Typed tersely, the question word last.
    expect(answerKindOf('agus bday when')).toBe('date');
    expect(answerKindOf("kristina's grad is which day")).toBe('time');
    expect(answerKindOf("nethmi's exams, when?")).toBe('time');
  });
});

describe('namesIn', () => {
  it('keeps capitalised words and drops a sentence’s common first word', () => {
    expect([...namesIn('Currently Jonas rents a flat in Berlin-Neukölln. Every Sunday he calls Mira.')]).toEqual(['jonas', 'berlin', 'neukolln', 'sunday', 'mira']);
    expect([...namesIn("Mira's cello is old.")]).toEqual(['mira']);
    expect([...namesIn('Chloé lives in Annecy.')]).toEqual(['chloe', 'annecy']);
    // Question words, auxiliaries and chat openers start sentences; they name nobody.
    expect([...namesIn('Good morning! What is Chispa on? Do I know? Omg.')]).toEqual(['chispa', 'i']);
  });
});

describe('statesAgeOf: whether a memory gives the age of the one asked', () => {
  it('finds their age beside their name, not someone else\'s beside it', () => {
    for (const [name, text] of [
      ['oskar', 'Oskar is 41 and drives a tram.'],
      ['fanja', 'Haingo has three children: Fanja, 14, Ny Aina, 9, and baby Tojo.'],
      ['vroni', 'Vroni (40) runs the bakery.'],
      ['tam', 'We adopted a 9-year-old boy called Tam.'],
      ['mia', 'My daughter Mia was born in 2019.'],
      ['illari', "Mariela's granddaughter Illari, Wilmer's girl, is 3."],
      ['loki', "We have an African grey parrot called Loki, he's 23."],
      ['bobik', 'Zdenka\'s dachshund Bobík is nine and has a slipped disc.'],
    ] as const) {
      expect(statesAgeOf(name, text), text).toBe(true);
    }
    for (const [name, text] of [
      ['oskar', "My niece Saga, Oskar's daughter, turns 5 on 3 June."],
      ['kirsteen', "Torquil's grandsons, Kirsteen's boys Gregor and Tam, are 12 and 9."],
      ['tonina', 'Ottavio turns 60 on 19 January and Tonina is planning a big dinner.'],
      ['sakkie', "Riaan's sheepdogs are two Border Collies, Blits and Sakkie."],
    ] as const) {
      expect(statesAgeOf(name, text), text).toBe(false);
    }
  });
});

describe('statesBirthdayOf: whether a memory gives the birthday of the one asked', () => {
  it('finds a birthday, a birth or a birthday to come beside their name, not another date in a memory that names them', () => {
    for (const [name, text] of [
      ['putu', "Putu's birthday is 3 May."],
      ['abena', "Abena's twin boys, Panyin and Kakra, turn 6 on 14 October."],
      ['grace', 'Grâce is top of her class in maths and wants a tablet for her birthday on 30 October.'],
      ['mia', 'Mia was born on 2 June 2019.'],
      ['yasmin', "Ahmed's wife Rania gave birth to their daughter, Yasmin, on 2025-05-19."],
    ] as const) {
      expect(statesBirthdayOf(name, text), text).toBe(true);
    }
    for (const [name, text] of [
      ['putu', "User's son Putu is 5 and starts primary school in July 2027."],
      ['nigar', 'The user is engaged to Nigar; the wedding is planned for 15 May 2027.'],
      ['sione', "Teuila and Sione's wedding anniversary is 5 January."],
    ] as const) {
      expect(statesBirthdayOf(name, text), text).toBe(false);
    }
  });
});

describe('offersAnswer', () => {
  const none = new Set<string>();
  it('finds a colour, an amount or age, a name', () => {
    for (const text of ['Matas is 1.82 m tall.', 'He is six feet tall.', 'The anchor weighs 40 kilos.', "She's 5'4\".", 'The farm is 140 acres.']) {
      expect(offersAnswer('measure', answerFactsOf(text), none), text).toBe(true);
    }
    for (const text of ['Matas is 15 and plays basketball.', 'The trek takes 3 hours each way.']) {
      expect(offersAnswer('measure', answerFactsOf(text), none), text).toBe(false);
    }
    expect(offersAnswer('colour', answerFactsOf('Maria drives a dark blue Fiat.'), none)).toBe(true);
    expect(offersAnswer('colour', answerFactsOf('Jonas rides a carbon road bike.'), none)).toBe(false);
    expect(offersAnswer('number', answerFactsOf('Kenji turned thirty in May.'), none)).toBe(true);
    expect(offersAnswer('number', answerFactsOf('Tom charges €45 an hour.'), none)).toBe(true);
    expect(offersAnswer('number', answerFactsOf('Karim is 6.'), none)).toBe(true);
    expect(offersAnswer('number', answerFactsOf('Diego drives a 2017 Volkswagen Jetta.'), none)).toBe(false);
    // A year of birth answers "How old ...?"; another year stays a date.
    expect(offersAnswer('number', answerFactsOf('My daughter Mia was born in 2019.'), none)).toBe(true);
    expect(offersAnswer('number', answerFactsOf('Mia started school in 2019.'), none)).toBe(false);
    // The day of a date is no amount: a birthday without its year says no age.
    for (const text of ["Callum's birthday is 30 January.", 'Her birthday is May 9th.', 'Party on the 3rd of June.']) {
      expect(offersAnswer('number', answerFactsOf(text), none), text).toBe(false);
    }
    expect(offersAnswer('number', answerFactsOf('Dad turns 70 on 18 October.'), none)).toBe(true);
    expect(offersAnswer('name', answerFactsOf('Lena has a dog named Pixel.'), new Set(['lena']))).toBe(true);
    expect(offersAnswer('name', answerFactsOf('Lena has a brother who lives abroad.'), new Set(['lena']))).toBe(false);
    expect(offersAnswer('name', answerFactsOf('Since May, Lena has had a brother-in-law.'), new Set(['lena']))).toBe(false);
  });

  it('finds a date in a day and month, a year of birth, a numeric date; not in an age or a year of something else', () => {
    for (const text of ["Fatima's birthday is 3 March.", 'Our anniversary is on the 14th.', 'Mia was born in 2019.', 'Dad turns 70 on 18/10.', 'Due in early March.']) {
      expect(offersAnswer('date', answerFactsOf(text), none), text).toBe(true);
    }
    for (const text of ['Yusuf’s son Emir is 10 and plays chess.', 'Camila and Valeria have been together since 2021.', "I'm terrible at remembering birthdays."]) {
      expect(offersAnswer('date', answerFactsOf(text), none), text).toBe(false);
    }
  });

  it('finds a time in a date, a weekday, an hour, a season or a frequency; not in a span of distance or a name', () => {
    for (const text of ['The mail plane comes every Wednesday.', 'Her rent is due on the 5th.', 'The khutbah starts at 1:15 in winter.', 'Trainings are Tuesday and Thursday after school.', 'Lambing starts mid-April.', 'The vet only comes out on Thursdays.', 'Kirrily is due on 11 February.', 'I swim at 6am.', 'Malak has lived in Ghent since 2019.', 'The drive to Tórshavn takes three hours.', 'I see the physio twice a week.']) {
      expect(offersAnswer('time', answerFactsOf(text), none), text).toBe(true);
    }
    for (const text of ['Ana has type 1 diabetes and wears an insulin pump.', 'I drive a UAZ van out to the herders, sometimes 200 km in a day.', "Tahiry calls Mireille 'Bebe'."]) {
      expect(offersAnswer('time', answerFactsOf(text), none), text).toBe(false);
    }
  });

  it('takes the question’s names and the pool’s subject as known, never as the answer', () => {
    const texts = ['Emma swims every morning.', 'Emma taught history.', 'Emma has a cat.', 'Emma lives in Lund.'];
    const known = knownNames("What's the name of Emma's cat?", texts.map(answerFactsOf));
    expect(known.has('emma')).toBe(true);
    expect(offersAnswer('name', answerFactsOf('Emma has a cat.'), known)).toBe(false);
    expect(offersAnswer('name', answerFactsOf('Emma lives in Lund.'), known)).toBe(true);
    // An agent's "User" and the pronoun "I" name nobody who could be the answer.
    const vera = knownNames("What's Vera's daycare called?", [answerFactsOf("User's daughter Vera is 4 and goes to daycare.")]);
    expect(offersAnswer('name', answerFactsOf("User's daughter Vera is 4 and goes to daycare."), vera)).toBe(false);
    expect(offersAnswer('name', answerFactsOf('I take Vera to Little Acorns daycare.'), vera)).toBe(true);
  });
});

describe('the name of someone by whom they belong to', () => {
  it('reads whose relative, friend or pet a question asks the name of', () => {
    for (const [q, noun] of [
      ["What's Lena's brother called?", 'brother'],
      ["whats the name of sadie's daycare teacher", 'teacher'],
      ["what are kourosh's twins called?", 'twin'],
      ["what's aynur's husband's name", 'husband'],
      ["what's the name of claudette's sister in baton rouge", 'sister'],
      ["what's my mum's name", 'mum'],
    ] as const) {
      expect(nameAskedOf(q), q).toBe(noun);
    }
    // Not a name of someone's: a surname, the user's own name, nothing asked by a name.
    for (const q of ["whats barry's surname", "what's my name", 'where does my brother live', 'when is the dog called in']) expect(nameAskedOf(q), q).toBeUndefined();
  });

  it('is answered by a name beside the word for them, not by a name anywhere', () => {
    const known = new Set(['lena', 'kourosh', 'aynur', 'user', 'i']);
    for (const [noun, text] of [
      ['brother', 'Lena has a brother in Graz.'],
      ['twin', "The user's brother Kourosh lives in Toronto with his wife and their twin girls."],
      ['husband', "Eldar's sister Aynur lives in Ganja with her husband and their baby son Murad."],
    ] as const) {
      expect(namesThe(noun, text, known), text).toBe(false);
    }
    for (const [noun, text] of [
      ['brother', "Lena's brother Tomas lives in Graz."],
      ['twin', 'Kourosh has twins, Sara and Dara.'],
      ['husband', "Aynur's husband is called Rashad."],
      ['mum', "Sitraka's mother Voahangy has high blood pressure."],
      ['mum', 'Voahangy is my mum.'],
      ['baby', 'My sister Isla just had a baby girl called Rosie.'],
      ['doctor', 'My GP is Dr Tamihana at the medical centre.'],
      // An animal by its breed.
      ['dog', 'We have two border collies, Bandit and Tess.'],
    ] as const) {
      expect(namesThe(noun, text, known), text).toBe(true);
    }
  });

  it('discounts a memory that holds a name, but not the name asked', () => {
    const other = candidate('other', 'Ines runs every Sunday.', 0.1);
    const graz = candidate('graz', 'Lena has a brother in Graz.', 0.5);
    const tomas = candidate('tomas', "Lena's brother Tomas lives in Graz.", 0.5);
    expect(rankedById("What's Lena's brother called?", [graz, other]).get('graz')?.parts?.answer).toBe(0);
    expect(rankedById("What's Lena's brother called?", [tomas, other]).get('tomas')?.parts?.answer).toBe(1);
  });
});

describe('the ranker and the kind of answer', () => {
  const fact = candidate;
  const ranked = rankedById;

  it('discounts a near miss that holds no answer of the kind asked, and says so in the parts', () => {
    const bike = fact('bike', 'Jonas rides a carbon road bike to work.', 0.55);
    const on = ranked("What colour is Jonas's road bike?", [bike]).get('bike');
    const off = ranked("What colour is Jonas's road bike?", [bike], { answerKindFactor: 1 }).get('bike');
    expect(on?.parts?.answer).toBe(0);
    expect(off?.parts?.answer).toBeUndefined();
    expect(off?.score ?? 0).toBeGreaterThan(on?.score ?? 1);
    const red = ranked("What colour is Jonas's road bike?", [fact('red', 'Jonas rides a red road bike to work.', 0.55)]).get('red');
    expect(red?.score ?? 0).toBeGreaterThan(on?.score ?? 1);
  });

  it('discounts a memory that names no time for a question when something happens', () => {
    const diabetes = fact('diabetes', 'Ana has type 1 diabetes and wears an insulin pump.', 0.6);
    const visit = fact('visit', 'I take Ana to her endocrinologist in Tbilisi on 21 September.', 0.55);
    const byId = ranked('remind me when ana sees her diabetes doctor', [diabetes, visit]);
    expect(byId.get('diabetes')?.parts?.answer).toBe(0);
    expect(byId.get('visit')?.parts?.answer).toBe(1);
    expect(byId.get('visit')?.score ?? 0).toBeGreaterThan(byId.get('diabetes')?.score ?? 1);
  });

  it('keeps the memory that holds the answer, and a turn whose neighbour holds it', () => {
    const red = ranked("What colour is Jonas's road bike?", [fact('red', 'Jonas rides a red road bike to work.', 0.55)]).get('red');
    expect(red?.parts?.answer).toBe(1);
    expect(red?.score).toBeGreaterThanOrEqual(0.7);
    const question = fact('q', 'Mira: What colour is your new road bike?', 0.5, { nextId: 'a' }, '2025-01-10T09:00:00.000Z');
    const answer = fact('a', 'Jonas: Red, of course!', 0.2, { prevId: 'q' }, '2025-01-10T09:00:02.000Z');
    expect(ranked("What colour is Jonas's road bike?", [question, answer]).get('q')?.parts?.answer).toBe(1);
  });

  it('discounts a memory about someone else by name (otherPersonFactor), and only that', () => {
    const fatima = fact('fatima', "Fatima's birthday is 3 March.", 0.55);
    const kids = fact('kids', 'User has two kids: Musa (12) and Aisha (8).', 0.3);
    const musa = ranked("When is Musa's birthday?", [fatima, kids]);
    expect(musa.get('fatima')?.parts?.otherPerson).toBe(0.6);
    expect(musa.get('kids')?.parts?.otherPerson).toBeUndefined();
    const off = ranked("When is Musa's birthday?", [fatima, kids], { otherPersonFactor: 1 });
    expect(off.get('fatima')?.score ?? 0).toBeGreaterThan(musa.get('fatima')?.score ?? 1);
    // A name no memory knows says nothing ("Karamazov"); "I" and an agent's "User" name nobody; nor do "Saturdays".
    expect(ranked('Who wrote the Brothers Karamazov?', [fatima]).get('fatima')?.parts?.otherPerson).toBeUndefined();
    const badminton = fact('b', 'I play badminton on Saturdays at the university club.', 0.5);
    expect(ranked('what sport do I play on weekends', [badminton, fact('u', 'User prefers window seats.', 0.2)]).get('b')?.parts?.otherPerson).toBeUndefined();
    // A memory that names nobody may be about anyone ("The cake had almonds ..."), but the user's own is about the user
    // (below); a turn of a conversation is exempt.
    expect(ranked("What is Musa allergic to?", [fact('cake', 'The cake had almonds and latex gloves were used.', 0.4), kids]).get('cake')?.parts?.otherPerson).toBeUndefined();
    expect(ranked("What is Musa allergic to?", [fact('me', "I'm allergic to latex.", 0.4), kids]).get('me')?.parts?.otherPerson).toBe(0.6);
    const turnA = fact('ta', 'Fatima: Musa loved the cake!', 0.4, { nextId: 'tb' }, '2025-01-10T09:00:00.000Z');
    const turnB = fact('tb', 'Aisha: Mine was on 3 March, you know.', 0.4, { prevId: 'ta' }, '2025-01-10T09:00:02.000Z');
    expect(ranked("When is Musa's birthday?", [turnA, turnB]).get('tb')?.parts?.otherPerson).toBeUndefined();
  });

  it('reads the user\'s own name as the answer only to a question about it', () => {
    const own = fact('own', "User's name is Agnieszka Wr\u00f3bel.", 0.5);
    const dog = fact('dog', 'I have a rescue greyhound called Pickle.', 0.5);
    expect(ranked("what's my dog's name", [own, dog]).get('own')?.parts?.answer).toBe(0);
    expect(ranked("what's my dog's name", [own, dog]).get('dog')?.parts?.answer).toBe(1);
    expect(ranked("what's my full name", [own, dog]).get('own')?.parts?.answer).toBe(1);
  });

  it('discounts a memory about the user alone for a question about someone else by name (otherPersonFactor)', () => {
    const mine = fact('mine', "User's birthday is 30 April.", 0.6);
    const noam = fact('noam', 'Noam stays with me from Sunday to Wednesday.', 0.3);
    const name = fact('name', "User's name is Ayelet Mizrahi.", 0.1);
    expect(ranked("when is Noam's birthday", [mine, noam, name]).get('mine')?.parts?.otherPerson).toBe(0.6);
    // Not when the question is about the user by their name, nor when the user speaks of themself too.
    expect(ranked("when is Ayelet's birthday", [mine, noam, name]).get('mine')?.parts?.otherPerson).toBeUndefined();
    expect(ranked('Plan a weekend away for Noam and me.', [mine, noam, name]).get('mine')?.parts?.otherPerson).toBeUndefined();
    // A memory about a relative is not about the user alone.
    expect(ranked("when is Noam's birthday", [fact('son', "My son's birthday is in May.", 0.5), noam, name]).get('son')?.parts?.otherPerson).toBeUndefined();
  });

  it('discounts a memory about another of the user\'s relatives (otherRelativeFactor), and only that', () => {
    const daughter = fact('daughter', 'My daughter Itzel is 7 and in second grade.', 0.45);
    const mom = fact('mom', 'My mother is turning 70 in June.', 0.4);
    const mom1 = ranked('How old is my mom?', [daughter, mom]);
    expect(mom1.get('daughter')?.parts?.otherRelative).toBe(0.6);
    expect(mom1.get('mom')?.parts?.otherRelative).toBeUndefined();
    const off = ranked('How old is my mom?', [daughter, mom], { otherRelativeFactor: 1 });
    expect(off.get('daughter')?.score ?? 0).toBeGreaterThan(mom1.get('daughter')?.score ?? 1);
    // A chain asks about both ("my sister's husband"); a memory that names no relative may be about anyone.
    const sister = fact('sister', 'My sister Marta is married to Tom.', 0.4);
    expect(ranked("What's my sister's husband called?", [sister, daughter]).get('sister')?.parts?.otherRelative).toBeUndefined();
    expect(ranked('How old is my mom?', [fact('rosa', 'Rosa is 68.', 0.4), daughter]).get('rosa')?.parts?.otherRelative).toBeUndefined();
    // A question about nobody's relative is left alone.
    expect(ranked('How old is Itzel?', [daughter, mom]).get('mom')?.parts?.otherRelative).toBeUndefined();
  });

  it('discounts a memory that meets a question about someone only through the name (nameOnlyFactor)', () => {
    const marta = fact('marta', "User's sister Marta lives in Porto.", 0.45);
    const other = fact('ines', 'Ines runs every Sunday.', 0.1);
    const kids = ranked('Does Marta have any kids?', [marta, other]);
    expect(kids.get('marta')?.parts?.nameOnly).toBe(0.8);
    const off = ranked('Does Marta have any kids?', [marta, other], { nameOnlyFactor: 1 });
    expect(off.get('marta')?.score ?? 0).toBeGreaterThan(kids.get('marta')?.score ?? 1);
    // A word of the question besides the name, a close meaning, or the kind of answer asked: not by the name only.
    expect(ranked('Where does Marta live?', [marta, other]).get('marta')?.parts?.nameOnly).toBeUndefined();
    expect(ranked('Does Marta have any kids?', [{ ...marta, cosine: 0.6 }, other]).get('marta')?.parts?.nameOnly).toBeUndefined();
    const emir = fact('emir', "Yusuf's son Emir is 10 and plays chess.", 0.33);
    expect(ranked('How old is Emir?', [emir, other]).get('emir')?.parts?.nameOnly).toBeUndefined();
    expect(ranked("When is Emir's birthday?", [emir, other]).get('emir')?.parts?.nameOnly).toBe(0.8);
    // A question of a name and a frame asks what its intent says: a memory that does not state it meets the name only.
    const trip = fact('trip', 'Marguerite wants to spend three weeks with Antoine in Montreal in September.', 0.29);
    const job = fact('job', 'My son Antoine lives in Montreal and works in video games.', 0.27);
    const antoine = ranked('What does Antoine do?', [trip, job]);
    expect(antoine.get('trip')?.parts?.nameOnly).toBe(0.8);
    expect(antoine.get('job')?.parts?.nameOnly).toBeUndefined();
    expect(antoine.get('job')?.score ?? 0).toBeGreaterThan(antoine.get('trip')?.score ?? 1);
    // A memory that states what is asked meets more than the name, though the question's other words are not in it.
    const kayla = fact('kayla', 'Kayla is a nurse at the Foothills hospital.', 0.3);
    expect(ranked("what's Kayla doing for work these days", [kayla, other]).get('kayla')?.parts?.nameOnly).toBeUndefined();
    // A request to plan or choose for someone asks for what is known of them, whatever it is; a request for a fact
    // about them ("remind me ...") still meets a memory that does not state it through the name only.
    const sota = fact('sota', 'Sota works evenings and has Wednesdays off.', 0.3);
    for (const q of ['Plan a date night for Sota and me this month.', 'what should I get Sota for his birthday', 'ideas for a day out with sota']) {
      expect(ranked(q, [sota, other]).get('sota')?.parts?.nameOnly, q).toBeUndefined();
    }
    expect(ranked('remind me if Sota has any kids', [sota, other]).get('sota')?.parts?.nameOnly).toBe(0.8);
    expect(ranked('Does Sota have any kids?', [sota, other]).get('sota')?.parts?.nameOnly).toBe(0.8);
  });

  it('discounts a memory that only says the user\'s name for a message that asks no name (nameMemoryFactor)', () => {
    const name = fact('name', "User's name is Dorji Wangchuk.", 0.4);
    const home = fact('home', 'We live in Dekiling, a walk up the hill from Jakar dzong.', 0.3);
    const trip = ranked("me and pema wanna go over to my brother's place next weekend, what do i need to sort out", [name, home]);
    expect(trip.get('name')?.parts?.nameMemory).toBe(0.5);
    expect(ranked("me and pema wanna go over to my brother's place", [name, home], { nameMemoryFactor: 1 }).get('name')?.parts?.nameMemory).toBeUndefined();
    // Asked its name, the memory answers; so does one that says more than the name.
    expect(ranked("what's my full name", [name, home]).get('name')?.parts?.nameMemory).toBeUndefined();
    expect(ranked('what am I called', [name, home]).get('name')?.parts?.nameMemory).toBeUndefined();
    const more = fact('more', "My name is Devika and I'm a nurse in Pune.", 0.4);
    expect(ranked('where do I work', [more, home]).get('more')?.parts?.nameMemory).toBeUndefined();
  });

  it('reads a name typed in lower case as the name a memory writes with a capital', () => {
    const ugne = fact('ugne', "Rasa's daughter Ugnė is 4 and goes to a crèche.", 0.33);
    const rudis = fact('rudis', 'Our dog Rudis is a rescue greyhound.', 0.07);
    // "rudis" is the dog's name: a memory about someone else by name answers nothing about him.
    expect(ranked('how old is rudis', [ugne, rudis]).get('ugne')?.parts?.otherPerson).toBe(0.6);
    expect(ranked('how old is Rudis', [ugne, rudis]).get('ugne')?.parts?.otherPerson).toBe(0.6);
    // An everyday word stays a word, though a memory writes it with a capital ("Grace" and "grace").
    // A name typed short: "tobe" is Tobenna when no memory holds "tobe" and one name starts with it.
    const tobenna = fact('tobenna', "Kelechi's brother Tobenna studies engineering in Lagos.", 0.2);
    const short = ranked('which uni is tobe in', [tobenna, ugne]);
    expect(short.get('tobenna')?.parts?.words).toBeGreaterThanOrEqual(0.5);
    expect(short.get('ugne')?.parts?.otherPerson).toBe(0.6);
    // The words of what is plainly asked are no words a memory meets the question by ("an old hound").
    const boudin = fact('boudin', "We've got an old bluetick hound named Boudin.", 0.3);
    expect(ranked('how old is boudin', [boudin, ugne]).get('boudin')?.parts?.nameOnly).toBe(0.8);
    // What a memory about someone's relative states is not theirs: "Zanele's mother is a retired nurse" is no job of Zanele's.
    const mother = fact('mother', "Zanele's mother is a retired nurse in Durban.", 0.45);
    const zanele = fact('zanele', 'Zanele runs a catering business in Soweto.', 0.3);
    const job = ranked("What is Zanele's job?", [mother, zanele]);
    expect(job.get('mother')?.parts?.intent).toBeUndefined();
    expect(job.get('zanele')?.parts?.intent).toBe('job');
    expect(ranked("What is Zanele's mother's job?", [mother, zanele]).get('mother')?.parts?.intent).toBe('job');
    const grace = fact('grace', 'Grace sings in a choir on Thursdays.', 0.2);
    expect(ranked('how old is grace period', [ugne, grace]).get('ugne')?.parts?.otherPerson).toBeUndefined();
  });
});
