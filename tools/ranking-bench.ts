/**
 * How long the ranker takes for one recall's candidates, without the store or the model:
 * `npm run bench:ranking -- [--data DIR] [--candidates N] [--runs N]`.
 *
 * Candidates are N consecutive memories of a data set in the evaluation layout (default: LoCoMo's dev turns beside
 * the repository, 400 candidates, what a recall over a large user ranks), each with a made-up cosine and its
 * neighbours. "First reading" ranks a slice of texts the process has not read (one sample per slice, after a warm-up
 * on a slice of its own); "again" ranks
 * the same candidates for other questions, as recalls over one user's memories do (the ranker keeps what it read of
 * a text). Plain questions, and questions that ask for a kind of answer (a colour, a number, a name).
 */
import { parseArgs } from 'node:util';
import { HybridRanker } from '../src/core/ranking/hybrid-ranker.js';
import type { Candidate } from '../src/core/store.js';
import { summarize } from './bench/stats.js';
import { loadEvalData, type EvalMemory } from './eval/dataset.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/eval/locomo-dev' },
    candidates: { type: 'string', default: '400' },
    runs: { type: 'string', default: '100' },
  },
});
const size = Number(values.candidates);
const runs = Number(values.runs);
if (!Number.isInteger(size) || size < 1 || !Number.isInteger(runs) || runs < 1) {
  throw new Error('--candidates and --runs take positive whole numbers');
}

const APP = { id: '00000000-0000-4000-8000-000000000000', slug: 'default', createdAt: '2024-01-01T00:00:00.000Z' };
function candidates(memories: readonly EvalMemory[]): Candidate[] {
  return memories.map((m, i) => ({
    memory: { id: m.id, uuid: m.id, userId: m.userId, app: APP, text: m.text, metadata: {}, createdAt: m.createdAt, updatedAt: m.createdAt, expiresAt: null },
    cosine: ((i * 37) % 100) / 100,
    prevId: memories[i - 1]?.id ?? null,
    nextId: memories[i + 1]?.id ?? null,
  }));
}

const QUESTIONS = {
  plain: ['What instrument does Caroline play?', 'When did Melanie go camping with her family?', 'What does Caroline think about adoption agencies?'],
  'asking for a kind of answer': ["What is the name of Caroline's dog?", 'How old is Melanie?', "What colour is Caroline's car?"],
};

const memories = loadEvalData(values.data).memories;
const slices = Math.floor(memories.length / size);
const ranker = new HybridRanker();
const rank = (query: string, pool: Candidate[]): number => {
  const started = performance.now();
  ranker.rank(query, ranker.plan(query, 10), pool);
  return performance.now() - started;
};

// Warm-up on a slice of its own: the first ranking in a process loads the related-words lexicon (6 MB) and runs
// cold code, which is neither a first reading of texts nor a steady state.
for (const q of [...QUESTIONS.plain, ...QUESTIONS['asking for a kind of answer']]) rank(q, candidates(memories.slice(0, size)));
const perKind = Math.floor((slices - 1) / 2);
if (perKind < 1) throw new Error(`${values.data} holds ${memories.length} memories: too few for slices of ${size}`);

console.log(`Ranking ${size} candidates (${values.data}), median ms:\n`);
console.log('| questions | first reading of the texts | again (the same texts, other questions) |');
console.log('|---|---:|---:|');
let slice = 1;
for (const [kind, questions] of Object.entries(QUESTIONS)) {
  const first: number[] = [];
  let pool: Candidate[] = [];
  for (let n = 0; n < perKind; n++, slice++) {
    pool = candidates(memories.slice(slice * size, (slice + 1) * size));
    first.push(rank(questions[n % questions.length] as string, pool));
  }
  const again: number[] = [];
  for (let r = 0; r < runs; r++) for (const q of questions) again.push(rank(q, pool));
  console.log(`| ${kind} | ${summarize(first).median.toFixed(2)} (${first.length} slices) | ${summarize(again).median.toFixed(2)} |`);
}
