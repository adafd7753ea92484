/**
 * What of a chat message is worth remembering: its statements (facts about the user or others, preferences, plans,
 * corrections), not its questions, requests to the assistant, greetings or small talk. An agent that stores every
 * message verbatim fills the memory with "Can I eat peanut butter?", which later outranks the fact that answers it.
 *
 * Rules, not a model: a message is cut into sentences (and clauses joined by a comma before a question), and each is
 * judged on its own. English is read best; in the other languages the text analysis knows, questions (by their
 * mark: ? ¿ ？), greetings and thanks are dropped and other sentences are kept.
 */
import { detectLanguage } from './analyze.js';

/** One sentence of a message, and what it is. */
export interface MessageSentence {
  text: string;
  kind: 'statement' | 'question' | 'request' | 'small-talk';
}

/** Sentence ends: . ! ? and their full-width forms, or a line break; "Dr." and "9.5" do not end a sentence. */
// Not after a title or an initial, nor "No." before its number ("School No. 12").
const SENTENCE_END = /(?<!\b(?:Dr|Mr|Mrs|Ms|St|Prof|vs|etc|e\.g|i\.e|a\.m|p\.m|\p{Lu})\.)(?<=[.!?。！？…])(?!(?<=\b(?:No|Nr|Apt|Vol)\.)\s+\d)\s+|\n+/u;

/** Words that open a sentence without being its content: "Oh, ...", "Actually, ...", "Btw ...". */
const LEAD_IN = /^(?:(?:oh|ah|well|so|and|but|also|btw|by the way|actually|anyway|anyways|ok|okay|right|yes|yeah|no|nope|hmm|um|fyi|ps|p\.s\.|wait|hang on|hold on|you know|roughly|approximately|approx)\b[\s,:;.!-]*)+/iu;

/** An explicit "remember this": what follows is the statement ("Remember that I'm vegan." keeps "I'm vegan."). */
const REMEMBER = /^(?:please\s+)?(?:remember|note|keep in mind|don't forget|do not forget|for the record|just so you know|for your information)(?:\s+that)?\b[\s,:]*/iu;

/** Greetings, thanks, acknowledgements and interjections, in the languages the text analysis knows. */
const SMALL_TALK_WORDS = new Set(
  (
    "b'y " +
    'hi hey hello hiya hii hiii yo howdy morning evening afternoon night good gm gn again there everyone all ' +
    'thanks thank thx ty cheers much so very lot you ok okay k kk cool great nice awesome perfect sure yes yeah yep ' +
    'no nope lol lmao haha hahaha hehe ugh phew wow oops hmm um bye goodbye cya see later soon sorry welcome ' +
    'anyway right alright fine np man dude meh whatever monday tuesday wednesday thursday friday saturday sunday' +
    ' hola buenas buenos dias días noches tardes gracias muchas adios adiós vale hasta luego pronto mañana jaja jajaja genial perfecto ' +
    'bonjour salut bonsoir merci oui non bien à plus ' +
    'hallo servus moin tschüss danke dir ihnen vielen dank ja nein guten gute schönen schönes tag morgen abend nacht noch ' +
    'ciao buongiorno buonasera grazie ' +
    'olá ola obrigado obrigada tchau ' +
    'merhaba selam hej tack så mycket snäll děkuji dekuji medaase ameseginalehu yassou yasou arigato arigatou domo grand million ta brill lovely sweet legend ace buena bueno aight muy amable ' +
    // Thanks and goodbyes in the other languages people mix into English chat ("mahalo, shoots", "tamam, thanks a lot").
    'jazakallah jazakallahu khair khairan shukran köszi kösz köszönöm dziękuję dzieki dzięki spasibo obrigadão a mahalo shoots tamam sağol sagol teşekkürler tesekkurler dank je jij wel bedankt tot doei asante sana kia ora toodles laters diolch cariad ka pai och aye righto yuh ya grazzi ħafna hafna qujanaq biri kadrinchey cher vemos takk fyri góða goda nátt natt goodnight nite heyy heyyy helloo'
  ).split(' '),
);

/**
 * Words that are small talk beside small talk, never stripped as an opening, since a statement can start with them:
 * "good night my friend", "thank you, God bless", "sweet as, cheers", "thank u po" (Filipino courtesy).
 */
const SMALL_TALK_BESIDE = new Set('la nos my dear friend mate bro buddy boss fam du är dale sos una genia genio love baby babe hun hen pet god bless as u po opo real so joven mija mijo amigo amiga che crack un va si'.split(' '));

/** Sentences about the conversation rather than the user: "Hope you're well.", "You're the best.", "That worked." */
/** Thanks to someone by a name or a pet name, and a blessing: "thank you putt, god bless", "thanks hun". */
const THANKS_TO = /^(?:thank\s+you|thank\s+u|thanks|thx|ty|cheers|ta|gracias|grazie|merci|danke|obrigad[oa])\s+[\p{L}'’]+[\s.!]*$/iu;

const ABOUT_THE_CHAT = /^(?:hope you|you(?:'re| are| were)\b|your\b|that(?:'s| is| was)? (?:it|all|great|perfect|helpful|hilarious|funny)\b|that worked|it worked|(?:that|this|it)(?:'s| is)?(?: (?:really|totally|so|very|super|honestly|actually))? help(?:s|ed|ful)\b|(?:(?:very|so|really|super|most) )?helpful(?: as (?:always|ever|usual))?[\s.!]*$|too easy\b|off to (?:bed|sleep|work)\b|that(?:'s|’s|s| is) me (?:off|away|done|sorted)\b|that(?:'s|’s|s| is) all i (?:need|needed|wanted)\b|that(?:'s|’s|s| is) (?:lovely|brilliant|grand|class|magic|amazing|awesome|sweet|kind)\b|i (?:always |just |totally |completely )?(?:forget|forgot|dunno|can['’]?t remember|cant remember|don['’]?t know|dont know)\s*[.!]*$|my memory(?:['’]s| is) (?:going|gone|terrible|shocking|awful|useless)\b|got it\b|(?:que\s+)?dios\s+te\s+bendiga|how are you|how's it going|you (?:do|did) (?:it )?all\b|you rock\b|how(?:['’]?s| is| was) (?:your|ur) (?:day|week|weekend|morning|evening|night)\b|how is it going|what(?:['\u2019]?s| is) up[\s?!.]*$|long time no see|nice to (?:meet|see)|good to (?:see|hear)|what would i do without you|(?:can|could|shall) we (?:pick (?:this|it) up|continue|carry on|talk|chat|finish)(?: (?:this|it))?(?: (?:later|tomorrow|another time|again|in the morning))?[\s?.!]*$|(?:talk|speak|chat) (?:later|soon|tomorrow)\b)/iu;

/** Verbs that are nouns as well: after "the" or "that" they name a thing ("the visit", "that run", "the work"). */
const NOUN_TOO = /^(?:visit|work|run|play|use|study|drink|meet|stay|love|need|want|like|keep|buy)$/iu;

/** A noun phrase whose clause follows it ("the money I borrowed", "that form they sent"): a topic, not a statement. */
const RELATIVE_TOPIC = /^(?:the|that|this|those|these)\s+(?:\p{L}+\s+){1,2}(?:i|we|you|he|she|they)\s+\p{L}+/iu;

/** A sentence that ends by saying it is only chat ("..., just saying hi", "just wanted to say good night lol"). */
const JUST_SAYING_HI =
  /(?<![\p{L}])just (?:saying|wanted to say|popping in to say|checking in to say) (?:hi|hello|hey|good ?night|morning)(?:\s+(?:lol|haha|x+))*[\s.!?]*$/iu;

/** After a question, a sentence with no subject that says why it is asked ("... tie the knot? want to get it right"). */
const REASON_AFTER_QUESTION = /^(?:want|wanna|need|needs|gotta|trying|tryna|gonna|hoping|planning)\s/iu;

/** After a question, who is asking it or what just happened ("the dentist is asking", "a gringo asked me and i blanked"). */
const ASKER_AFTER_QUESTION = /(?<![\p{L}])(?:(?:is|are|was|were|keeps?|kept) asking|asked (?:me|us)|wants? to know|wanted to know|i blanked|my mind went blank)(?![\p{L}])/iu;

/**
 * After a question, a short sentence about this moment ("she's been glued to her phone all night") is its context. Not
 * NOW: its "just" and "again" would drop "What should I cook? I just became vegan."
 */
const THIS_MOMENT = /(?<![\p{L}])(?:today|tonight|right now|at the moment|all (?:night|day|morning|evening|afternoon)|this (?:morning|afternoon|evening))(?![\p{L}])/iu;

/** A question asked at its end, as typed ("jana's bday is when again", "and Marta lives where", "starts wen"). */
const QUESTION_TAIL = /\b(?:(?:what|wat|when|wen|where|wher|who|which|wich|how)|(?:what|wat|which|wich)\s+[\p{L}'’]+)(?:\s+(?:again|exactly|now|then|though|ah|eh|la|lah))?\s*$/iu;
/** A sentence that opens like a question, with or without its mark (common typos too: "wich", "wat"). */
const QUESTION_OPENING = /^(?:(?:until|till|since|by)\s+when|every\s+how\s+(?:many|much|often|long)|whereabouts|what|what's|whats|wat|wats|wut|wich|whch|wen|wher|wheres|whens|hows|whos|hw|where|where's|when|when's|who|who's|whom|whose|why|how|how's|which|can|could|would|will|should|shall|may|might|must|do|does|did|don't|doesn't|didn't|is|isn't|are|aren't|am|was|wasn't|were|have|has|had|any|anything|is there|are there|wie|was|wo|wann|wer|warum|welche[rsnm]?|kann|kannst|qué|que|dónde|donde|cuándo|cuando|quién|quien|cómo|como|cuál|cual|quoi|où|quand|qui|pourquoi|comment|quel|quelle|est-ce|onde|quando|quem|porque|qual|cosa|dove|chi|perché)(?![\p{L}\p{N}])/iu;

/**
 * A sentence that opens like a question but states something: a clause of time before its main clause ("When it
 * rains hard the crossing floods, so ...", "When we fly to Nuuk I book the morning flight"), or "anything" as the
 * subject of a verb ("Anything too spicy wrecks my stomach"). The clause of time needs its main clause after it (a
 * comma, or a subject of its own): "when my food permit due" asks. Without a question mark, and with no question word
 * after.
 */
const SUBORDINATE_FIRST =
  /^(?:(?:when|whenever)\s+(?:i|we|he|she|they|it|you|my|our|his|her|their|the|a)\s(?=.*(?:,\s|\s(?:i|we|he|she|they|you)\s+[\p{L}'’]))|(?:anything|everything|something)\s+(?:[\p{L}'’]+\s+){0,3}?(?:(?!this\b|his\b|plus\b|less\b|us\b)[a-z]{2,}s|is|was)\s)(?!.*\b(?:what|where|which|how|who|should i|can i|do i|did i|remind me|tell me|can you|could you)\b)/iu;

/** A request to the assistant: an imperative, or "can you", "I need you to", "let me know". */
const REQUEST = /^(?:please\s+|pls\s+|kindly\s+)?(?:tell|remind|suggest|recommend|help|find|book|plan|give|show|make|write|list|explain|pick|set|set up|create|check|search|look up|look for|order|send|call|draft|summarize|summarise|translate|compare|describe|add|schedule|organise|organize|sort out|arrange|put together|come up with|figure out|work out|map out|such mir|suche|plane|schlag mir|empfiehl|organisier|buche|buch mir|finde|hilf mir|zeig mir|mach mir|gib mir|sag mir|busca|búscame|buscame|planifica|planea|organiza|organízame|organizame|recomienda|recomiéndame|recomiendame|sugiere|sugiéreme|reserva|resérvame|encuentra|encuéntrame|ayúdame|ayudame|dime|hazme|dame|prepara|prepárame|elige|escoge|get me|let me know|let's|lets|i need you|i want you|i'd like you|i would like you|can you|could you|would you|will you|i wonder|i was wondering|i need (?:a|an|some|help|ideas)\b|need (?:a|an|some|more|new)\b|i have no idea|no idea|i don't know|i'm not sure|not sure|any (?:ideas|tips|suggestions|thoughts)|thoughts|ideas)\b/iu;

/** A question put as a statement: "i've lost track of when they're doing my hip", "I forget what mum's on". */
const INDIRECT_QUESTION = /\b(?:lost track of|forget|forgot|can't remember|cant remember|can not remember|don't remember|dont remember|not sure|wondering)\s+(?:what|when|where|who|which|how|if|whether)\b/iu;

/**
 * A last clause that asks, after a comma, with no question mark: "..., what are they called again", "..., when's it
 * up", "..., is it feb or march". Not "which", "where", "who", "who's" or "when" alone, which open a relative clause there
 * ("lives in Porto, where she teaches", "Kauri, who's 9").
 */
const ASKS_AFTER_COMMA = /(?:,|\s[-\u2013\u2014])\s*(?:so\s+|and\s+|but\s+)?(?:(?:until|till|since|by)\s+when|what|how|what's|whats|when's|whens|where's|wheres|(?:when\s+)?(?:is|are|was|were|do|does|did|has|have|can|will)\s+(?:it|he|she|they|that|there|i|you|we)\b)\b[^,]*$/iu;

/**
 * A question word before an inverted auxiliary and its subject, anywhere in the sentence: only a question orders
 * words so ("the dog's meds when do i give them", "mum's flight what time does it land"); a relative clause does not
 * ("the day when I give them").
 */
const INVERTED_QUESTION =
  /(?<![\p{L}'’])(?:(?:when|where|how|who|(?:what|which)(?:\s+\p{L}+)?)\s+(?:do|does|did|is|are|am|was|were|can|could|should|will|would|has|have)|(?:what|where|when|how|who)['’]?s)\s+(?:i|we|you|he|she|they|it)(?![\p{L}'’])/iu;

/** A question word in place of the answer: "ezinne does what for work", "the party is when". */
// Not a clause that follows it ("She is who she is.", "That was what I wanted.", "the boats are what really pay the bills").
const ASKED_IN_PLACE =
  /\b(?:does|do|did|is|are|was|were)\s+(?:what|which|where|when|who)\b(?!\s+(?:i|you|he|she|we|they|it|i['\u2019]m|you['\u2019]re|we['\u2019]re|they['\u2019]re|really|actually|truly|mostly|always|usually|keeps?|makes?|pays?|gets?|matters?)\b)/iu;

/**
 * The words that frame a question inside a longer sentence, as typed or spoken: "i wanted to ask where ...", "quick
 * question - when ...", "i was wondering if ...", "not sure whether ...", "do you remember what ...". A frame makes the
 * sentence a question (it is never a fact to keep), and the question is what follows it.
 */
const ASK_FRAME_SOURCE = String.raw`(?:(?:wanted|want|meant|meaning|needed|need|going|gonna|like|love)\s+to\s+(?:ask|know|check)(?:\s+you)?|wanna\s+(?:ask|know|check)(?:\s+you)?|(?:quick|random|silly|dumb|stupid|one|another|small)\s+(?:question|q)|(?:i\s+was|i['’]m|im|i\s+am|just|was)\s+wondering|i\s+wonder|(?:can|could|would|will)\s+you\s+(?:tell|remind)\s+me|(?:tell|remind)\s+me|(?:do|did)\s+you\s+(?:know|remember)|(?:any|no)\s+idea|not\s+sure|unsure|(?:don['’]?t|do\s+not)\s+know|(?:can['’]?t|cannot|can\s+not|don['’]?t|do\s+not)\s+remember|forget|forgot|lost\s+track\s+of)`;
/** The first word of a question, after a frame. */
const QUESTION_START_SOURCE = String.raw`(?:what|what['’]s|whats|wat|wats|where|where['’]s|wheres|when|when['’]s|whens|wen|who|who['’]s|whos|whose|which|how|how['’]s|hows|is|are|was|were|am|do|does|did|can|could|should|will|would|has|have|had)`;
/** The first word of a question after "and", "so", a comma or a dash, where "which", "where", "who" and "when" open a relative clause instead. */
const CLAUSE_QUESTION_START_SOURCE = String.raw`(?:what|what['’]s|whats|wat|wats|how|how['’]s|hows|when['’]s|whens|where['’]s|wheres|(?:is|are|was|were|do|does|did|can|will|has|have)\s+(?:i|my|he|she|they|we|it|there|the|our|his|her|their)(?![\p{L}'’]))`;
const ASK_FRAME = new RegExp(String.raw`(?<![\p{L}'’])${ASK_FRAME_SOURCE}[\s,:\-–—]+(?:(?:if|whether)\s+|(?=${QUESTION_START_SOURCE}(?![\p{L}'’])))`, 'iu');
const CLAUSE_QUESTION = new RegExp(String.raw`(?:[,;:]|\s[-–—]|(?<![\p{L}'’])(?:and|so|but|ok|okay|anyway|also|oh))\s+(?=${CLAUSE_QUESTION_START_SOURCE}(?![\p{L}'’]))`, 'iu');
/**
 * What follows a question in the same breath and asks nothing: thanks, the reason for asking, the excuse for not
 * knowing ("what do I drive thanks", "... because i honestly can't remember", "... asking cause i've got a lot on").
 */
const AFTER_THE_QUESTION = /[\s,;:.!\-–—]+(?=(?:(?:because|cause|['’]cause|cos|coz|cuz)\s+(?:i|i['’]m|im|i['’]ve|ive|my|we|it['’]s|its)|thanks|thank you|thank u|thx|ty|tysm|cheers|ta|no rush|no worries|no pressure|appreciate it|much appreciated|lol|haha|xx?|asking|just asking|i honestly|honestly|i (?:can['’]?t|cannot|don['’]?t) remember|i cant remember|i dont remember|i (?:forget|forgot)|i['’]ve forgotten|if you (?:know|remember|can)|if that makes sense|my (?:head|brain|memory)|sorry)(?![\p{L}'’]))/iu;

/**
 * The question inside a sentence that says more than the question: after a frame ("hey so i wanted to ask where does
 * my sister live again because i honestly can't remember" -> "where does my sister live again"), after "and" or a
 * comma ("ok and what's the wifi password"), or before thanks and reasons ("what do I drive thanks"). Undefined when
 * the sentence is the question and nothing else, or holds none.
 */
export function askedClause(sentence: string): string | undefined {
  const text = core(sentence);
  // A frame first ("can you tell me where ...", "not sure if ..."); a question or a request that is the need itself
  // ("suggest a gift") from its start; otherwise a question after "and" or a comma.
  const opens = (QUESTION_OPENING.test(text) && !SUBJECT_FIRST.test(text)) || REQUEST.test(text);
  const framed = ASK_FRAME.exec(text) ?? (opens ? null : CLAUSE_QUESTION.exec(text));
  if (framed === null && !opens) return undefined;
  const start = framed === null ? 0 : framed.index + framed[0].length;
  // A question mark ends the question where the writer put it: what follows it in the sentence is part of it.
  const rest = text.slice(start);
  const marked = /[?？]\s*$/u.test(text);
  // The question runs to what follows it in the same breath, at least two words in.
  const firstWords = /^\s*\S+\s+\S+/u.exec(rest)?.[0].length ?? rest.length;
  const tail = marked ? null : AFTER_THE_QUESTION.exec(rest.slice(firstWords));
  let end = tail === null ? rest.length : firstWords + tail.index;
  // Or to a comma before a clause of its own: the reason for asking ("what year is it, bloke at the garage wants to
  // know", "what date is the concert again, need to put it in my calendar"), whose pronouns are not the question's.
  if (!marked) {
    for (const comma of rest.slice(firstWords, end).matchAll(/\s*[,;]\s+|\s+[-–—]\s+/gu)) {
      const after = rest.slice(firstWords + comma.index + comma[0].length, end);
      const kind = kindOf(after);
      if (kind === 'statement' || kind === 'request' || smallTalk(after)) {
        end = firstWords + comma.index;
        break;
      }
    }
  }
  const clause = rest.slice(0, end).replace(/[\s,;:\-–—]+$/u, '').trim();
  // "Can you remind me where Marta lives?" is read whole: its frame's words are fillers (fillers.ts).
  if (end === rest.length && framed !== null && framed.index === 0) return undefined;
  const bare = (t: string): string => t.replace(/[\s?？!.,;:\-–—]+$/u, '');
  if (words(clause).length < 2 || bare(clause) === bare(text)) return undefined;
  return clause;
}

/** An exclamation that opens like a question: "What a day!", "what a long week.", "How lovely!" (no question mark). */
const EXCLAMATION = /^(?:what\s+an?\s+[\p{L}'’-]+(?:\s+[\p{L}'’-]+)?|how\s+(?:lovely|nice|sweet|cool|awful|annoying|funny|kind|exciting|sad|weird|rude))\s*[!.]*$/iu;

/** Passing moods and events: "So tired today.", "Work was insane today.", "Chiara just called, so excited!" */
const NOW = /\b(?:today|tonight|this (?:morning|afternoon|evening|week)|right now|yesterday|again|just|finally|lately|at work)\b/iu;
/** The weather right now is small talk too ("some day out there today eh, sun splittin the rocks"). */
const WEATHER = /\b(?:sun|sunny|rain|raining|rainy|wind|windy|hot|cold|freezing|snow|snowing|fog|foggy|storm|stormy|humid|weather)\b/iu;
const MOOD = /\b(?:tired|exhausted|sleepy|knackered|busy|crazy|insane|rough|long|hell|awful|terrible|bad|badly|great|good|fine|nice|fun|stressed|hungry|bored|killing|excited|happy|sad|slow|quiet|hectic|ugh)\b/iu;

/** Words that make a sentence a clause with a subject: a pronoun first, or a verb form after the first word. */
const SUBJECT_FIRST = /^(?:i|i'm|i’m|im|i've|i’ve|i'd|i’d|i'll|i’ll|my|we|we're|we've|our|he|he's|she|she's|they|they're|their|his|her|it|it's|its|mine|ich|mein|meine|wir|unser|unsere|er|sie|es|yo|mi|mis|nosotros|nuestro|nuestra|je|j'ai|mon|ma|mes|nous|notre|eu|meu|minha|nós|io|mio|mia|noi)\b/iu;
/** Verb forms by name; VERB adds any -ed or -s word. */
const VERB_FORMS = `is|are|am|was|were|be|been|being|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|hasn't|haven't|hadn't|wouldn't|couldn't|shouldn't|live|work|like|love|hate|prefer|want|need|play|run|eat|drink|use|go|study|teach|visit|own|speak|know|get|take|come|keep|stay|meet|buy|'s|’s|'m|'re|have|has|had|do|does|did|can|can't|cannot|could|will|won't|would|should|shall|may|might|must|'ll|'d|'ve|went|got|came|made|took|said|told|gave|left|met|lost|found|broke|fell|grew|became|born|bought|sold|ran|saw|began|kept|knew|thought|felt|built|wrote|drove|flew|spent|taught|brought|caught|sent|paid|won|held|led|read|sat|stood|wore|swam|sang|chose|ate|drank|slept|woke|spoke|forgot|hurt|quit|put|let|lives|works|likes|loves|hates|prefers|wants|needs|plays|runs|eats|drinks|uses|has|goes|studies|teaches|turns|starts|owns|speaks|knows`;
const VERB = new RegExp(`^(?:${VERB_FORMS}|[a-z]+ed|[a-z]+s)$`, 'iu');
/** A verb form that, right after a capitalised word, makes that word the subject: "Vale has been vegan" is Vale. */
const VERB_AFTER_NAME = new RegExp(`^(?:${VERB_FORMS})$`, 'iu');

const WORDS = /[\p{L}\p{N}'’-]+/gu;

function words(text: string): string[] {
  return text.match(WORDS) ?? [];
}

/**
 * Function words of the other Latin-script languages the text analysis knows: a sentence with one of them is not
 * read by the English rules (a subject and a verb), only kept unless it is a question, a request or small talk.
 */
const OTHER_LANGUAGE = new Set(
  (
    'der die das dem den und ist bin sind nicht ein eine einen ich mein meine wir hat habe ' +
    'el la los las y es soy estoy tengo tiene de del que una mi mis muy llamo llama ' +
    'le les et je suis est une un mon ma mes nous avec pas ' +
    'um uma eu sou não meu minha tem com ' +
    'il lo gli è sono ho mio mia con non ' +
    'het een ik ben niet mijn'
  ).split(' '),
);

/** A sentence with its lead-in, quotes and surrounding punctuation taken off. */
/** Whether the English rules (a subject and a verb, passing moods) apply: not when the sentence shows another language. */
function readAsEnglish(text: string, tokens: readonly string[]): boolean {
  if (tokens.some((w) => OTHER_LANGUAGE.has(w)) || /[äöüßñ¿¡ãõ]/iu.test(text)) return false;
  const language = detectLanguage(text);
  return language === 'en' || language === 'und';
}

function core(sentence: string): string {
  let text = sentence.trim().replace(LEAD_IN, '').replace(/^["'“‘(\s]+|["'”’)\s]+$/gu, '').trim();
  // "Thanks, that worked." and "lol that's funny" are read without their opening interjections.
  // After one of them, a word that is small talk beside small talk goes too ("kadrinchey la", "thank u po").
  let stripped = false;
  const opens = (word: string): boolean => SMALL_TALK_WORDS.has(word) || (stripped && SMALL_TALK_BESIDE.has(word));
  for (let opening = /^([\p{L}']+)[\s,!.]+/u.exec(text); opening && opens((opening[1] ?? '').toLowerCase()); opening = /^([\p{L}']+)[\s,!.]+/u.exec(text)) {
    // A name that is also a greeting ("Vale" is Spanish for OK) is the subject when a verb follows it unpunctuated.
    const next = /^[\p{L}'’]+/u.exec(text.slice(opening[0].length))?.[0] ?? '';
    if (/^\p{Lu}\p{Ll}/u.test(opening[1] ?? '') && /^[\p{L}']+\s+$/u.test(opening[0]) && VERB_AFTER_NAME.test(next)) break;
    // An emoji between them too ("kadrinchey la 🙏 that helps a lot").
    text = text.slice(opening[0].length).replace(/^(?:\p{Extended_Pictographic}|\u200d|\ufe0f|\s)+/u, '');
    stripped = true;
  }
  return text;
}

/** Only greetings, thanks and interjections, or a sentence about the conversation. */
function smallTalk(piece: string): boolean {
  const text = core(piece);
  const tokens = words(text).map((w) => w.toLowerCase());
  // About the chat as typed too: "you are very kind" is not "are very kind" once "you" is read as an opening.
  return (
    tokens.every((w) => SMALL_TALK_WORDS.has(w) || SMALL_TALK_BESIDE.has(w)) ||
    ABOUT_THE_CHAT.test(text) ||
    ABOUT_THE_CHAT.test(piece.trim()) ||
    THANKS_TO.test(piece.trim())
  );
}

function kindOf(sentence: string): MessageSentence['kind'] {
  const text = core(sentence);
  const tokens = words(text).map((w) => w.toLowerCase());
  // Emoji, "!!!", or only greetings, thanks and interjections.
  if (smallTalk(text)) return 'small-talk';
  // "bless you baby, that's all i needed": every comma-separated piece is small talk.
  // Split as typed: reading the openings off first would leave "do all" of "medaase, you do all".
  if (sentence.includes(',') && sentence.split(',').every((piece) => piece.trim() === '' || smallTalk(piece))) return 'small-talk';
  // A word or two of thanks in a language the lists lack, beside what is plainly about the chat: "jerejef, you are
  // helping me a lot", "ok sağ ol, that helps a lot".
  if (/^[^,]+,[^,]+$/u.test(sentence)) {
    const [first = '', rest = ''] = sentence.split(',');
    if (words(core(first)).length <= 2 && (ABOUT_THE_CHAT.test(core(rest)) || ABOUT_THE_CHAT.test(rest.trim()))) return 'small-talk';
  }
  // "What a day!", "what a week": an exclamation, not a question.
  if (EXCLAMATION.test(text)) return 'small-talk';
  // "cant sleep after nights lol, just saying hi": the message says itself it is chat.
  if (JUST_SAYING_HI.test(text)) return 'small-talk';
  // "how old is aysel now, 10? 11?": figures alone are guesses offered for the answer, not a question of their own.
  if (!/\p{L}/u.test(text)) return 'small-talk';
  if (/[?？¿]/u.test(sentence)) return 'question';
  // "vet phone number pls": a terse request, with its "please" at the end.
  if (REQUEST.test(text) || /(?<![\p{L}])(?:pls|plz|please)[\s.!]*$/iu.test(text)) return 'request';
  if (QUESTION_OPENING.test(text) && !SUBJECT_FIRST.test(text) && !SUBORDINATE_FIRST.test(text)) return 'question';
  if (QUESTION_TAIL.test(text) || INDIRECT_QUESTION.test(text) || ASKED_IN_PLACE.test(text) || ASK_FRAME.test(text) || INVERTED_QUESTION.test(text)) return 'question';
  const content = tokens.filter((w) => !SMALL_TALK_WORDS.has(w));
  if (!readAsEnglish(text, tokens)) {
    // Chinese and Japanese ask with a particle as often as with a mark, and write a whole sentence as one "word".
    if (/[吗嗎呢][。.!！]?$|か[。.]?$/u.test(text)) return 'question';
    const unspaced = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u.test(text);
    return (unspaced ? [...content.join('')].length >= 4 : content.length >= 2) ? 'statement' : 'small-talk';
  }
  // A verb the lists miss ("Jan lebt in Hamburg.") still leaves a name after the first word, which a fragment
  // of small talk ("Long day at the hospital.") has not.
  const named = tokens.length >= 4 && words(text).slice(1).some((w) => /^\p{Lu}/u.test(w));
  const clause = SUBJECT_FIRST.test(text) || tokens.slice(1).some((w) => VERB.test(w)) || named;
  if (!clause) return 'small-talk';
  if (tokens.length <= 10 && NOW.test(text) && (MOOD.test(text) || WEATHER.test(text))) return 'small-talk';
  return 'statement';
}

/**
 * The message as sentences, each with its kind. A sentence that says "remember (that) ..." is the statement after
 * it; a sentence whose clauses end in a question ("I'm vegan, what can I cook?") is judged by its clauses.
 */
export function readSentences(message: string): MessageSentence[] {
  return [...sentencesOf(message)];
}

/** Whether a message asks or states anything: a sentence that is not small talk (read until the first one). */
export function asksOrStates(message: string): boolean {
  return said(message, 1).length > 0;
}

/** The message's sentences that ask or state something, read until `most` of them are found. */
export function said(message: string, most: number): MessageSentence[] {
  const found: MessageSentence[] = [];
  for (const sentence of sentencesOf(message)) {
    if (sentence.kind === 'small-talk') continue;
    found.push(sentence);
    if (found.length >= most) break;
  }
  return found;
}

function* sentencesOf(message: string): Generator<MessageSentence> {
  let previous: MessageSentence['kind'] | undefined;
  for (const raw of message.split(SENTENCE_END)) {
    const sentence = raw.trim();
    if (sentence.length === 0) continue;
    const remembered = sentence.replace(LEAD_IN, '').replace(REMEMBER, '');
    const text = remembered.length < sentence.replace(LEAD_IN, '').length ? capitalised(remembered) : sentence;
    // "I'm vegetarian, so what should I cook?": the clause before a trailing question is read on its own.
    // Typed without its mark too ("you know the heart pills, what are they called again").
    const asks = /[?？]\s*$/u.test(text) || ASKS_AFTER_COMMA.test(text);
    const clauses = asks ? text.split(/(?:(?<=[,;:])\s+|\s+[-\u2013\u2014]\s+)(?=(?:so\s+|and\s+|but\s+)?(?:(?:until|till|since)\s+when|what|where|when|who|why|how|which|can|could|should|would|is|are|do|does|any)\b)/iu) : [text];
    for (const [i, clause] of clauses.entries()) {
      const trimmed = clause.trim();
      if (trimmed.length === 0) continue;
      const kind = kindOf(trimmed);
      // A few words naming what the question is about ("the heart pills, what are they called", "my medical for the
      // rigs, when's it up"), with no verb but a plural's -s or a possessive's 's, are its topic, not a statement.
      const topicWords = words(core(trimmed));
      const subject = SUBJECT_FIRST.test(core(trimmed)) && !/^(?:my|our|his|her|their|its)\b/iu.test(core(trimmed));
      // After a determiner, a word that is a noun too is read as one ("that monthly clinic visit, what is it for").
      const determined = /^(?:the|that|this|those|these)\s/iu.test(core(trimmed));
      const verb = topicWords.some((w) => (VERB_AFTER_NAME.test(w) && !(determined && NOUN_TOO.test(w))) || /(?:ed|['’](?:m|re|ve|ll|d))$/iu.test(w));
      // So is a noun with its own clause after it ("the money I borrowed for the house, how many more months ...").
      const described = RELATIVE_TOPIC.test(core(trimmed));
      const topic = i < clauses.length - 1 && kind === 'statement' && ((topicWords.length <= 6 && !subject && !verb) || described);
      const reason =
        kind === 'statement' &&
        previous === 'question' &&
        (REASON_AFTER_QUESTION.test(core(trimmed)) || ASKER_AFTER_QUESTION.test(trimmed) || (THIS_MOMENT.test(trimmed) && topicWords.length <= 10));
      const read = topic || reason ? 'small-talk' : kind;
      previous = read;
      yield { text: trimmed, kind: read };
    }
  }
}

/**
 * Whether a message is one clean question, as the suite's fact sets ask them ("What does Aiko do for a living?"): one
 * sentence that opens with a capital (or in a script without case) and ends in a question mark. What people type
 * into a chat ("whats mick do for a crust", "Hi! Can I eat soba?", "dentist when") is not.
 */
export function isCleanQuestion(message: string): boolean {
  const text = message.trim();
  if (!/[?？؟]$/u.test(text)) return false;
  if (text.split(SENTENCE_END).filter((sentence) => sentence.trim().length > 0).length !== 1) return false;
  // The first letter, after an opening mark ("¿Dónde ...?"): a capital, or a letter of a script without case.
  const first = /^[\p{P}\s]*(\p{L})/u.exec(text)?.[1];
  return first !== undefined && (/\p{Lu}/u.test(first) || first.toLowerCase() === first.toUpperCase());
}

function capitalised(text: string): string {
  const trimmed = text.trim();
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
}

/**
 * What of a message to keep as a memory: its statements, joined as one text in their order (so that "It" in a second
 * statement still follows the first), or undefined when it holds none.
 */
export function statementsOf(message: string): string | undefined {
  const kept = readSentences(message)
    .filter((s) => s.kind === 'statement')
    .map((s) => s.text.replace(/[,;:]\s*$/u, '.'));
  return kept.length === 0 ? undefined : kept.join(' ');
}
