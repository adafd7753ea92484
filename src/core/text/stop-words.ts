import type { Language } from './languages.js';

/**
 * Stop words per language: the function words (articles, pronouns, prepositions, auxiliaries, question words) that
 * occur in almost every text of the language. They are dropped from queries and from the word index: with OR-ed
 * terms they would match almost every memory and drown the words that carry the question. Kept short on purpose:
 * a word that can carry the answer (a number, "work", "name") is never one, unlike in the long lists of search
 * engines. The same lists vote in language detection (languages.ts).
 *
 * Chinese, Japanese and Thai list the words ICU's segmenter produces (particles, copulas, question words, polite
 * suffixes such as さん); Korean lists word stems after its particles are removed (korean.ts).
 */
const LISTS: Partial<Record<Language, string>> = {
  // The list recall was tuned with (English figures depend on it), and the contractions chat types without their
  // apostrophe ("whats", "dont"), which no memory is written with.
  en: `a about above after again against all am an and any are as at be because been before being below between both but by
  can could did do does doing down during each few for from further had has have having he her here hers herself him
  himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other
  our ours ourselves out over own same she should so some such than that the their theirs them themselves then there
  these they this those through to too under until up very was we were what when where which while who whom why will
  with would you your yours yourself yourselves s t ll d m re ve don didn doesn isn wasn weren won wouldn
  whats wheres whos hows whens whys im ive dont cant doesnt didnt isnt arent wasnt`,
  de: `der die das den dem des ein eine einen einem einer eines und oder aber ist sind war waren bin bist sei hat haben
  hatte hatten habe wird werden wurde wurden kann können konnte muss soll will möchte mit von vom zu zum zur im in ins
  an am auf aus bei nach für über unter um durch gegen ohne bis als wie so auch noch schon nur sehr nicht kein keine
  keinen er sie es ich du wir ihr man sich ihm ihn ihnen mir mich dir dich uns euch sein seine seinen seinem seiner
  seines ihre ihren ihrem ihrer ihres mein meine meinen dein deine unser dass ob wenn was wo wer wen wem wessen wie
  wann warum welche welcher welches welchen welchem woher wohin womit worüber denn doch ja da dort hier gern gerne`,
  es: `el la los las lo un una unos unas y e o u ni pero es son era eran fue está están estaba ser estar ha han he
  hay tiene tienen tenía de del al a en con sin por para sobre entre desde hasta hacia que qué se su sus le les me te
  nos mi mis tu tus él ella ellos ellas yo tú usted nosotros no sí muy más también ya como cómo cuál cuáles cuándo
  dónde adónde quién quiénes cuánto cuánta cuántos cuántas porque este esta estos estas ese esa eso esto`,
  fr: `le la les l un une des du de d au aux et ou mais ni est sont était étaient été être a ont avait avaient ai as
  avez avons dans en avec sans pour par sur sous chez entre vers depuis que qu qui quoi quel quelle quels quelles où
  quand comment combien pourquoi ce cet cette ces se s son sa ses leur leurs il elle ils elles je tu nous vous on lui
  y me te ne pas plus très aussi déjà c est-ce n j m t`,
  pt: `o a os as um uma uns umas e ou mas nem é são era eram foi está estão estava ser estar tem têm tinha há de do
  da dos das ao aos à às em no na nos nas num numa com sem por pelo pela para sobre entre desde até que se seu sua
  seus suas lhe ele ela eles elas eu tu você vocês nós não sim muito mais também já como qual quais quando onde
  quem quanto quanta quantos quantas porque este esta isto esse essa isso aquele aquela`,
  it: `il lo la i gli le un uno una e ed o ma né è sono era erano fu stato essere ha hanno ho aveva di del dello
  della dei degli delle a al allo alla ai agli alle da dal dalla in nel nello nella nei con su sul sulla per tra fra
  che chi cui si suo sua suoi sue lui lei loro io tu noi voi non sì molto più anche già come quale quali quando dove
  quanto quanta quanti quante perché questo questa quello quella`,
  nl: `de het een en of maar is zijn was waren ben bent heeft hebben had hadden wordt worden werd kan kunnen moet wil
  van in op aan met voor naar bij uit over onder door tegen zonder tot als dat die dit deze er hij zij ze het ik jij
  je wij we jullie hem haar hun mijn zijn niet geen ook al nog wel zeer heel wat waar wie wanneer hoe waarom welke
  welk hoeveel`,
  ru: `и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее её мне было вот от
  меня еще ещё нет о об из ему когда даже ли если уже или ни быть был была были будет него до вас там потом себя
  ей может они тут где есть для мы тебя их чем сам без чего тоже себе под кто этот того потому этого какой какая
  какое какие каком какую какой-то это эта эти этой этом нее ним них ней им при про через куда откуда почему зачем
  сколько чей чья чьё чьи который которая которое которые`,
  uk: `і й та в у на з із зі до від за по про для без під над при що хто де коли як чому скільки який яка яке які
  чий чия це цей ця ці той та те ті він вона воно вони я ти ми ви його її їх їй йому мені тебе нас вас не ні так
  так же вже ще є був була було були буде бути чи а але або`,
  zh: `的 了 着 过 是 在 和 与 及 或 也 都 就 还 又 很 吗 呢 吧 啊 呀 么 什么 怎么 怎样 怎么样 哪 哪里 哪儿 哪个 哪些 哪位 谁 几
  多少 为什么 何 何时 什么时候 这 那 这个 那个 这些 那些 他 她 它 他们 她们 我 你 您 我们 你们 其 之 对 把 被 给 跟 向 从 于
  为 以 有 没有 没 不 会 能 可以 要 想 吗 啦 个 位 一个 现在 目前`,
  ja: `の に は を が で と も へ や か な ね よ から まで より だ です ます ました でした でしょう ている てい いる いま
  て い た し し て する した される ある あり あります いる いた おり おります ない ません 何 なに なん 誰 だれ どこ
  どちら いつ どう どの どれ どんな いくつ いくら なぜ どうして さん ちゃん くん 様 氏 この その あの これ それ あれ 彼
  彼女 ですか ますか か 今 現在 という として について こと もの`,
  ko: `은 는 이 가 을 를 의 에 에서 도 만 와 과 그 그녀 그는 그의 저 이것 그것 무엇 뭐 뭘 무슨 어디 어느 어떤
  어떻게 언제 누구 누가 왜 몇 얼마 얼마나 있 있다 없 이다 입니다 하 하다 되 되다 지금 현재 요 씨 님`,
};

const SETS = new Map<Language, ReadonlySet<string>>(
  (Object.entries(LISTS) as [Language, string][]).map(([language, list]) => [language, new Set(list.split(/\s+/).filter((w) => w.length > 0))]),
);

const NONE: ReadonlySet<string> = new Set();

/** The stop words of a language (an empty set for one without a list). */
export function stopWordsOf(language: Language): ReadonlySet<string> {
  return SETS.get(language) ?? NONE;
}

/** The languages that have a stop-word list, for detection. */
export function languagesWithStopWords(): Language[] {
  return [...SETS.keys()];
}
