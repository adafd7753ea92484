import { readSentences } from '../text/statements.js';
import type { ScoredCandidate } from './types.js';

/** Parts of one message recalled at most: each costs a search and a ranking (all are embedded in one batch). */
export const MAX_QUERY_PARTS = 4;

/**
 * What a chat message asks of the memory, part by part: the message itself, then its sentences (and a clause before
 * a trailing question) with greetings and small talk set aside (text/statements.ts readSentences): questions and
 * requests first, then statements, which may carry a need too ("I'm having dinner with my sister tonight."), up to
 * MAX_QUERY_PARTS in all. The whole message stays a part because a part may lean on another ("I'm anxious about
 * getting around Tokyo. Any tips?": the question alone names nothing).
 *
 * A message that is one part and nothing else (a clean question) is recalled as it is, once. A message of nothing
 * but small talk is recalled as it is too (its scores are low by themselves).
 */
export function queryParts(message: string, max = MAX_QUERY_PARTS): string[] {
  const sentences = readSentences(message).filter((s) => s.kind !== 'small-talk');
  const asks = sentences.filter((s) => s.kind !== 'statement');
  const states = sentences.filter((s) => s.kind === 'statement');
  const parts = [...asks, ...states].map((s) => s.text).filter((text) => text !== message.trim());
  return [...new Set([message, ...parts])].slice(0, Math.max(1, max));
}

/**
 * The parts' rankings as one: a memory scores by the part it answers best, lifted where a second part finds it too
 * (`agreement`: s1 + agreement x s2 x (1 - s1), s1 >= s2 its two best parts' scores); its explain names the best
 * part and the lift. A memory no part found stays out. Sorted best first by `compare`.
 */
export function fuseRankings(
  parts: readonly string[],
  rankings: readonly (readonly ScoredCandidate[])[],
  compare: (a: ScoredCandidate, b: ScoredCandidate) => number,
  agreement = 0,
): ScoredCandidate[] {
  const found = new Map<string, { best: ScoredCandidate; part: string; second: number }>();
  rankings.forEach((ranking, i) => {
    for (const scored of ranking) {
      const id = scored.candidate.memory.id;
      const known = found.get(id);
      if (known === undefined) found.set(id, { best: scored, part: parts[i] ?? '', second: 0 });
      else if (scored.score > known.best.score) found.set(id, { best: scored, part: parts[i] ?? '', second: known.best.score });
      else known.second = Math.max(known.second, scored.score);
    }
  });
  return [...found.values()]
    .map(({ best, part, second }) => {
      const lift = agreement * second * (1 - best.score);
      const parts = best.parts ? { ...best.parts, part, ...(lift > 0 ? { agreement: Math.round(lift * 10_000) / 10_000 } : {}) } : undefined;
      return { ...best, score: Math.min(1, best.score + lift), ...(parts ? { parts } : {}) };
    })
    .sort(compare);
}
