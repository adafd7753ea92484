import { describe, expect, it } from 'vitest';
import { analyzeText, detectLanguage, foldLatin, isStopWordIn, stemIn, termsOf, wordIndexOf, words } from '../../../src/core/text/analyze.js';
import { koreanStem } from '../../../src/core/text/korean.js';

const terms = (text: string): string[] => termsOf(analyzeText(text));

describe('words (the English readers)', () => {
  it('lower-cases, splits on anything but letters and digits, and drops diacritics like the index always did', () => {
    expect(words("Café au lait, Zoë's 2nd!")).toEqual(['cafe', 'au', 'lait', 'zoe', 's', '2nd']);
  });
});

describe('detectLanguage', () => {
  it('reads a short text without stop words by its spelling when English knows none of its words', () => {
    expect(detectLanguage('Anna spielt jeden Sonntag Tennis.')).toBe('de');
    expect(detectLanguage('Annas Bruder heißt Jonas.')).toBe('de');
    expect(detectLanguage('Was macht Anna beruflich?')).toBe('de');
    // English knows a word, one word shows one shape only, or nothing is lowercase: English, the default.
    expect(detectLanguage('Tom supports Arsenal.')).toBe('en');
    expect(detectLanguage('indeed')).toBe('en');
    expect(detectLanguage('moreShare Prompt')).toBe('en');
    expect(detectLanguage('Kenji Tanaka, Fukuoka.')).toBe('en');
  });

  it('reads English as chat types it as English: "u" and "wat" are no Spanish or Dutch by themselves', () => {
    expect(detectLanguage('wat days is netball practice')).toBe('en');
    expect(detectLanguage('lol ok thank u po')).toBe('en');
    expect(detectLanguage('Wat is de naam van de hond?')).toBe('nl');
    expect(detectLanguage('Tengo que ir u olvidarlo')).toBe('es');
  });

  it.each([
    ['小明对花生过敏。', 'zh'],
    ['田中さんはどこで働いていますか？', 'ja'],
    ['민수는 어디에서 일하나요?', 'ko'],
    ['Какая машина у Анны?', 'ru'],
    ['Де працює Олена? Вона їздить до Києва.', 'uk'],
    ['¿Qué no puede comer Ana?', 'es'],
    ['Wo arbeitet Anna?', 'de'],
    ['Anna fährt ein blaues Auto.', 'de'],
    ['Où travaille Marie ?', 'fr'],
    ['Onde a Ana trabalha?', 'pt'],
    ['สมชายแพ้ถั่วลิสง', 'th'],
    ['مريم تعمل في مستشفى', 'ar'],
    ['דנה גרה בחיפה', 'he'],
  ])('%s is %s', (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });

  it('keeps English for English text, names and loan words notwithstanding', () => {
    for (const text of ['Diego is a die-hard Pumas UNAM fan.', 'Jonas plays cello.', 'What is Aiko allergic to?', 'Maria moved to São Paulo in 2021.']) {
      expect(detectLanguage(text)).toBe('en');
    }
  });

  it('reads a Chinese sentence with a product name in it as Chinese, and digits or emoji alone as undetermined', () => {
    expect(detectLanguage('小明在Google的北京办公室工作')).toBe('zh');
    expect(detectLanguage('12345')).toBe('und');
    expect(detectLanguage('🎉🎉')).toBe('und');
  });
});

describe('termsOf', () => {
  it('splits Chinese and Japanese into dictionary words and drops their particles and question words', () => {
    expect(terms('小明对什么过敏？')).toEqual(['小明', '过敏']);
    expect(terms('小明对花生过敏。')).toEqual(['小明', '花生', '过敏']);
    expect(terms('田中さんはどこで働いていますか？')).toEqual(['田中', '働']);
  });

  it('removes Korean particles and endings, so a question meets the statement', () => {
    expect(terms('민수는 어디에서 일하나요?')).toEqual(['민수', '일']);
    expect(terms('민수는 서울의 병원에서 간호사로 일한다.')).toEqual(['민수', '서울', '병원', '간호사', '일']);
  });

  it('stems each language by its own rules: a Russian name in another case is the same term', () => {
    expect(terms('Какая машина у Анны?')).toEqual(['машин', 'ан']);
    expect(terms('Анна водит синий автомобиль.')).toContain('ан');
    expect(terms('Wo arbeiten Annas Kollegen?')).toEqual(['arbeit', 'annas', 'kolleg']);
  });

  it('meets a word typed without its accent', () => {
    expect(stemIn('está', 'es')).toBe(stemIn('esta', 'es'));
    expect(terms('alérgica')).toEqual(terms('alergica'));
  });

  it('keeps English exactly as before: Porter stems, the English stop words', () => {
    expect(terms('When did Caroline go to the LGBTQ support group, the group?')).toEqual(['carolin', 'go', 'lgbtq', 'support', 'group']);
    expect(terms('born in 1990')).toEqual(['born', '1990']);
  });

  it('reads words of another script by their own language', () => {
    expect(terms('Alice 在 Google 工作')).toEqual(['alic', 'googl', '工作']);
    expect(isStopWordIn('的', 'en')).toBe(true);
  });

  it('caps the number of terms', () => {
    expect(termsOf(analyzeText(Array.from({ length: 50 }, (_, i) => `word${i}`).join(' ')), 32)).toHaveLength(32);
  });

  it('keeps scripts whole that decomposition would break', () => {
    // NFD would turn a Hangul syllable into jamo and ガ into カ + a mark.
    expect(foldLatin('한국어')).toBe('한국어');
    expect(terms('ガッコウ')).toEqual(['ガッコウ']);
    expect(wordIndexOf('नमस्ते दुनिया').terms).toEqual(['नमस्ते', 'दुनिया']);
  });
});

describe('koreanStem', () => {
  it('cuts the longest particle or ending and never the last syllable', () => {
    expect(koreanStem('병원에서')).toBe('병원');
    expect(koreanStem('일합니다')).toBe('일');
    expect(koreanStem('가')).toBe('가');
    expect(koreanStem('은')).toBe('은');
  });
});
