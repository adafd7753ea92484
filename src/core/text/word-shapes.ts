import { relatedStems } from '../ranking/lexicon/related.js';
import { porterStem } from './porter.js';
import type { Language } from './languages.js';

/**
 * Spellings each Latin-script language uses and English words rarely have: letters, letter groups and word endings
 * (orthography, not vocabulary). Read only on words English does not know, so an English word that happens to end
 * in "-en" ("garden") never votes.
 */
const SHAPES: Partial<Record<Language, RegExp>> = {
  de: /ß|[äöü]|sch|tz|pf|ie|ei|^(?:ge|be|ver|zer|ent)|(?:ung|heit|keit|lich|chen|en|lt|st|rt|nt|ht)$/u,
  es: /ñ|[áéíóú]|(?:ción|mente|ado|ada|ido|ida|ar|er|ir|os|as|amos)$/u,
  fr: /[èêëîïûùœçé]|qu|(?:eux|aux|oir|ait|ent|ais|ée|ées|ons|ez)$/u,
  pt: /[ãõçâêô]|lh|nh|(?:ção|ções|mente|ado|ada|inha|inho|ar|er|ir|os|as)$/u,
  it: /[òìùà]|gli|cch|zz|(?:zione|mente|ato|ata|are|ere|ire)$/u,
  nl: /ij|aa|uu|oo|oe|ee/u,
};

/** A word English knows: one of its stop words, or a word WordNet relates to others (ranking/lexicon). */
function englishKnows(word: string, englishStops: ReadonlySet<string>): boolean {
  return englishStops.has(word) || relatedStems(porterStem(word)).length > 0;
}

/**
 * The language of a short Latin-script text that shows no stop word of any language ("Anna spielt jeden Sonntag
 * Tennis."), read from its lowercase words (capitalised ones are names, or German nouns) when English knows none of
 * them: the language whose spellings they show most, alone at the top, in two words at least (or in one with letters
 * English does not use); undefined otherwise (the caller keeps its default, English).
 */
export function languageByShapes(text: string, candidates: readonly Language[], englishStops: ReadonlySet<string>): Language | undefined {
  const lowercase = (text.match(/[\p{L}'’]+/gu) ?? []).filter((w) => /^\p{Ll}/u.test(w)).map((w) => w.replace(/['’].*$/u, ''));
  if (lowercase.length === 0 || lowercase.some((w) => englishKnows(w, englishStops))) return undefined;
  let best: Language | undefined;
  let bestVotes = 0;
  let tie = false;
  for (const language of candidates) {
    const shape = SHAPES[language];
    if (shape === undefined) continue;
    const votes = lowercase.filter((w) => shape.test(w)).length;
    if (votes > bestVotes) [best, bestVotes, tie] = [language, votes, false];
    else if (votes === bestVotes && votes > 0) tie = true;
  }
  // One word of one shape is too little ("indeed" has Dutch's "ee"), unless it has letters English does not use.
  // eslint-disable-next-line no-control-regex
  const enough = bestVotes >= 2 || /[^\x00-\x7f]/u.test(lowercase.join(''));
  return tie || !enough ? undefined : best;
}
