/**
 * A light Korean stemmer. Korean writes a word (eojeol) as a stem with its particles and endings attached:
 * "민수는" (Minsu + topic), "병원에서" (hospital + at), "일하나요" (work + polite question). A search engine must match
 * "병원" in "병원에서": removing the longest known particle or verb ending from the end of each word does that for
 * the common cases without a dictionary (as light stemmers for Lucene do), and is applied to memories and queries
 * alike. At least one syllable is always kept, and a one-syllable word is never cut.
 */
const ENDINGS = `
  에서부터 으로부터 이었습니다 였습니다 했습니다 합니다만 하였다 하셨다 하세요 하나요 했어요 했었다 하는데 하지만 하면서
  합니까 합니다 했다 한다 해요 하고 하는 하며 하면 하여 해서 하던 하다 할 한 함 해
  입니다 이에요 이었다 였다 예요 이다
  습니다 었습니다 았습니다 었어요 았어요 어요 아요 는다 었다 았다 나요 니까 세요 지만 면서 는데 고 며 던
  에서는 에서도 에게서 에서 에게 으로는 으로도 한테서 께서는 이라고 라고 이랑 에게 한테 께서 부터 까지 보다 처럼 마다 밖에 조차 으로
  에는 에도 와는 과는 은 는 이 가 을 를 의 에 로 와 과 도 만 랑 요 다
`
  .split(/\s+/)
  .filter((e) => e.length > 0)
  .sort((a, b) => b.length - a.length);

export function koreanStem(word: string): string {
  const chars = [...word];
  if (chars.length <= 1) return word;
  for (const ending of ENDINGS) {
    if (word.endsWith(ending) && chars.length - [...ending].length >= 1) return word.slice(0, word.length - ending.length);
  }
  return word;
}
