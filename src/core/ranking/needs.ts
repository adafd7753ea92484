/**
 * Needs a request implies without asking. "What should I cook for dinner tonight?" asks for a recipe, but what the
 * memory must supply is what the user cannot or will not eat ("I'm vegetarian.", "Lena is allergic to nuts."):
 * nothing in the request's words or meaning points there. A request (or a "what should I ..." question) about
 * food and drink is also read as the questions it implies, each recalled as a part of the message.
 *
 * Rules, not a model, and deliberately narrow: food is the one need whose memories are both common and costly to
 * miss (an allergy), and a how-to question ("How long should I boil an egg?") is not a request for the user's
 * choices, so it implies nothing.
 */
import { readSentences, type MessageSentence } from '../text/statements.js';
import { isCalendarWord, namesIn, NOT_NAMES } from './answer-kind.js';
import { asksGeneral } from './general.js';

interface Need {
  /** Words of the request that point at the need, in the languages the implied questions are written in. */
  topic: RegExp;
  /** The questions it implies, by the request's language. */
  asks: Readonly<Record<'en' | 'de' | 'es', readonly string[]>>;
  /**
   * What a memory must name to answer them: the implied question "What am I allergic to?" of a dinner is about
   * food, so "I'm allergic to penicillin." is no answer to it (it may still answer another part of the message).
   */
  evidence: RegExp;
  /** 'evidence': a message that names what the evidence names ("almonds") is about the need too (food only). */
  namedBy?: 'evidence';
  /**
   * What settles the need whatever the memory's words: a restriction for food ("allergic", "doesn't eat"), any
   * condition for training. A liking ("takes her coffee black") is on the topic but settles nothing. None: the
   * memory's words must do it (days the user is busy: most memories name a day).
   */
  settles?: RegExp;
}

/** A weight goal shapes training as a condition limits it ("User is trying to lose 15 kg before his 40th."). */
const WEIGHT_GOAL = String.raw`lose (?:\d+ ?(?:kg|kilos|pounds|lbs)|(?:the |some |my )?(?:baby |extra )?weight)|losing (?:the |some |my )?(?:baby )?weight|weight loss|overweight`;

/** What the body may limit: a training plan or an outing is about it when a memory names one of these. */
const BODY =
  new RegExp(String.raw`(?<![\p{L}])(?:${WEIGHT_GOAL}|injury|injuries|injured|knee|knees|back|shoulder|ankle|hip|wrist|asthma|inhaler|pregnant|pregnancy|expecting|heart|palpitations|diabetes|diabetic|insulin|blood pressure|medication|arthritis|surgery|physiotherapist|physio|pain|afraid|scared|fear|heights|swim|condition|verletzung|verletzt|knie|rücken|schulter|asthma|schwanger|herz|diabetes|angst|lesión|lesionado|rodilla|espalda|hombro|asma|embarazada|corazón|diabetes|miedo)(?![\p{L}])`, 'iu');
/** A condition or a fear that limits what someone can do (a liking for swimming is none). */
const CONDITION =
  new RegExp(String.raw`(?<![\p{L}])(?:${WEIGHT_GOAL}|injury|injuries|injured|tore|torn|sprained?|broke|broken|dodgy|bad (?:knee|back|hip|shoulder|ankle)|asthma|inhaler|pregnant|pregnancy|expecting|heart|palpitations|diabetes|diabetic|insulin|blood pressure|arthritis|surgery|physiotherapy|physio|pain|condition|afraid of|scared of|fear of|vertigo|verletzung|verletzt|asthma|schwanger|herz|lesión|lesionado|asma|embarazada|miedo)(?![\p{L}])`, 'iu');

/** A restriction on what someone eats or drinks, in the three languages the needs are written in. */
const RESTRICTS_FOOD =
  /(?<![\p{L}])(?:allergic|allergy|allergies|intolerant|intolerance|can['\u2019]?t (?:eat|have|drink|stand|digest)|cannot|don['\u2019]?t (?:eat|drink)|doesn['\u2019]?t (?:eat|drink)|won['\u2019]?t (?:eat|touch)|never (?:eats?|drinks?)|avoids?|avoiding|vegan|vegetarian|pescatarian|halal|kosher|coeliac|celiac|gluten-free|dairy-free|diabetes|diabetic|cutting down|cut out|no (?:meat|pork|beef|alcohol|dairy|caffeine)|hates?|can['\u2019]?t stand|dislikes?|upsets?|fasting|fasts|allergisch|unverträglich|vegetarier\p{L}*|veganer\p{L}*|isst kein\p{L}*|trinkt kein\p{L}*|alérgic[oa]|intolerante|no come|no bebe|vegetarian[oa]|vegan[oa])(?![\p{L}])/iu;


/** What someone likes or cannot stand: what a present, an outing or a film is chosen by. */
const LIKES =
  /(?<![\p{L}])(?:likes?|loves?|enjoys?|into|plays|collects?|favou?rite|fan|obsessed|hobby|hobbies|hates?|can['\u2019]?t stand|mag|mögen|liebt|spielt|sammelt|lieblings\p{L}*|le gusta|les gusta|le encanta|juega|colecciona|favorit[oa]s?)(?![\p{L}])/iu;

const NEEDS: readonly Need[] = [
  {
    topic:
      /(?<![\p{L}])(?:eat|eating|food|foods|dinner|dinners|lunch|lunches|breakfast|brunch|supper|meal|meals|(?:my|our|for|the kids['\u2019]?) tea|order|takeout|cook|cooking|recipe|recipes|menu|snack|snacks|restaurant|restaurants|bakery|café|cafe|coffee|pub|bar|drink|drinks|dessert|desserts|cake|picnic|barbecue|bbq|takeaway|iftar|essen|abendessen|mittagessen|frühstück|kochen|rezept|restaurant|kuchen|trinken|gericht|gerichte|café|cafetería|cafeteria|comer|cenar|cena|almorzar|almuerzo|desayuno|desayunar|cocinar|receta|restaurante|bebida|postre|tarta)(?![\p{L}])/iu,
    asks: {
      en: ['What am I allergic to?', "What food and drink don't I have?"],
      de: ['Bin ich allergisch?', 'Was esse und trinke ich nicht?'],
      es: ['¿A qué soy alérgico?', '¿Qué no como ni bebo?'],
    },
    namedBy: 'evidence',
    settles: RESTRICTS_FOOD,
    evidence: new RegExp(
      String.raw`(?<![\p{L}])(?:` +
        [
          // English: diets, allergens and what people avoid eating or drinking
          'eat|eats|eating|ate|food|foods|drink|drinks|drinking|diet|vegetarian|vegan|pescatarian|halal|kosher|coeliac|celiac|gluten|lactose|dairy|milk|cheese|egg|eggs|nut|nuts|peanut|peanuts|almond|almonds|walnut|walnuts|cashew|cashews|hazelnut|hazelnuts|tree nuts|shellfish|prawn|prawns|shrimp|crab|lobster|fish|seafood|sesame|soy|soya|wheat|meat|pork|beef|chicken|lamb|mushroom|mushrooms|kiwi|strawberry|strawberries|fruit|garlic|onion|onions|spicy|spice|chili|chilli|sugar|salt|alcohol|beer|wine|coffee|caffeine|tea|diabetic|diabetes|fasting|fast|ramadan|cuisine|dish|dishes|meal|meals|cook|cooking',
          // German
          'essen|isst|trinkt|trinken|vegetarier|vegetarierin|vegetarisch|veganer|veganerin|vegan|nüsse|nuss|erdnüsse|erdnuss|haselnüsse|milch|laktose|gluten|fisch|fleisch|schweinefleisch|rindfleisch|meeresfrüchte|eier|ei|alkohol|kaffee|scharf|zucker|diabetes|diät',
          // Spanish
          'come|comer|bebe|beber|vegetariano|vegetariana|vegano|vegana|frutos secos|nueces|cacahuetes|maní|leche|lactosa|gluten|pescado|marisco|mariscos|carne|cerdo|huevo|huevos|alcohol|café|picante|azúcar|diabetes|dieta|celíaco|celíaca',
        ].join('|') +
        String.raw`)(?![\p{L}])`,
      'iu',
    ),
  },
  {
    // A plan for a day, a week or a weekend depends on when the user (and those with them) are already busy.
    topic:
      /(?<![\p{L}])(?:weekend|weekends|week|tomorrow|day off|day out|day trip|monday|tuesday|wednesday|thursday|friday|saturday|sunday|alarm|wochenende|wochenend\p{L}+|woche|morgen|samstag|sonntag|fin de semana|semana|mañana|sábado|domingo)(?![\p{L}])/iu,
    asks: {
      en: ['Which days am I busy?'],
      de: ['An welchen Tagen habe ich keine Zeit?'],
      es: ['¿Qué días estoy ocupado?'],
    },
    evidence:
      /(?<![\p{L}])(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekends?|weekdays?|shifts?|day off|days off|closed|montags?|dienstags?|mittwochs?|donnerstags?|freitags?|samstags?|sonntags?|wochenende|schichten|schicht|lunes|martes|miércoles|jueves|viernes|sábados?|domingos?|fines de semana|turnos?)(?![\p{L}])/iu,
  },
  {
    // Training, sport and outings depend on the body: an injury, a condition, a fear.
    topic:
      /(?<![\p{L}])(?:train|training|run|running|runs|marathon|race|gym|workout|workouts|in shape|fitter|exercise|exercises|fitness|sport|sports|hike|hiking|swim|swimming|activity|activities|yoga|cycling|climbing|5k|10k|trainieren|training|laufen|joggen|sport|wandern|schwimmen|entrenar|entrenamiento|correr|deporte|gimnasio|nadar|senderismo)(?![\p{L}])/iu,
    asks: {
      en: ['Do I have any injuries or health problems?'],
      de: ['Habe ich Verletzungen oder gesundheitliche Probleme?'],
      es: ['¿Tengo alguna lesión o problema de salud?'],
    },
    evidence: BODY,
    settles: CONDITION,
  },
  {
    // A trip depends on how the user travels and where the people they visit live.
    topic:
      /(?<![\p{L}])(?:trip|trips|travel|travelling|traveling|holiday|holidays|vacation|honeymoon|flight|flights|fly|visit|getaway|pack|packing|head (?:south|north|off|away|abroad)|heading (?:south|north|off|away|abroad)|(?:weekend|go|going|get|getting|days|nights?) away|cruise|boat|sailing|ferry|abroad|drive (?:to|up|down|out|over)|driving (?:to|up|down|out|over)|(?:go|going|come|coming|get|getting|fly|flying|drive|driving|head|heading) (?:(?:over|down|up|out|back) )?(?:(?:to|and) )?see|(?:get|getting|go|going|head|heading|drive|driving|fly|flying) (?:over|down|up|out|back) to (?!(?:bed|sleep|work|school|class|church|the gym|gym)(?![\p{L}]))|stay(?:ing)? with|go(?:ing)? home|get there|(?:train|bus) to|long weekend|(?:a|the) weekend (?:in|at|away)|for (?:a|one|two|three|four|five|\d+|a few|a couple of) (?:days|nights|weeks?)|reise|reisen|urlaub|\p{L}*ausflug|flug|besuch|besuchen|viaje|viajar|vacaciones|vuelo|visitar|visita)(?![\p{L}])/iu,
    asks: {
      en: ['How do I travel, and where do my family live?'],
      de: ['Wie reise ich, und wo wohnt meine Familie?'],
      es: ['¿Cómo viajo y dónde vive mi familia?'],
    },
    evidence:
      /(?<![\p{L}])(?:fly|flying|flights?|plane|ferry|train|trains|seasick|drive|drives|driving|car|boat|lives|live|living|moved|aisle|long-haul|cold|heat|winter|summer|fliegen|flug|fähre|zug|auto|wohnt|lebt|volar|vuelos?|ferry|tren|coche|vive|viven)(?![\p{L}])/iu,
    // Where the user (a trip starts from home) or the relative the message brings lives settles it too.
    settles: /(?<![\p{L}])(?:lives (?:in|near|outside)|live (?:in|near|outside)|based in|moved to|(?:flat|house|apartment) in|seasick|carsick|airsick|motion sickness|afraid of flying|scared of flying|fear of flying|hates? flying|doesn['\u2019]?t fly|don['\u2019]?t fly|doesn['\u2019]?t drive|don['\u2019]?t drive|hates? the (?:cold|heat)|can['\u2019]?t stand (?:the )?(?:cold|heat)|flugangst|mareo)(?![\p{L}])/iu,
  },
  {
    // What to take for a pain or an illness depends on what the user must not take.
    topic:
      /(?<![\p{L}])(?:painkiller|painkillers|medicine|medicines|medication|meds|pill|pills|tablet|tablets|headache|migraine|pain|fever|flu|cold|cough|sore throat|toothache|schmerzmittel|medikament|medikamente|tablette|tabletten|kopfschmerzen|schmerzen|fieber|analgésico|analgésicos|medicamento|medicamentos|pastilla|pastillas|dolor|fiebre)(?![\p{L}])/iu,
    asks: {
      en: ['Which medicines am I allergic to or must I avoid?'],
      de: ['Gegen welche Medikamente bin ich allergisch?'],
      es: ['¿A qué medicamentos soy alérgico?'],
    },
    evidence:
      /(?<![\p{L}])(?:allergic|allergy|allergies|ibuprofen|paracetamol|acetaminophen|aspirin|penicillin|codeine|antibiotics?|medication|medicine|medicines|meds|pills?|tablets?|insulin|blood pressure|blood thinners?|pregnant|stomach|ulcer|kidneys?|liver|asthma|allergisch|allergie|medikament|medikamente|schwanger|alérgico|alérgica|alergia|medicamento|medicamentos|embarazada)(?![\p{L}])/iu,
    settles:
      /(?<![\p{L}])(?:(?:allergic|allergy|allergies|allergisch|alérgic[oa]) (?:to |gegen |a )?(?:\p{L}+ ){0,2}(?:ibuprofen|paracetamol|acetaminophen|aspirin|penicillin|amoxicillin|codeine|morphine|antibiotics?|nsaids?|sulfa|medicines?|medications?|painkillers?|\p{L}+cillin|medikament\p{L}*|medicamentos?)|can['\u2019]?t take|cannot take|must not take|mustn['\u2019]?t take|blood thinners?|ulcer|pregnant|schwanger|embarazada)(?![\p{L}])/iu,
  },
  {
    // A present is chosen by what its receiver likes; so is an outing, a film or something to do together.
    topic:
      /(?<![\p{L}])(?:present|presents|gift|gifts|party|get (?:him|her|them)(?! to(?![\p{L}]))|outing|outings|day out|something fun|something to do|things to do|movie|movies|film|films|family night|geschenk|geschenke|ausflug|regalo|regalos|excursión|película)(?![\p{L}])/iu,
    asks: {
      en: ['What do my family and friends like?'],
      de: ['Was mögen meine Familie und Freunde?'],
      es: ['¿Qué les gusta a mi familia y amigos?'],
    },
    evidence: LIKES,
    // A liking or a dislike of those the message brings (or of the user) settles what to choose for them.
    settles: LIKES,
  },
];

/** A request to the assistant, or a question about what the user should choose ("what should I ...", "where should we ..."). */
const CHOOSING = /^[¿¡]?(?:what|where|which|wo|was|welche[snrm]?|qué|que|dónde|donde|cuál|cual)(?![\p{L}]).*(?<![\p{L}])(?:should|shall|can|could|need to|have to|ought to|sollte?n?|soll|können|kann|muss|debería|debo|deberíamos|puedo|podemos|tengo que)(?![\p{L}])/iu;

/** A request phrased as a question to the assistant. */
const ASKS_ASSISTANT = /^(?:(?:hey|hi|ok|okay|so)[\s,]+)?(?:can|could|would|will) you(?![\p{L}])/iu;

/**
 * A question whether something is all right for someone ("Can I eat soba?", "Is hummus safe for me?", "Are they
 * ok for him?", "Can I do it?", "What can I take?"): what the memory must supply is the same as for a choice, for
 * the need the message is about anywhere in it.
 */
const ALLOWED = /(?<![\p{L}])(?:(?:can|may|could|should)\s+(?:i|we|he|she|they|\p{Lu}\p{L}+)\s+(?:eat|have|drink|try|order|take|do|go|join|come|manage|handle)|(?:safe|ok|okay|alright|all right|fine|good idea)\s+(?:for|to)|watch out for|be careful (?:with|about)|worry about)(?![\p{L}])/iu;

/**
 * A question for the assistant's help with a plan ("how should I plan it?", "how do we get there", "what do I need to
 * sort out", "any ideas?"): what to choose, asked without "what should".
 */
const ASKS_HELP =
  /^(?:how (?:should|shall|do|can|could|would) (?:i|we)(?![\p{L}])|(?:(?:any|some|give me(?: some)?|\p{L}+) )?(?:ideas|suggestions|tips)[?!.]*$|what (?:do|would) (?:i|we) (?:need|have) to (?:sort|arrange|plan|think|do|organi[sz]e|bring|take)|what (?:recipe|dish|food|menu)(?![\p{L}]))/iu;

/**
 * A clause that asks the assistant for a plan or a choice inside a sentence read as something else ("going to tehran
 * for a few days next month, help me plan", "nuria and arnau are coming for lunch sunday what should i cook").
 */
const CHOOSING_CLAUSE =
  /(?:^|[,;:]\s*|\s)(?:(?:(?:can|could|would|will) (?:you|u) )?(?:help me|give me|gimme|suggest|recommend|make me|find me|pick)(?![\p{L}])|(?:what|where|which) (?:should|shall|could|can|would|will|\p{L}+['\u2019]?ll) (?:i|we)(?![\p{L}])|what['\u2019]ll (?:i|we)(?![\p{L}])|how (?:should|shall|do|can) (?:i|we)(?![\p{L}])|(?:any |some )?ideas[?!]*$|anything (?:i|we) (?:should|need to|have to|must)(?![\p{L}])|(?:best|easiest|cheapest|quickest) way (?:for (?:me|us) )?to(?![\p{L}])|(?:does|would|will|could) (?:that|it|this) work(?![\p{L}])|is (?:it|that|this) (?:doable|possible|realistic)(?![\p{L}])|(?:which|what) (?:dates?|days?|weekends?|weeks?|months?) (?:could|would|will|should|can|might) work(?![\p{L}]))/iu;

/** A request, or a question to the assistant or about what to choose, asks for something to be chosen or done. */
function choosingIn(sentence: MessageSentence): boolean {
  if (sentence.kind === 'request') return true;
  if (sentence.kind === 'question' && (CHOOSING.test(sentence.text) || ASKS_ASSISTANT.test(sentence.text) || ASKS_HELP.test(sentence.text))) return true;
  return CHOOSING_CLAUSE.test(sentence.text);
}

/** What asks for a fact even in a request ("tell me when ...", "can you check where ..."). */
const ASKS_FACT =
  /(?<![\p{L}])(?:tell|remind|check|let me know|look up|when|where|who|whose|how (?:old|long|much|many|often)|what(?:['\u2019]?s| is| are| was| were| does| did| do)|which (?:day|days|date|time|one))(?![\p{L}])/iu;

/**
 * Whether a message asks the assistant to plan or choose something ("Plan a date night for Sota and me", "what
 * should I get Dinda for her birthday", "ideas for morwenna's party"), not to tell a fact: what is known of the people
 * it names (their diet, their age, what scares them) is what a good answer is built from, though none of the
 * request's words is in it.
 */
export function asksToChoose(message: string): boolean {
  return readSentences(message).some((sentence) => choosingIn(sentence) && !ASKS_FACT.test(sentence.text));
}

/** An implied question, and what a memory must name to answer it (Need.evidence). */
export interface ImpliedPart {
  text: string;
  evidence: RegExp;
  /** Need.settles */
  settles?: RegExp;
  /** Whom it asks about when not the user: the one person the message names ("Can she have the cheesecake?"). */
  about?: string;
}

/** The one asked about in a question whether something is all right ("Can Rafa eat ...", "ok for him"), unless the user. */
const ALLOWED_FOR =
  /(?<![\p{L}])(?:(?:[Cc]an|[Mm]ay|[Cc]ould|[Ss]hould)\s+(he|she|they|\p{Lu}\p{Ll}+)\s+(?:eat|have|drink|try|order|take)|(?:safe|ok|OK|okay|alright|all right|fine)\s+for\s+(him|her|them|\p{Lu}\p{Ll}+))(?![\p{L}])/u;
const PRONOUN = /^(?:he|she|they|him|her|them)$/iu;

/** The person a message's "is it all right" question is about, by name; undefined for the user or when unclear. */
function allowedFor(sentence: string, message: string): string | undefined {
  const m = ALLOWED_FOR.exec(sentence);
  const who = m?.[1] ?? m?.[2];
  if (who === undefined || /^(?:i|we)$/iu.test(who)) return undefined;
  if (!PRONOUN.test(who)) return who;
  const names = [...namesIn(message)].filter((n) => !NOT_NAMES.has(n) && !isCalendarWord(n));
  if (names.length !== 1) return undefined;
  // As the message writes it ("Sanna").
  return new RegExp(String.raw`(?<![\p{L}])(${names[0]})`, 'iu').exec(message)?.[1];
}

/** The implied questions of a message, in its language ('en' when it is none of those written). */
export function impliedParts(message: string, language: string): ImpliedPart[] {
  const lang = language === 'de' || language === 'es' ? language : 'en';
  const implied = new Map<string, { need: Need; about?: string }>();
  const add = (need: Need, about?: string): void => {
    for (const text of need.asks[lang]) if (!implied.has(text)) implied.set(text, { need, ...(about !== undefined ? { about } : {}) });
  };
  // What the message said before a sentence ("cooking for him, mama and nigar. what should i make"): a choice asked
  // after it is about that.
  let context = '';
  for (const sentence of readSentences(message)) {
    // "Can you look up flights for my trip?" asks the assistant to do it: a request with a question mark.
    const choosing = choosingIn(sentence);
    const about = `${context} ${sentence.text}`;
    if (sentence.kind === 'statement' || sentence.kind === 'small-talk') context = about;
    // "Is it safe to give a greyhound raw chicken wings?" asks about the world, not about anyone's diet (general.ts).
    const allowed = sentence.kind === 'question' && ALLOWED.test(sentence.text) && !(asksGeneral(sentence.text, []) && namesIn(sentence.text).size === 0);
    for (const need of NEEDS) {
      if (choosing && need.topic.test(about)) add(need);
      // "Daniel baked cookies with almonds. Are they ok for him?", "I've got a headache. What can I take?": what it
      // is about may be named anywhere in the message (a food by its name too).
      else if (allowed && (need.topic.test(message) || (need.namedBy === 'evidence' && need.evidence.test(message)))) add(need, allowedFor(sentence.text, message));
    }
  }
  return [...implied].map(([text, { need, about }]) => ({
    text,
    evidence: need.evidence,
    ...(need.settles ? { settles: need.settles } : {}),
    ...(about !== undefined ? { about } : {}),
  }));
}

/** The texts of a message's implied questions (impliedParts). */
export function impliedNeeds(message: string, language: string): string[] {
  return impliedParts(message, language).map((part) => part.text);
}
