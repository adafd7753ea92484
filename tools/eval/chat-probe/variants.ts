/**
 * The ways a chat message says a question that the sets ask cleanly: wrapped in greetings, context and thanks, run on
 * as if spoken, typed with a typo, without apostrophes, in lower case. Each variant of a question asks the same thing,
 * so a recall that holds up answers it as it answers the question itself (tools/eval/chat-probe.ts measures that).
 * Deterministic: the wrapper and the typo are picked by a hash of the question's id.
 */
import { isStopWordIn } from '../../../src/core/text/analyze.js';

const GREETINGS = ['hi there!', 'Morning!', 'hey :)', 'Hello again.', 'ok quick one.', "Hiya, hope you're well.", 'evening!', 'Sorry to bother you again.'];
const CONTEXT = ['Ugh, what a day.', "I'm on the bus home.", 'Just got back from the shops.', 'Work was mad today.', "It's pouring here.", 'Finally sat down with a cuppa.', "Long week, glad it's Friday."];
const THANKS = ['Thanks!', 'cheers x', "thanks so much, you're a star", 'appreciate it :)', 'no rush.', 'ta'];

/** FNV-1a: a stable pick from an id. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function pick<T>(items: readonly T[], key: string): T {
  return items[hash(key) % items.length] as T;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function withoutMark(text: string): string {
  return text.trim().replace(/[?.!]+$/u, '');
}

/** One letter swapped with the next, dropped or doubled, inside the question's longest content word; undefined when it has none of 5+ letters. */
export function withTypo(question: string, key: string): string | undefined {
  const words = question.match(/\p{L}+/gu) ?? [];
  const content = words.filter((w) => w.length >= 5 && !isStopWordIn(w.toLowerCase(), 'en'));
  const word = content.reduce<string | undefined>((longest, w) => (longest === undefined || w.length > longest.length ? w : longest), undefined);
  if (word === undefined) return undefined;
  const h = hash(key);
  const at = 1 + (h % (word.length - 2));
  const op = (h >>> 8) % 3;
  const typo =
    op === 0 && word[at] !== word[at + 1]
      ? word.slice(0, at) + (word[at + 1] ?? '') + (word[at] ?? '') + word.slice(at + 2)
      : op === 2
        ? word.slice(0, at) + (word[at] ?? '') + word.slice(at)
        : word.slice(0, at) + word.slice(at + 1);
  return question.replace(word, typo);
}

/** A variant maker: the question as the variant says it, or undefined when the variant would not change it. */
export type Variant = (question: string, key: string) => string | undefined;

export const VARIANTS: Readonly<Record<string, Variant>> = {
  greeting: (q, k) => `${pick(GREETINGS, k)} ${q}`,
  context: (q, k) => `${pick(CONTEXT, k)} ${q}`,
  thanks: (q, k) => `${q} ${pick(THANKS, k)}`,
  'between greeting and thanks': (q, k) => `${pick(GREETINGS, k)} ${pick(CONTEXT, `${k}c`)} ${q} ${pick(THANKS, `${k}t`)}`,
  'run-on': (q) => `hey so i was just sitting here thinking and i wanted to ask ${lowerFirst(withoutMark(q))} because i honestly can't remember`,
  'run-on, asked first': (q) => `ok so ${lowerFirst(withoutMark(q))} asking cause i've got a lot on this week and my head is all over the place`,
  typo: (q, k) => withTypo(q, k),
  'no apostrophes': (q) => {
    const out = q.replace(/['\u2019]/gu, '');
    return out === q ? undefined : out;
  },
  'lower case, no mark': (q) => {
    const out = withoutMark(q).toLowerCase();
    return out === q ? undefined : out;
  },
};
