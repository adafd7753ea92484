import { stemmer as arabic } from '@orama/stemmers/arabic';
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as greek } from '@orama/stemmers/greek';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as russian } from '@orama/stemmers/russian';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { stemmer as ukrainian } from '@orama/stemmers/ukrainian';
import { koreanStem } from './korean.js';
import { porterStem } from './porter.js';
import type { Script } from './scripts.js';

/**
 * The languages the word side knows: ISO 639-1 codes, and 'und' (undetermined) for a text in none of them, which is
 * still split into words by its script, only without stemming or stop words.
 */
export const LANGUAGES = ['en', 'de', 'es', 'fr', 'pt', 'it', 'nl', 'ru', 'uk', 'el', 'zh', 'ja', 'ko', 'th', 'ar', 'he', 'hi', 'und'] as const;
export type Language = (typeof LANGUAGES)[number];

export function isLanguage(value: string): value is Language {
  return (LANGUAGES as readonly string[]).includes(value);
}

interface LanguageInfo {
  script: Script;
  /**
   * Word to stem. English keeps the Porter stemmer that SQLite's FTS5 applied before the word side knew other
   * languages (recall was tuned with it); the others are the Snowball stemmers (Orama's port, Apache-2.0).
   */
  stem?: (word: string) => string;
  /** Letters only this language (of those written in its script) uses often: a vote each in detection. */
  cues?: RegExp;
}

const INFO: Record<Language, LanguageInfo> = {
  en: { script: 'latin', stem: porterStem },
  de: { script: 'latin', stem: german, cues: /[äöüß]/u },
  es: { script: 'latin', stem: spanish, cues: /[ñ¿¡]/u },
  fr: { script: 'latin', stem: french, cues: /[èêëîïûùœ]/u },
  pt: { script: 'latin', stem: portuguese, cues: /[ãõ]|ção|ções/u },
  it: { script: 'latin', stem: italian, cues: /[òì]/u },
  nl: { script: 'latin', stem: dutch, cues: /ij/u },
  ru: { script: 'cyrillic', stem: russian, cues: /[ыэъё]/u },
  uk: { script: 'cyrillic', stem: ukrainian, cues: /[іїєґ]/u },
  el: { script: 'greek', stem: (w) => greek(w.toUpperCase()).toLowerCase() },
  zh: { script: 'han' },
  ja: { script: 'kana' },
  ko: { script: 'hangul', stem: koreanStem },
  th: { script: 'thai' },
  ar: { script: 'arabic', stem: arabic },
  he: { script: 'hebrew' },
  hi: { script: 'devanagari' },
  und: { script: 'other' },
};

export function languageInfo(language: Language): LanguageInfo {
  return INFO[language];
}

/** The language a word of a script belongs to when the text's own language is written in another script. */
const SCRIPT_DEFAULT: Record<Script, Language> = {
  latin: 'en',
  cyrillic: 'ru',
  greek: 'el',
  han: 'zh',
  kana: 'ja',
  hangul: 'ko',
  thai: 'th',
  arabic: 'ar',
  hebrew: 'he',
  devanagari: 'hi',
  other: 'und',
};

export function defaultLanguageOf(script: Script): Language {
  return SCRIPT_DEFAULT[script];
}

/** The languages detection chooses between for a script (the first is the default when nothing votes). */
export function languagesOf(script: Script): Language[] {
  const own = LANGUAGES.filter((l) => INFO[l].script === script);
  const first = SCRIPT_DEFAULT[script];
  return [first, ...own.filter((l) => l !== first)];
}
