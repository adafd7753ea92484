import { stemIn } from '../text/analyze.js';
import { AGE_FIGURE, BIRTH, DAY_OF_MONTH_SOURCE, MONTH_NAMES } from './answer-kind.js';

/**
 * What an English question asks about someone, when its words say so plainly, and whether a memory states it though
 * it never uses those words: "How old is Emir?" over "Yusuf's son Emir is 10 and plays chess.", "What do I do for a
 * living?" over "I'm a secondary school maths teacher.", "what do I drive" over "Lukas's car is an old VW T4 van.".
 * The words of the question that ask (its frame: "old", "living", "drive") are then covered by the memory
 * (HybridRanker: RankerParams.intentCovers), as if it had said them: the embedding reads past the frame, and the
 * words side would otherwise count it missing.
 *
 * Everyday attributes only, each with patterns a memory states it by; an attribute the memory does not state (a
 * near miss: "Does Marta have kids?" over "Marta lives in Porto.") gains nothing.
 */

export interface Intent {
  readonly name: string;
  /** The question asks for it. */
  asks: RegExp;
  /** A memory states it. */
  states: RegExp;
  /** The words of the question it covers, as written (stemmed on first use). */
  covers: readonly string[];
}

const NUMBER = AGE_FIGURE;
const AGE = new RegExp(
  String.raw`\b(?:is|are|was|turns?|turned|turning|aged?)\s+(?:almost\s+|nearly\s+|just\s+)?${NUMBER}\b(?!\s*(?:km|kg|miles|minutes|hours|euros|dollars|pounds|times|%|(?:st|nd|rd|th)\b|(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b))|\b${NUMBER}[- ](?:years?|yrs?)[- ]old\b|\b${NUMBER}\s+(?:years?|yrs?)\s+old\b|\(\d{1,2}\)|\bborn\b[^.!?]*\b(?:19|20)\d\d\b|${BIRTH.source}`,
  'iu',
);
const OCCUPATIONS =
  'teacher|nurse|doctor|gp|chef|cook|engineer|developer|programmer|designer|lawyer|solicitor|dentist|vet|veterinarian|midwife|architect|student|pharmacist|accountant|manager|scientist|researcher|writer|journalist|photographer|artist|musician|electrician|plumber|carpenter|mechanic|driver|pilot|firefighter|officer|guard|cleaner|baker|barista|waiter|waitress|librarian|professor|lecturer|consultant|analyst|tester|translator|paramedic|surgeon|therapist|physiotherapist|psychologist|worker|farmer|fisherman|tailor|hairdresser|builder|clerk|cashier|receptionist|secretary|banker|entrepreneur|founder|freelancer|tutor|coach|trainer|dancer|actor|actress|singer|soldier|carer|caregiver|postman|courier|technician|agent|broker|economist|chemist|biologist|physicist|historian|curator|editor|producer|director|attendant|assistant|administrator|volunteer|intern|apprentice|retired|retiree|unemployed|sergeant|constable|detective|policeman|policewoman|inspector|welder|butcher|barber|pastor|priest|vicar|imam|rabbi|minister|optician|counsellor|counselor|surveyor|contractor|labourer|laborer|miner|deckhand|sailor|fisher|trucker|lineman|operator|nanny|childminder|housekeeper|chaplain|stylist|beautician|porter|ranger|warden|auditor|paralegal|bookkeeper|dispatcher|controller|leader|supervisor|foreman|forewoman|coordinator|representative|specialist|advisor|adviser|executive|associate|owner';
const JOB = new RegExp(
  String.raw`\b(?:works?|worked|working)\s+(?:(?:nights|days|weekends|shifts|part-time|full-time|freelance)\s+)?(?:as|at|for|in)\b|\b(?:job|employed|profession|career|occupation)\b|(?:\b(?:runs|owns|manages)|\b(?:i|we)\s+(?:run|own|manage))\s+(?:a|an|the|his|her|their|my|our|its own|his own|her own|their own)\s+(?:[\p{L}-]+\s+){0,3}(?:business|company|firm|shop|store|restaurant|cafe|café|bakery|bar|pub|salon|practice|agency|studio|farm|garage|clinic|grocery|stall|gym|hotel|b&b|guesthouse|workshop)\b|\b(?:is|am|was|i['\u2019]m|he['\u2019]s|she['\u2019]s)\s+(?:an?\s+)?(?:[\p{L}-]+\s+){0,3}(?:${OCCUPATIONS}|\p{L}{3,}(?:ist|ician))s?\b`,
  'iu',
);
/** Who a question asks about: a pronoun, a name, a relative ("my sister", "Ana's husband"). */
const SUBJECT = String.raw`(?:(?:my|your|his|her|their|our|\p{Lu}\p{L}+['\u2019]s)\s+\p{L}+|i|you|he|she|they|we|\p{Lu}\p{L}+)`;

/** What someone cannot eat, drink or take: an allergy, an intolerance, a plain "can't". */
const CANNOT_HAVE = String.raw`allergic|allergy|allergies|intolerant|intolerance|can['\u2019]?t (?:eat|have|drink|take)|cannot (?:eat|have|drink|take)|doesn['\u2019]?t (?:eat|drink)|don['\u2019]?t (?:eat|drink)`;

/** What someone avoids, eating or otherwise. */
const AVOIDS = new RegExp(String.raw`\b(?:${CANNOT_HAVE}|can['\u2019]?t stand|avoids?|avoiding)\b`, 'iu');

/** What someone may not eat or take: an allergy, an intolerance, a diet (not whatever they avoid: "winter trips"). */
const RESTRICTED = new RegExp(String.raw`\b(?:${CANNOT_HAVE}|coeliac|celiac|vegan|vegetarian|halal|kosher|(?:low|no)[- ](?:salt|sugar|fat|carb)|diet)\b`, 'iu');

/** A condition by its name: an acronym ("RSI", "COPD") or a medical ending, or a common one. Case matters for the acronym. */
const NAMED_CONDITION = /\b(?:has|have|had|got|with)\s+(?:(?:mild|bad|severe|chronic|early|type [12])\s+)?(?:[A-Z]{2,5}\b|[A-Za-z]*(?:itis|osis|emia|aemia|algia|pathy|ism)\b)|\b(?:[Dd]iagnosed|[Dd]iabetes|[Aa]sthma|[Ee]pilepsy|[Ee]czema|[Pp]soriasis|[Dd]ementia|[Aa]lzheimer['\u2019]?s|[Pp]arkinson['\u2019]?s|[Mm]igraines?|[Ss]yndrome|[Dd]isorder|[Dd]isease|[Cc]ondition|[Aa]naemia|[Aa]nemia|[Gg]out|[Ll]upus|[Ss]ciatica|[Tt]innitus|[Aa]ngina)\b/u;

const INTENTS: readonly Intent[] = [
  {
    name: 'age',
    asks: new RegExp(String.raw`\bhow old\b|\bwhat age\b|\bhow many (?:months|weeks|years)(?: old)? (?:is|are|will)\b|\b(?:is|was) ${SUBJECT} (?:turning |now )?\d{1,3} or \d{1,3}\b`, 'iu'),
    states: AGE,
    covers: ['old', 'age', 'months', 'weeks', 'years'],
  },
  {
    name: 'job',
    asks: new RegExp(
      String.raw`\bfor a living\b|\bfor work\b|\bfor a crust\b|\bwhere(?:['\u2019]s| is| does| do) ${SUBJECT} work(?:ing)?\b|(?:my|your|his|her|their|\p{Lu}\p{L}+['\u2019]s)\s+(?:job|occupation|profession|line of work|trade)\b|\bwhat (?:kind of |sort of |line of )?work (?:do|does|did) ${SUBJECT} do\b|\bwhat (?:kind of |sort of |type of )?(?:business|company|firm|shop) (?:do|does|did) ${SUBJECT} (?:have|run|own)\b|\b(?:what|which) (?:company|firm|outfit) (?:is|are) ${SUBJECT} (?:with|at)\b|\bwho (?:does|do|did) ${SUBJECT} work for\b|\bwhereabouts (?:[\p{L}-]+ ){0,3}(?:is|are|does|do) ${SUBJECT} work(?:ing)?\b|\bwhat (?:is it|exactly) (?:that )?${SUBJECT} (?:do|does)\b|\bwhat (?:do|does|did) ${SUBJECT} do\b(?!\s+(?:on|at|with|for|every|after|before|to|when|if|about|this|that|next|last|tonight|today|tomorrow|in (?:the |his |her |their |my |our )?(?:morning|mornings|evening|evenings|afternoon|afternoons|summer|winter|spring|autumn|fall|weekends?|holidays?|free time|spare time)))`,
      'iu',
    ),
    states: JOB,
    covers: ['living', 'job', 'work', 'occupation', 'profession', 'career', 'trade', 'business', 'company', 'firm'],
  },
  {
    name: 'home',
    asks: new RegExp(
      String.raw`\bwhere (?:do|does|did) ${SUBJECT} (?:live|stay)\b|\bwhere(?:['\u2019]s|s| am| is| are) ${SUBJECT} (?:based|living|livin['\u2019]?|staying|stayin['\u2019]?|stationed|posted)(?![\p{L}])|\bwhere(?:['\u2019]s| is) (?:my|his|her|their|\p{Lu}\p{L}+['\u2019]s) (?:home|place|house|flat|apartment)\b|\bwhere(?:['\u2019]s| is| are) (?:my \p{L}+|\p{Lu}\p{L}+) (?:these days|nowadays|now|at the moment|living|livin)\b|\bwhich (?:city|town|country) (?:do|does|did) ${SUBJECT} live\b|\b(?:which|what) (?:city|town|country|state|part of \p{L}+) (?:is|are) ${SUBJECT} (?:in|living in|based in|at)\b`,
      'iu',
    ),
    states: /\b(?:lives?|living|lived|moved|relocated|based|settled|stationed|posted|deployed)\s+(?:in|to|from|near|at|with|outside|just outside)\b|\b(?:flat|house|apartment|home|place)\s+(?:is\s+)?(?:in|near|on)\b/iu,
    covers: ['live', 'stay', 'home', 'based', 'house', 'flat', 'apartment', 'place', 'stationed', 'posted'],
  },
  {
    name: 'vehicle',
    asks: new RegExp(String.raw`\bwhat (?:do|does|did) ${SUBJECT} drive\b|\bwhat (?:kind of |sort of |make of )?(?:car|vehicle)\b|\bwhich car\b|\bmake and model\b|\bwhat (?:make|model)\b(?=.*\b(?:car|van|truck|ute|vehicle|motorbike|motorcycle|scooter)\b)|\b(?:car|van|truck|ute|vehicle|motorbike|motorcycle|scooter)\b.*\bwhat (?:make|model)\b|\bwhat(?:['\u2019]s| is| was)? (?:my|his|her|their|\p{Lu}\p{L}+['\u2019]s) (?:car|vehicle|ride)\b`, 'iu'),
    states: /\b(?:drives?|drove|driving) (?:a|an|the|his|her|their|my|an old|a new)\b|\b(?:car|cars|van|minivan|truck|motorbike|motorcycle|scooter|suv|hatchback|pickup|estate|saloon|convertible)\b/iu,
    covers: ['drive', 'car', 'vehicle', 'make', 'model'],
  },
  {
    name: 'reading',
    asks: new RegExp(String.raw`\bwhat (?:book|novel)\b|\bwhat (?:am|is|are) ${SUBJECT} reading\b|\bwhich book\b`, 'iu'),
    states: /\b(?:reading|read|reads|rereading|book|novel|trilogy|series)\b/iu,
    covers: ['book', 'novel', 'read', 'reading'],
  },
  {
    name: 'study',
    asks: new RegExp(String.raw`\bwhere(?:['\u2019]s|s| is| are| does| do) ${SUBJECT} (?:at |go to |going to |studying)(?:uni|university|college)?\b|\bwhat (?:am|is|are) ${SUBJECT} studying\b|\bwhat (?:do|does|did) ${SUBJECT} study\b|\bwhat (?:degree|course|subject)\b|\b(?:my|his|her|their|\p{Lu}\p{L}+['\u2019]s) (?:degree|major|course)\b`, 'iu'),
    states: /\b(?:studying|studies|studied|degree|course|student|phd|master['\u2019]?s|bachelor['\u2019]?s|majoring)\b/iu,
    covers: ['study', 'studying', 'degree', 'course', 'subject', 'uni', 'university', 'college'],
  },
  {
    name: 'medication',
    asks: new RegExp(
      String.raw`\b(?:name of|names of)\s+(?:[\p{L}'\u2019]+\s+){0,3}(?:meds|medications?|medicines?|pills?|tablets?|inhalers?|drops)\b|\b(?:meds|medications?|medicines?|pills?|tablets?|inhalers?)\b[^.?!]{0,30}\bcalled\b|\b(?:what|which)(?:['\u2019]s|\s+is|\s+are)?\s+(?:(?:my|his|her|their|the|that|those|these)\s+)?(?:\p{L}+\s+)?(?:meds|medications?|medicines?|pills?|tablets?|supplements|drugs|vitamins|prescriptions?|blood thinners?|inhalers?)\b|\b(?:meds|medications?|medicines?|pills|tablets|supplements)\s+(?:am|is|are|do|does)\s+${SUBJECT}\s+(?:on|taking|take)\b`,
      'iu',
    ),
    // A drug by its generic name after "take" ("takes amlodipine", "I'm on warfarin"): the endings of common ones.
    states: new RegExp(
      String.raw`\b(?:tablets?|pills?|medications?|meds|medicines?|inhalers?|insulin|supplements?|vitamins?|drops|injections?|antibiotics|antidepressants?|antihistamines?|statins?|blood thinners?|prescriptions?|prescribed|mg)\b|\b(?:takes?|taking|took|on)\s+\p{L}{3,}(?:pine|pril|olol|statin|formin|farin|triptan|thyroxine|zepam|profen|prazole|cillin|mycin|sartan|lukast|xetine|traline|opram|gliptin|parin|thiazide|semide)\b`,
      'iu',
    ),
    covers: ['med', 'meds', 'medication', 'medicine', 'pill', 'pills', 'tablet', 'tablets', 'supplement', 'supplements', 'drug', 'drugs', 'vitamin', 'vitamins', 'prescription', 'take', 'taking', 'blood', 'thinner', 'thinners', 'inhaler'],
  },
  {
    name: 'avoid',
    asks: /\b(?:avoid|stay away from|keep away from|steer clear of)\b/iu,
    states: new RegExp(`${AVOIDS.source}|${RESTRICTED.source}`, 'iu'),
    covers: ['avoid', 'stay', 'away', 'keep', 'steer', 'clear', 'need'],
  },
  {
    // "is there anything Lwazi can't eat?", "which antibiotic can't i take": what someone is allergic to, intolerant
    // of or kept off by their diet, not whatever they avoid ("avoids winter trips").
    name: 'restriction',
    asks: /\b(?:can['\u2019]?t|cannot|can not|shouldn['\u2019]?t|should not|mustn['\u2019]?t|not (?:allowed|supposed) to)\s+(?:eat|have|drink|take)\b|\b(?:can['\u2019]?t|shouldn['\u2019]?t|mustn['\u2019]?t) (?:i|he|she|they|we|you|(?:my|his|her|their|our) \p{L}+|\p{L}+) (?:eat|have|drink|take)\b|\bis (?:\p{L}+ )?(?:ok|okay|safe|allowed) (?:for \p{L}+ )?to (?:eat|have|drink|take)\b/iu,
    states: RESTRICTED,
    covers: ['eat', 'have', 'drink', 'take', 'anything', 'safe', 'allowed'],
  },
  {
    name: 'wish',
    asks: /\bbucket list\b|\bwish list\b|\bdream (?:trip|destination|job|car|holiday)\b|\bsomeday\b|\bone day\b/iu,
    states: /\b(?:wants? to|would love to|dreams? (?:of|about)|one day|someday|bucket list|hopes? to|plans? to|wishes)\b/iu,
    covers: ['bucket', 'list', 'wish', 'dream', 'someday', 'day'],
  },
  {
    name: 'languages',
    asks: new RegExp(String.raw`\b(?:what|which|how many) languages? (?:am|are|do|does|did|can) ${SUBJECT}\b|\bwhat (?:do|does|can) ${SUBJECT} speak\b|\b(?:does|do|can) ${SUBJECT} speak\b`, 'iu'),
    states: /\b(?:speaks?|spoke|speaking|fluent|native|bilingual|trilingual|languages?|mother tongue)\b|\b(?:learning|learns|lessons in|classes in)\s+(?:some |a bit of |basic )?(?:english|spanish|french|german|italian|portuguese|japanese|chinese|mandarin|cantonese|korean|arabic|russian|hindi|urdu|punjabi|bengali|swahili|dutch|swedish|norwegian|danish|finnish|polish|czech|greek|turkish|hebrew|welsh|irish|gaelic|m[aā]ori|te reo|tagalog|vietnamese|thai|indonesian|malay|zulu|xhosa|afrikaans|sign language|bsl|asl)\b/iu,
    covers: ['language', 'languages', 'speak', 'know', 'learn', 'learning', 'pick'],
  },
  {
    name: 'music',
    asks: /\b(?:songs?|music|singers?|bands?|musicians?|artists?|albums?)\b|\blisten(?:s|ing)? to\b/iu,
    states: /\b(?:singers?|bands?|music|songs?|albums?|rapper|composer|musician|listens?|listening|concerts?|gigs?|playlist)\b/iu,
    covers: ['song', 'songs', 'music', 'singer', 'band', 'musician', 'artist', 'album', 'listen', 'love', 'like'],
  },
  {
    // "which club i follow", "what team do I root for", "who do i watch in the premier league"
    name: 'team',
    asks: new RegExp(
      String.raw`\b(?:what|which) (?:(?:football|soccer|rugby|basketball|baseball|hockey|cricket|afl|nfl|nba) )?(?:team|club|side)\b|\bwho (?:do|does|did) ${SUBJECT} (?:support|follow|watch|root for|cheer for)\b`,
      'iu',
    ),
    states: /\b(?:supports?|supporter|fan of|follows?|season ticket|roots? for|cheers? for|die-hard|diehard)\b|\bfavou?rite (?:\p{L}+ )?(?:team|club|side)\b/iu,
    covers: ['team', 'club', 'side', 'support', 'follow', 'watch', 'root', 'cheer', 'league', 'premier'],
  },
  {
    // "what sets off my headaches", "what usually brings on these migraines" over "... gets migraines when she doesn't sleep".
    name: 'trigger',
    asks: /\bwhat (?:\p{L}+ )?(?:sets? off|brings? on|triggers?|causes?|sparks? off|starts? off)\b|\bwhy (?:do|does) (?:i|he|she|they|\p{L}+) (?:get|keep getting)\b/iu,
    states: /\b(?:gets?|getting|has|have|suffers? from)\s+(?:\p{L}+\s+){0,2}?(?:when|whenever|if|after|from)\b|\b(?:triggers?|triggered|brings? on|brought on|sets? off|caused by|set off by)\b/iu,
    covers: ['set', 'sets', 'off', 'bring', 'brings', 'trigger', 'triggers', 'cause', 'causes', 'spark', 'start', 'get'],
  },
  {
    // "what did I do to it in the first place?", "how did he hurt his knee" over "... a bad shoulder from an old surfing injury".
    name: 'injury',
    asks: /\bwhat (?:did|have) (?:i|you|he|she|they|\p{L}+) (?:do|done) to (?:it|my|his|her|their|that)\b|\bhow did (?:i|he|she|they|\p{L}+) (?:hurt|injure|do|break|damage)\b/iu,
    states: /\b(?:injur(?:y|ies|ed)|hurt|broke|broken|tore|torn|sprained|strained|fell|fall|accident|crash)\b|\b(?:bad|dodgy|dicky|gammy|sore|weak)\s+(?:left |right |lower |upper )?(?:back|knee|knees|shoulder|hip|ankle|wrist|neck|elbow)\s+from\b/iu,
    covers: ['do', 'did', 'done', 'hurt', 'injure', 'break', 'damage', 'first', 'place'],
  },
  {
    // "What day is the shop shut?", "when is the pharmacy open" over "The bakery is closed on Mondays."
    name: 'opening',
    asks: /\b(?:shut|closed)\b|\b(?:opening|closing) (?:hours|times?)\b|\b(?:when|what (?:days?|times?|hours)|which days?)\b.*\bopen\b/iu,
    states: /\b(?:closed|shut|open|opens|closes)\s+(?:on|at|from|until|till|every|all|at weekends|weekends|mondays|sundays)\b/iu,
    covers: ['shut', 'close', 'closed', 'open', 'opening', 'day', 'days', 'hours', 'time'],
  },
  {
    // "what's that condition called again, the one i have?" over "Wouter has RSI in his right wrist from drawing."
    name: 'condition',
    asks: /\b(?:condition|diagnosis|illness|disease|syndrome|disorder)\b|\bwhat(?:['\u2019]s| is) wrong with\b/iu,
    states: NAMED_CONDITION,
    covers: ['condition', 'diagnosis', 'illness', 'disease', 'syndrome', 'disorder', 'wrong', 'called', 'name'],
  },
  {
    // "When am I done with all this marking?", "how long is Ana away" over "... marking exam papers until 5 December."
    name: 'until',
    asks: new RegExp(String.raw`\bwhen (?:am|is|are|will) ${SUBJECT} (?:be )?(?:done|finished|through|free|back)\b|\bwhen (?:does|do|will) (?:it|that|this|${SUBJECT}) (?:end|finish|stop|wrap up)\b|\bhow long (?:am|is|are|will) ${SUBJECT} (?:be )?(?:away|gone|off|there|doing)\b`, 'iu'),
    states: /\b(?:until|till|til|through to|ends? on|finish(?:es)? on|back on|back in)\b/iu,
    covers: ['done', 'finished', 'finish', 'through', 'free', 'back', 'end', 'stop', 'long', 'away', 'gone'],
  },
  {
    // "what breed is empanada" over "a rescue cat called Empanada": met only by a memory that names a breed.
    name: 'breed',
    asks: /\bwhat (?:breed|kind of dog|kind of cat|sort of dog|type of dog)\b|\bwhich breed\b/iu,
    states: /\b(?:breed|collies?|labradors?|labs?|retrievers?|terriers?|spaniels?|greyhounds?|whippets?|lurchers?|poodles?|beagles?|bulldogs?|boxers?|dachshunds?|huskies|husky|shepherds?|alsatians?|rottweilers?|pugs?|chihuahuas?|corgis?|dalmatians?|kelpies?|heelers?|staffies|staffy|staffordshire|jack russells?|schnauzers?|doodles?|cockapoos?|labradoodles?|siamese|persian|tabby|ragdolls?|maine coons?|bengals?|sphynx|burmese|british shorthair|moggy|mongrel|mutt|mixed breed|cross)\b/iu,
    covers: ['breed', 'kind', 'sort', 'type', 'dog', 'cat'],
  },
  {
    // "what time do i clock in when im on earlies", "what time is my train" over "... early shifts start at 4:50am".
    name: 'clock',
    asks: /\bwhat time (?:do|does|did|is|are|am|will|should)\b|\b(?:what|which) (?:times|hours)\b|\bwhen (?:do|does) (?:i|he|she|they|we|my \p{L}+|\p{L}+) (?:start|finish|clock (?:in|on|off|out)|knock off|leave|get off)\b/iu,
    // A span of hours too ("from 5 to 9", "8-1").
    states: new RegExp(
      String.raw`\b\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\b(?:noon|midday|midnight|o['\u2019]clock)\b|\b(?:from )?\d{1,2}\s*(?:to|-|–|until|till)\s*\d{1,2}(?:[:.]\d{2})?\b(?!\s*(?:years?|months?|weeks?|days?|kg|km|%|(?:${MONTH_NAMES})\b))`,
      'iu',
    ),
    covers: ['time', 'times', 'hours', 'start', 'finish', 'clock', 'knock', 'leave'],
  },
  {
    // "who's our internet provider", "who are we with, i need to ring them" over "Our fibre is with Afrihost."
    name: 'provider',
    asks: /\bwho (?:are|am|is) (?:we|i|you|he|she|they|\p{L}+) with\b|\b(?:internet|broadband|wifi|wi-fi|fibre|fiber|phone|mobile|energy|electricity|gas|power|insurance|bank|water) (?:provider|company|supplier|contract|plan)\b|\bwho(?:['\u2019]s| is) (?:our|my|his|her|their|the) (?:internet|broadband|wifi|fibre|phone|mobile|energy|electricity|gas|power|insurance|bank)\b/iu,
    states: /\b(?:is|are|am|we['\u2019]re|i['\u2019]m)\s+with\s+\p{Lu}|\b(?:internet|broadband|wifi|wi-fi|fibre|fiber|phone|mobile|energy|electricity|gas|power|insurance)\b[^.]{0,25}\b(?:with|from|through)\b/u,
    covers: ['provider', 'company', 'supplier', 'internet', 'broadband', 'wifi', 'fibre', 'with'],
  },
  {
    // "which uni is tobe in", "which school is luthando at": met only by a memory that names the place ("at UNILAG",
    // "at Morningside Primary"), not by one that says someone studies ("is a veterinary student").
    name: 'school',
    asks: new RegExp(String.raw`\bwhich (?:uni|university|college|school|kindergarten|nursery|creche) (?:is|are|does|do|did) ${SUBJECT}\b`, 'iu'),
    states: /\bat\s+(?:the\s+)?\p{Lu}\p{L}+|\b(?:[Uu]niversity|[Cc]ollege|[Ss]chool|[Pp]rimary|[Aa]cademy|[Kk]indergarten|[Cc]r[eè]che|[Nn]ursery)\b/u,
    covers: ['uni', 'university', 'college', 'school', 'kindergarten', 'nursery', 'creche', 'attend', 'go'],
  },
  {
    // "what's my rota on the boat" over "I work seven days on and seven off".
    name: 'rota',
    asks: /\b(?:rota|roster|shift pattern|shifts|swing|hitch)\b/iu,
    states: /\b(?:\p{L}+|\d+) (?:days?|weeks?|nights?) on\b|\b(?:on|in) (?:and|,) (?:\p{L}+ )?off\b|\bshifts?\b|\b(?:earlies|lates|nights|days) (?:and|or) (?:earlies|lates|nights|days)\b|\bfifo\b/iu,
    covers: ['rota', 'roster', 'shift', 'shifts', 'pattern', 'work', 'swing', 'hitch'],
  },
  {
    name: 'commute',
    asks: /\bcommut(?:e|es|ing)\b|\b(?:get|go|travel) to (?:work|the office|school)\b/iu,
    states: /\b(?:to work|to the office|commutes?|commuting|cycles|bikes|rides?|drives|takes the (?:train|bus|tram|metro|subway|ferry))\b/iu,
    covers: ['commute', 'get', 'go', 'travel', 'use', 'work', 'office'],
  },
  {
    // How long something takes or lasts, how often it comes round ("how long is the boat to torshavn", "how often
    // do the dogs get their food"): a memory that states a span or a frequency ("about two hours each way", "every
    // second day") answers it.
    name: 'span',
    // Not advice ("How often should I change the oil?").
    asks: /\bhow (?:long|often)(?:['\u2019]s|\s+(?:is|are|am|was|were|do|does|did|will|has|have|till|until))(?![\p{L}])/iu,
    states:
      /\b(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|thirty|forty|a few|a couple of|several)\s+(?:(?:and a half|more)\s+)?(?:minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|months?|years?)\b|\bevery\s+(?:\p{L}+\s+)?(?:day|night|week|month|year|morning|evening|minute|hour|\d+|other|second|third)\b|\b(?:once|twice|three times|four times)\s+(?:a|per|every)\b|\b(?:daily|weekly|monthly|fortnightly|yearly|annually|nightly)\b/iu,
    covers: ['long', 'often', 'take', 'takes', 'last', 'lasts', 'time', 'times'],
  },
  {
    // Which day of the week or the month ("what night do i throw rocks", "which days do i go up to town", "what day
    // of the month does my pension come"): a memory that names one ("I curl on Tuesday nights") says it without the
    // question's "day" or "night".
    name: 'day',
    asks: /\b(?:what|which|wat|wich)\s+(?:days?|nights?|evenings?|mornings?|afternoons?|date|dates|weekday)\b/iu,
    states: new RegExp(
      String.raw`\b(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekends?|weekdays?)\b|\b\d{1,2}(?:st|nd|rd|th)\b|${DAY_OF_MONTH_SOURCE}`,
      'iu',
    ),
    covers: ['day', 'days', 'night', 'nights', 'evening', 'evenings', 'morning', 'mornings', 'afternoon', 'afternoons', 'date', 'dates', 'weekday'],
  },
  {
    // What something costs, pays or is owed ("how much do i get for one of the big felt rugs", "whats my rate for
    // tourists", "what did the crab fetch"): a memory that states a sum of money answers it in its own words
    // ("... and I sell it for 28,000 som").
    name: 'money',
    asks: new RegExp(
      String.raw`^(?![^]*\bexchange rates?\b)[^]*?(?:\bhow much(?=\s+(?:do|does|did|is|are|was|were|will|would|should|can|could|more|money|cash|have|has|had|of|i|we|am|left|short|['\u2019]?s)(?![\p{L}]))|\bprice[- ]?wise\b|\bwhat(?:['\u2019]s|s| is| was| are| were| did| does| do)?\s+(?:(?:my|the|our|his|her|their|\p{L}+['\u2019]s)\s+)?(?:(?:\p{L}+)\s+)?(?:price|prices|cost|costs|rate|rates|wage|wages|salary|pay|hourly|fee|fees|budget|monthly|daily)\b(?![^?.!]*\b(?:to|into|against)\s+(?:the\s+)?(?:\p{L}+\s+)?(?:dollars?|euros?|pounds?|usd|eur|gbp)\b)|\bwhat (?:did|does|do|will|would) (?:[\p{L}'\u2019]+\s+){1,4}(?:fetch|go for|sell for|cost|pay|charge|earn|make|want for)\b)`,
      'iu',
    ),
    states: new RegExp(
      String.raw`[$€£¥₹₩₱₦₺₸₴₽]\s?\d|\d[\d.,]*\s?(?:(?:k|thousand|million|billion|mn|bn|lakh|crore)\s)?(?:dollars?|euros?|pounds?|cents?|bucks|som|manat|kina|rupiah|nakfa|bolivianos?|pesos?|lei|guaran[ií]es|guilders?|dalasi|maloti|rand|shillings?|francs?|escudos?|kwacha|birr|cedis?|naira|rupees?|lira|zloty|złoty|forints?|kron[aeo]r?|yen|yuan|won|baht|dong|ringgit|riyals?|rials?|dirhams?|dinars?|tenge|lari|dram|hryvnias?|rubles?|roubles?|kip|riel|taka|afghanis?|ngultrum|nu|ariary|leones?|c[oó]rdobas?|quetzal(?:es)?|soles|reais|real|pula|vatu|tala|pa['\u2019]anga|kyat|somoni|sum|tugriks?|mnt|usd|eur|gbp|aud|nzd|cad|chf|inr|jpy)(?![\p{L}])|(?<![\p{L}])(?:dollars?|euros?|nu|rs\.?|ksh|tsh|ush|usd|eur|us\$)\s?\d`,
      'iu',
    ),
    covers: ['much', 'price', 'cost', 'rate', 'wage', 'salary', 'pay', 'paid', 'hourly', 'fee', 'charge', 'fetch', 'earn', 'owe', 'budget', 'money', 'monthly', 'daily', 'get', 'make', 'sell', 'go', 'want', 'wise'],
  },
];

/** Every intent's name, in order (explain.intent's values). */
export const INTENT_NAMES: readonly string[] = INTENTS.map((i) => i.name);

let covered: Map<Intent, ReadonlySet<string>> | undefined;

/** The stems of an intent's frame words. */
function coveredStems(intent: Intent): ReadonlySet<string> {
  covered ??= new Map(INTENTS.map((i) => [i, new Set(i.covers.map((w) => stemIn(w, 'en')))]));
  return covered.get(intent) as ReadonlySet<string>;
}

/** What an English question asks for, plainly (empty for most questions). */
export function intentsOf(query: string): readonly Intent[] {
  const asked = asWritten(query);
  return INTENTS.filter((intent) => intent.asks.test(asked));
}

/** Question words as chat types them, written out ("wat day is ...", "wen does ..."), for the patterns above. */
function asWritten(query: string): string {
  return query.replace(/(?<![\p{L}'\u2019])(?:wat|wut|wht)(?![\p{L}])/giu, 'what').replace(/(?<![\p{L}'\u2019])wen(?![\p{L}])/giu, 'when').replace(/(?<![\p{L}'\u2019])wher(?![\p{L}])/giu, 'where');
}

/** The stems of the frame words of the intents a query asks (what a memory that states none of them does not meet). */
export function frameStemsOf(intents: readonly Intent[]): ReadonlySet<string> {
  return new Set(intents.flatMap((intent) => [...coveredStems(intent)]));
}

/**
 * The frame words of the asked intents that a memory states (undefined when it states none of them). `known`: what
 * was read of this text before, by intent (the ranker keeps it with the text's reading, so recalls over one user's
 * memories test each pattern on each text once).
 */
export function frameCoveredBy(intents: readonly Intent[], text: string, known?: Map<Intent, boolean>): ReadonlySet<string> | undefined {
  let found: Set<string> | undefined;
  for (const intent of intents) {
    let states = known?.get(intent);
    if (states === undefined) {
      states = intent.states.test(text);
      known?.set(intent, states);
    }
    if (!states) continue;
    const stems = coveredStems(intent);
    if (found === undefined && intents.length === 1) return stems;
    found ??= new Set();
    for (const stem of stems) found.add(stem);
  }
  return found;
}

/** The intents' names (explain.intent). */
export function intentNames(intents: readonly Intent[]): string[] {
  return intents.map((i) => i.name);
}
