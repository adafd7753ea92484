import { describe, expect, it } from 'vitest';
import { frameCoveredBy, INTENT_NAMES, intentNames, intentsOf, type Intent } from '../../../src/core/ranking/intents.js';
import { scorePartsSchema } from '../../../src/core/schemas.js';
import { candidate, rankedById } from '../../helpers/ranking.js';

const states = (query: string, text: string): boolean => frameCoveredBy(intentsOf(query), text) !== undefined;

describe('intentsOf: what a question plainly asks about someone', () => {
  it('reads age, job, home, vehicle, reading and study questions', () => {
    expect(intentNames(intentsOf('How old is Emir?'))).toEqual(['age']);
    expect(intentNames(intentsOf('what do I do for a living'))).toEqual(['job']);
    expect(intentNames(intentsOf("What's Marta's job?"))).toEqual(['job']);
    expect(intentNames(intentsOf('What does Felix do again?'))).toEqual(['job']);
    expect(intentNames(intentsOf('where do I live these days?'))).toEqual(['home']);
    expect(intentNames(intentsOf('what do I drive'))).toEqual(['vehicle']);
    expect(intentNames(intentsOf('what book am I in the middle of'))).toEqual(['reading']);
    expect(intentNames(intentsOf('what am I studying?'))).toEqual(['study']);
  });

  it('reads the same in other words: a kind of work, where someone is these days, a vehicle, a degree', () => {
    expect(intentNames(intentsOf('what kind of work does my sister do'))).toEqual(['job']);
    expect(intentNames(intentsOf("where's Javed these days"))).toEqual(['home']);
    expect(intentNames(intentsOf('where is my brother living'))).toEqual(['home']);
    expect(intentNames(intentsOf('which city does Ana live in?'))).toEqual(['home']);
    expect(intentNames(intentsOf("what's my vehicle again"))).toEqual(['vehicle']);
    expect(intentNames(intentsOf("what's my brother's degree in?"))).toEqual(['study']);
  });

  it('reads languages, music and the commute', () => {
    expect(intentNames(intentsOf('which languages do I know?'))).toEqual(['languages']);
    expect(intentNames(intentsOf('does Hamid speak French?'))).toEqual(['languages']);
    expect(intentNames(intentsOf('whose songs do I love most?'))).toEqual(['music']);
    expect(intentNames(intentsOf('what band is Yuna into'))).toEqual(['music']);
    expect(intentNames(intentsOf('what do I use for my commute?'))).toEqual(['commute']);
    expect(intentNames(intentsOf('how do I get to work?'))).toEqual(['commute']);
  });

  it('reads what to avoid and what is on a bucket list', () => {
    expect(intentNames(intentsOf('which nuts do I need to avoid'))).toEqual(['avoid']);
    expect(intentNames(intentsOf('what fruit should I stay away from?'))).toEqual(['avoid']);
    expect(intentNames(intentsOf('which country is on my bucket list?'))).toEqual(['wish']);
    expect(states('what fruit should I stay away from?', "I'm allergic to peaches.")).toBe(true);
    expect(states('what fruit should I stay away from?', 'I love peaches.')).toBe(false);
    expect(states('which country is on my bucket list?', 'User wants to go diving in New Zealand one day.')).toBe(true);
    // "What am I allergic to?" is asked in its own words: no frame to cover.
    expect(intentsOf('What am I allergic to?')).toEqual([]);
  });

  it('reads a trade as a job, and the medicines someone is on', () => {
    expect(intentNames(intentsOf("what's hemi's trade"))).toEqual(['job']);
    expect(intentNames(intentsOf('what supplements am I on at the moment'))).toEqual(['medication']);
    expect(intentNames(intentsOf('which pills does Dad take'))).toEqual(['medication']);
    expect(intentNames(intentsOf('meds is mum taking?'))).toEqual(['medication']);
    expect(states('what supplements am I on', "I'm on iron tablets for anaemia.")).toBe(true);
    expect(states('what supplements am I on', 'I use an inhaler before running.')).toBe(true);
    expect(states('what supplements am I on', 'I go to the pharmacy on Fridays.')).toBe(false);
  });

  it('reads the team someone follows, and where someone works', () => {
    for (const q of ['remind me which club i follow', 'what team do I root for?', 'who do i watch in the premier league', 'Which football team does Kirsty support?']) {
      expect(intentNames(intentsOf(q)), q).toEqual(['team']);
    }
    expect(states('which club i follow', 'Bashir supports Leicester City.')).toBe(true);
    expect(states('what team do I root for?', "User's favourite football club is Coritiba.")).toBe(true);
    expect(states('which club i follow', 'Tom coaches a youth football team on Saturdays.')).toBe(false);
    expect(intentNames(intentsOf("where's Calum working now"))).toEqual(['job']);
    expect(intentNames(intentsOf('what does mick do for a crust'))).toEqual(['job']);
  });

  it('reads how long or how often as a span, stated by a duration or a frequency; what hours by a span of hours', () => {
    expect(intentNames(intentsOf('how long is andris away each time'))).toContain('span');
    expect(states('how often do the dogs get their food', 'The user feeds the dogs dried capelin every second day.')).toBe(true);
    expect(states('how long is the boat to torshavn', 'The ferry to Tórshavn takes about two hours each way.')).toBe(true);
    expect(states('how long is the boat to torshavn', 'The ferry to Tórshavn leaves from Krambatangi.')).toBe(false);
    expect(intentNames(intentsOf('what hours am i at the coffee shop'))).toEqual(['clock']);
    expect(states('what hours am i at the coffee shop', 'User plays tavli at the kafeneio every afternoon from 5 to 9.')).toBe(true);
    // A span of dates is no span of hours.
    expect(states('what time do the gates open', 'Gareth and Dawn are going to Benidorm from 8 to 15 June.')).toBe(false);
  });

  it('reads which day or night as a day, stated by a weekday or a date', () => {
    for (const query of ['what night do i throw rocks lol', 'which days do i go up to town to sell the fish', 'what day of the month does my pension come', 'What date do I get tested for my licence?']) {
      expect(intentNames(intentsOf(query)), query).toEqual(['day']);
    }
    expect(states('what night do i throw rocks', 'I curl on Tuesday nights at the curling centre.')).toBe(true);
    expect(states('what day does my pension come', 'Norma collects her widow\'s pension on the 5th of each month.')).toBe(true);
    expect(states('what date is my test', 'My driving test is on 12 March.')).toBe(true);
    expect(states('what night is choir', 'Choir is in the church hall, Father Ian runs it.')).toBe(false);
  });

  it('reads what something costs, pays or is owed as money, stated by a sum in any currency', () => {
    for (const query of ['how much do i get for one of the big felt rugs', "whats my rate for tourists again", 'what does a large replica go for, price wise', "what's my hourly at the horse place", 'how much is my monthly installment to the bank', 'How much is it?']) {
      expect(intentNames(intentsOf(query)), query).toEqual(['money']);
    }
    // Not an amount of something else, nor an exchange rate (a question about the world).
    for (const query of ['how much food does my bird get daily', 'whats the rate vatu to aussie dollar rn', 'What is the exchange rate between euros and Japanese yen?']) {
      expect(intentsOf(query), query).toEqual([]);
    }
    expect(states('how much do i get for a rug', 'A big shyrdak takes me five weeks and I sell it for 28,000 som.')).toBe(true);
    expect(states('how much is my monthly installment', "Dewi's loan is 25 million rupiah, paid back at 1.2 million a month.")).toBe(true);
    expect(states('whats my hourly', 'I earn €14 an hour at the stables.')).toBe(true);
    expect(states('how much do i get for a rug', 'A big shyrdak takes me five weeks, two by three metres.')).toBe(false);
    expect(states('How much does Samuel charge?', 'Samuel ran the London Marathon in 3 hours 41 minutes.')).toBe(false);
  });

  it('reads a birth in a month as an age', () => {
    expect(states('How old is Aisulu now?', 'The user and Aigerim had a baby girl, Aisulu, in August.')).toBe(true);
    expect(states('How old is Noor?', 'Noor was born on 3 May.')).toBe(true);
    expect(states('How old is Noor?', 'Noor was born in Lagos.')).toBe(false);
  });

  it('reads a pill asked for in other words, and a drug by its generic name', () => {
    for (const q of ['what are my bp pills called', "What's that pill I take in the mornings called?", 'Which blood thinner am I on?']) {
      expect(intentNames(intentsOf(q)), q).toEqual(['medication']);
    }
    expect(states('what are my bp pills called', 'Jomo has high blood pressure and takes amlodipine.')).toBe(true);
    expect(states('Which blood thinner am I on?', 'I take warfarin, so I have to watch foods high in vitamin K.')).toBe(true);
    expect(states('which tablets help with my migraines', 'Agnieszka takes sumatriptan when she feels a migraine coming.')).toBe(true);
    // A word that only ends like a drug is none ("on routine", "takes the machine").
    expect(states('which pills does Dad take', 'Dad is on a strict routine and takes the machine to work.')).toBe(false);
  });

  it('reads what someone cannot eat or take, what sets off an ailment, how an injury came, and opening days', () => {
    for (const q of ['is there anything Farid can\'t eat?', 'which painkillers can\'t i take', 'what can\'t my dad have', 'Is it safe for Leila to eat sesame?']) {
      expect(intentNames(intentsOf(q)), q).toEqual(['restriction']);
    }
    expect(states('what can\'t my dad have', 'Dad is on a low-salt diet for his heart.')).toBe(true);
    expect(states('is there anything Farid can\'t eat?', 'Farid is allergic to sesame.')).toBe(true);
    // Avoiding something is no restriction of what one eats or takes.
    expect(states('is there anything Farid can\'t eat?', 'Farid avoids motorways.')).toBe(false);
    expect(intentNames(intentsOf('what usually brings on my asthma?'))).toEqual(['trigger']);
    expect(states('what sets off my eczema', 'Oona gets eczema when she is stressed.')).toBe(true);
    expect(states('what sets off my eczema', 'Oona has eczema on her hands.')).toBe(false);
    expect(intentNames(intentsOf('what did i do to it in the first place'))).toEqual(['injury']);
    expect(states('how did he hurt his knee', 'Tomas has a dodgy knee from years of rugby.')).toBe(true);
    expect(intentNames(intentsOf('what day is the chemist shut'))).toEqual(['opening', 'day']);
    expect(intentNames(intentsOf('how do I open this jar'))).toEqual([]);
    expect(states('when is the library open', 'The village library is closed on Wednesdays.')).toBe(true);
  });

  it('reads a business as a job, a lower-case name based somewhere as a home, a make and model as a vehicle', () => {
    expect(intentNames(intentsOf('what kind of business does Femi have'))).toEqual(['job']);
    expect(states('what does yusra do over there', 'My sister Yusra owns a small bakery in Leeds.')).toBe(true);
    expect(intentNames(intentsOf("where's tane based now"))).toEqual(['home']);
    expect(intentNames(intentsOf('wheres rodrigo livin these days'))).toEqual(['home']);
    // A day of the month is no age.
    expect(states('how old is Callum', "Callum's birthday is 30 January.")).toBe(false);
    expect(states('how old is Callum', 'Callum is 30 and lives in Leeds.')).toBe(true);
    expect(states("where's tane based now", 'User\'s cousin Tane is in the Navy, stationed in Auckland.')).toBe(true);
    expect(intentNames(intentsOf('make and model of my car?'))).toEqual(['vehicle']);
    expect(intentNames(intentsOf('the ute is playing up, what model is it again'))).toEqual(['vehicle']);
    // A model of something else is no vehicle.
    expect(intentNames(intentsOf('What model is my laptop?'))).toEqual([]);
  });

  it('reads a condition, when something is over, where someone is at uni, and a language being learnt', () => {
    expect(intentNames(intentsOf("what's that condition called again, the one i have?"))).toEqual(['condition']);
    expect(states('what is my condition called', 'Odile has COPD and uses an inhaler.')).toBe(true);
    expect(states('what is my condition called', 'Odile has tendinitis in her elbow.')).toBe(true);
    // An acronym is told by its capitals: "has two" or "has CAT" are no condition.
    expect(states('what is my condition called', 'Odile has two cats.')).toBe(false);
    expect(intentNames(intentsOf('when am I done with all this packing?'))).toEqual(['until']);
    expect(states('when is she back', 'Agnes is in Lisbon until 4 March.')).toBe(true);
    expect(intentNames(intentsOf("where's my brother at uni"))).toEqual(['study']);
    expect(intentNames(intentsOf('which language am i trying to pick up'))).toEqual(['languages']);
    expect(states('which language am i trying to pick up', 'Kofi is learning Japanese on the train.')).toBe(true);
    expect(states('which language am i trying to pick up', 'Kofi is learning to swim at 40.')).toBe(false);
  });

  it('reads a job from a business one runs, not from a business the parents run', () => {
    expect(states('what does Linus do', 'Linus owns a bike shop in Bergen.')).toBe(true);
    expect(states('what does Linus do', 'Linus grew up in Bergen, where his parents still run a bakery.')).toBe(false);
  });

  it('reads a provider, a rota, a breed and a clock time, and the question words chat types short', () => {
    expect(intentNames(intentsOf("who's our internet provider"))).toEqual(['provider']);
    expect(states('who are we with for the broadband', 'Our fibre is with Vodafone.')).toBe(true);
    expect(states('who are we with for the broadband', 'We live with my mother.')).toBe(false);
    expect(intentNames(intentsOf("what's my rota on the rig"))).toEqual(['rota']);
    expect(states("what's my rota on the rig", 'I work two weeks on and two weeks off.')).toBe(true);
    expect(intentNames(intentsOf('what breed is biscuit'))).toEqual(['breed']);
    expect(states('what breed is biscuit', 'Our dog Biscuit is a border collie.')).toBe(true);
    expect(states('what breed is biscuit', 'Our dog Biscuit is 4.')).toBe(false);
    expect(intentNames(intentsOf('what time do i start on earlies'))).toEqual(['clock']);
    expect(states('what time do i start on earlies', 'Early shifts start at 5:30am.')).toBe(true);
    // A day of the month is no clock time.
    expect(states('what time do i start', 'The course runs from 3 to 14 February.')).toBe(false);
    expect(intentNames(intentsOf('wat age is tomi'))).toEqual(['age']);
    expect(intentNames(intentsOf('is ada 9 or 10 now'))).toEqual(['age']);
    expect(intentNames(intentsOf('how many months is the baby now'))).toEqual(['age']);
  });

  it('reads a job in a place, a company someone is with, a school someone is at, a city someone is in', () => {
    expect(intentNames(intentsOf('what does sipho do in joburg again'))).toEqual(['job']);
    expect(intentNames(intentsOf('what does Sam do in the mornings'))).toEqual([]);
    expect(intentNames(intentsOf('what company is he with again?'))).toEqual(['job']);
    expect(states('where does thandi work', 'My daughter Thandi is a police sergeant in Durban.')).toBe(true);
    expect(intentNames(intentsOf('which school is lulu at'))).toEqual(['school']);
    expect(states('which school is lulu at', 'Lulu is 7 and in grade 2 at Oakdale Primary.')).toBe(true);
    // Saying someone studies names no school, nor does a month.
    expect(states('which uni does ana attend', 'Ana is a veterinary student.')).toBe(false);
    expect(states('which uni does ana attend', 'Ana went to Lisbon in January.')).toBe(false);
    expect(intentNames(intentsOf('which city is ama in now'))).toEqual(['home']);
    expect(intentNames(intentsOf("whats the name of dad's heart pills"))).toEqual(['medication']);
  });

  it('names every intent in explain.intent\'s description (the schema cannot import the rules: the console bundles it)', () => {
    const described = scorePartsSchema.shape.intent.description ?? '';
    for (const name of INTENT_NAMES) expect(described, name).toMatch(new RegExp(`[(, ]${name}[,;]`));
  });

  it('reads nothing in other questions', () => {
    for (const q of ['How do I write a cover letter for an accounting job?', 'What does Marta do on Sundays?', 'Where did my grandmother grow up?', 'Does Marta have any kids?', 'What is Ines allergic to?', 'What language is spoken in Brazil?', 'How often should I change the oil in my car?', 'Where is the nearest pharmacy?']) {
      expect(intentsOf(q), q).toEqual([]);
    }
  });
});

describe('frameCoveredBy: whether a memory states what is asked', () => {
  it('finds an age in "is 10", "turned 12", "a three-year-old", "(12)", a year of birth; not in distances or counts', () => {
    for (const text of ['Yusuf’s son Emir is 10 and plays chess.', 'My cat Pimenta turned 12 in March.', 'Biscuit is a three-year-old beagle.', 'User has two kids: Musa (12) and Aisha (8).', 'Mia was born in 2019.']) {
      expect(states('How old is Emir?', text), text).toBe(true);
    }
    for (const text of ['Ines runs 10 km every Sunday.', 'My brother Ousmane lives in Dakar with his two kids.', 'The flat is 3 minutes from the station.']) {
      expect(states('How old is Emir?', text), text).toBe(false);
    }
  });

  it('finds a job in "works as", "is a nurse", "I\'m a ... teacher"; not in a diet or a liking', () => {
    for (const text of ["I'm a secondary school maths teacher in Leeds.", 'Aiko works as an architect.', "Fatima's husband Ibrahim works nights as a security guard.", 'Camila is a veterinarian in Medellín.']) {
      expect(states('what do I do for a living', text), text).toBe(true);
    }
    for (const text of ["I'm a vegetarian.", 'I am a huge fan of jazz.', 'Felix lives in Zurich.']) expect(states('what do I do for a living', text), text).toBe(false);
  });

  it('finds a home, a vehicle, a book, a course of study', () => {
    expect(states('where do I live these days?', 'Kenji moved from Osaka to Fukuoka in 2025 for work.')).toBe(true);
    expect(states('where do I live these days?', 'Kenji plays the guitar.')).toBe(false);
    expect(states('what do I drive', "Lukas's car is an old VW T4 van.")).toBe(true);
    expect(states('what book am I in the middle of', "I'm reading the Three-Body trilogy right now.")).toBe(true);
    expect(states('what am I studying?', 'Fatima is doing an Open University degree in psychology.')).toBe(true);
    expect(states('what do I drive', 'Tom supports Arsenal.')).toBe(false);
    expect(states("what's my vehicle again", 'User drives a silver Honda Odyssey minivan.')).toBe(true);
    // Driving for a living, or in the snow, names no vehicle.
    expect(states("what's my vehicle again", 'I drive for a courier company, mostly night routes.')).toBe(false);
    expect(states("what's my vehicle again", "I don't like snow, and winter driving makes me nervous.")).toBe(false);
    expect(states("what's Rafa's job?", 'Rafael is a dental hygienist.')).toBe(true);
    expect(states("what's Rafa's job?", 'Ana is a pianist.')).toBe(true);
    expect(states("what's Rafa's job?", 'Rafael is a realist.')).toBe(true);
    // A team is, since the fifth session; "She supports Celtic." is not Kirsty's (people-facts-3): the sport is no
    // frame word, so the unanswerable question stays under the threshold (otherPersonFactor does the rest).
    expect(intentNames(intentsOf('Which football team does Kirsty support?'))).toEqual(['team']);
  });
});

describe('frameCoveredBy: languages, music, the commute', () => {
  it('finds a language spoken, a singer or band, a way to work; not a topic nearby', () => {
    expect(states('which languages do I know?', 'Hamid speaks Dari, Pashto and English.')).toBe(true);
    expect(states('which languages do I know?', "I'm fluent in Greek.")).toBe(true);
    expect(states('which languages do I know?', 'Hamid is a taxi driver.')).toBe(false);
    expect(states('whose songs do I love most?', "Haeun's favourite singer is IU.")).toBe(true);
    expect(states('whose songs do I love most?', 'I listen to a lot of Fela Kuti.')).toBe(true);
    expect(states('whose songs do I love most?', "Haeun's favourite food is tteokbokki.")).toBe(false);
    expect(states('what do I use for my commute?', 'I ride a red Vespa to work.')).toBe(true);
    expect(states('what do I use for my commute?', 'User takes the train to Bucharest once a month.')).toBe(true);
    expect(states('what do I use for my commute?', 'I work from home on Fridays.')).toBe(false);
  });
});

describe('frameCoveredBy remembers what it read of a text', () => {
  it('fills the map it is given, and reads it before the patterns', () => {
    const [age] = intentsOf('How old is Emir?');
    const known = new Map<Intent, boolean>();
    expect(frameCoveredBy(intentsOf('How old is Emir?'), 'Emir is 10.', known)).toBeDefined();
    expect(age !== undefined && known.get(age)).toBe(true);
    expect(frameCoveredBy(intentsOf('How old is Emir?'), 'Emir is 10.', new Map(age === undefined ? [] : [[age, false]]))).toBeUndefined();
  });
});

describe('the ranker covers the frame of a question a memory answers', () => {
  const fact = candidate;
  const ranked = rankedById;

  it('covers the words of "How old" with a memory that states an age (intentCovers), and only that', () => {
    const emir = fact('emir', "Yusuf's son Emir is 10 and plays chess.", 0.45);
    const on = ranked('How old is Emir?', [emir, fact('walk', 'Yusuf walks to the café.', 0.1)]).get('emir');
    const off = ranked('How old is Emir?', [emir, fact('walk', 'Yusuf walks to the café.', 0.1)], { intentCovers: false }).get('emir');
    expect(on?.parts?.words ?? 0).toBeGreaterThan(off?.parts?.words ?? 1);
    expect(on?.parts?.words).toBeCloseTo(1);
    expect(on?.parts?.intent).toBe('age');
    expect(off?.parts?.intent).toBeUndefined();
    const chess = fact('chess', 'Emir plays chess on Fridays.', 0.45);
    expect(ranked('How old is Emir?', [chess]).get('chess')?.parts?.words).toBe(ranked('How old is Emir?', [chess], { intentCovers: false }).get('chess')?.parts?.words);
  });

  it('covers the words of "What do I do for a living?" with a memory that states a job (intentCovers)', () => {
    const teacher = fact('teacher', "I'm a secondary school maths teacher in Leeds.", 0.3);
    const on = ranked('what do I do for a living', [teacher, fact('run', 'I run every Sunday.', 0.1)]).get('teacher');
    const off = ranked('what do I do for a living', [teacher, fact('run', 'I run every Sunday.', 0.1)], { intentCovers: false }).get('teacher');
    expect(on?.parts?.words ?? 0).toBeGreaterThan(off?.parts?.words ?? 1);
  });

});
