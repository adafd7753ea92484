/**
 * The benchmark's data: a "target" conversation whose questions have known answers, "filler" sentences to make
 * a user's memory large, and the recipe that turns them into sets of 1,000 to 1,000,000 memories.
 *
 * Source: the LoCoMo dev split when it is present (read at run time from its folder; nothing of it is copied into
 * the repository or the results), else a small synthetic set generated here. Only the target conversation and a
 * few hundred filler sentences are embedded by the real model (through `agent-memory import`); large sets reuse
 * those vectors: the target memories as they are, the filler as copies of a filler sentence's vector moved by
 * random noise (cosine 0.82 to 0.96 to the original), with the sentence's own text, so both the vector and the
 * word side of recall face realistic near-duplicates.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from './stats.js';

export interface BenchMemory {
  /** The dataset's id: kept as the memory's external id, so answers can be checked. */
  key: string;
  text: string;
  createdAt: string;
}

export interface BenchQuery {
  query: string;
  gold: string[];
}

export interface BenchData {
  source: string;
  /** One conversation (one user), the memories the questions are about. */
  target: BenchMemory[];
  queries: BenchQuery[];
  /** Other questions (not measured), to warm a fresh server's model up before measuring. */
  warmup: string[];
  /** Sentences from other conversations: filler for large sets. */
  fillerBases: BenchMemory[];
}

export const LOCOMO_DIR = '/work/shared/eval/locomo-dev';
const TARGET_CONVERSATION = 'conv-30';

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as T);
}

function shuffle<T>(items: T[], next: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

export function loadData(options: { dir?: string | undefined; fillerBases: number; queries: number; seed?: number }): BenchData {
  const dir = options.dir ?? process.env.MEMORY_BENCH_DATA ?? LOCOMO_DIR;
  const next = rng(options.seed ?? 42);
  if (existsSync(join(dir, 'memories.jsonl')) && existsSync(join(dir, 'queries.jsonl'))) {
    const memories = readJsonl<{ userId: string; id: string; text: string; createdAt: string }>(join(dir, 'memories.jsonl'));
    const queries = readJsonl<{ userId: string; query: string; gold: string[]; category: string }>(join(dir, 'queries.jsonl'));
    const targetUser = memories.some((m) => m.userId === TARGET_CONVERSATION) ? TARGET_CONVERSATION : (memories[0]?.userId ?? '');
    const target = memories.filter((m) => m.userId === targetUser).map((m) => ({ key: m.id, text: m.text, createdAt: m.createdAt }));
    const others = shuffle(
      memories.filter((m) => m.userId !== targetUser).map((m) => ({ key: m.id, text: m.text, createdAt: m.createdAt })),
      next,
    );
    const asked = queries.filter((q) => q.userId === targetUser && q.gold.length > 0 && q.category !== 'adversarial');
    const warmup = shuffle(
      queries.filter((q) => q.userId !== targetUser).map((q) => q.query),
      next,
    ).slice(0, 20);
    return {
      source: `LoCoMo dev split (${dir}): conversation ${targetUser} (${target.length} turns, ${asked.length} questions with answers, adversarial excluded) as the target; filler from the other conversations`,
      target,
      queries: asked.slice(0, options.queries).map((q) => ({ query: q.query, gold: q.gold })),
      warmup,
      fillerBases: others.slice(0, options.fillerBases),
    };
  }
  return synthetic(options.fillerBases, options.queries, next);
}

// ---- Synthetic fallback -------------------------------------------------------------------------------------------

const NAMES = ['Ava', 'Ben', 'Chloe', 'Dev', 'Elena', 'Farid', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Keiko', 'Liam', 'Maya', 'Nils', 'Olga', 'Paulo'];
const PICK = {
  food: ['ramen', 'paella', 'lentil soup', 'sushi', 'pierogi', 'tacos', 'falafel', 'risotto'],
  job: ['nurse', 'carpenter', 'data analyst', 'teacher', 'pilot', 'baker', 'architect', 'translator'],
  city: ['Lisbon', 'Osaka', 'Leeds', 'Denver', 'Kraków', 'Porto', 'Tartu', 'Lyon'],
  pet: ['beagle', 'tabby cat', 'parrot', 'tortoise', 'husky', 'rabbit'],
  petName: ['Biscuit', 'Nori', 'Pepper', 'Rocket', 'Mochi', 'Juniper'],
  instrument: ['cello', 'banjo', 'trumpet', 'harp', 'drums', 'accordion'],
  place: ['the Dolomites', 'Patagonia', 'the Lake District', 'Yosemite', 'the Tatra mountains', 'Snowdonia'],
  allergen: ['peanuts', 'shellfish', 'pollen', 'penicillin', 'cats', 'gluten'],
  car: ['red hatchback', 'blue pickup truck', 'silver estate car', 'green electric scooter', 'black convertible'],
  hobby: ['pottery', 'rock climbing', 'birdwatching', 'chess', 'salsa dancing', 'beekeeping'],
};

type Template = { fact: (n: string, p: (k: keyof typeof PICK) => string) => string; question: (n: string) => string };
const TEMPLATES: Template[] = [
  { fact: (n, p) => `${n}'s favourite dish is ${p('food')}.`, question: (n) => `What food does ${n} like most?` },
  { fact: (n, p) => `${n} works as a ${p('job')} in ${p('city')}.`, question: (n) => `What is ${n}'s job?` },
  { fact: (n, p) => `${n} has a ${p('pet')} called ${p('petName')}.`, question: (n) => `What pet does ${n} have?` },
  { fact: (n, p) => `${n} started learning the ${p('instrument')} this spring.`, question: (n) => `Which instrument is ${n} learning?` },
  { fact: (n, p) => `${n} went hiking in ${p('place')} last summer.`, question: (n) => `Where did ${n} go hiking?` },
  { fact: (n, p) => `${n} is allergic to ${p('allergen')}.`, question: (n) => `What allergy does ${n} have?` },
  { fact: (n, p) => `${n} drives a ${p('car')}.`, question: (n) => `What vehicle does ${n} drive?` },
  { fact: (n, p) => `On weekends ${n} enjoys ${p('hobby')}.`, question: (n) => `What does ${n} do on weekends?` },
];

function synthetic(fillerCount: number, queryCount: number, next: () => number): BenchData {
  const p = (k: keyof typeof PICK) => {
    const list = PICK[k];
    return list[Math.floor(next() * list.length)] as string;
  };
  const target: BenchMemory[] = [];
  const queries: BenchQuery[] = [];
  let t = Date.UTC(2024, 0, 1);
  for (const name of NAMES.slice(0, 8)) {
    TEMPLATES.forEach((template, i) => {
      const key = `syn:${name}:${i}`;
      target.push({ key, text: template.fact(name, p), createdAt: new Date((t += 3_600_000)).toISOString() });
      queries.push({ query: template.question(name), gold: [key] });
    });
  }
  const fillerBases: BenchMemory[] = [];
  for (let i = 0; i < fillerCount; i++) {
    const name = `${NAMES[8 + (i % 8)] as string} ${String.fromCharCode(65 + (i % 26))}.`;
    const template = TEMPLATES[i % TEMPLATES.length] as Template;
    fillerBases.push({ key: `syn-filler:${i}`, text: template.fact(name, p), createdAt: new Date((t += 60_000)).toISOString() });
  }
  return {
    source: 'synthetic facts (LoCoMo not found; set MEMORY_BENCH_DATA to its folder): 8 people x 8 facts as the target, questions about each fact',
    target,
    queries: shuffle(queries, next).slice(0, queryCount),
    warmup: NAMES.slice(8).flatMap((n) => TEMPLATES.slice(0, 2).map((t) => t.question(n))),
    fillerBases,
  };
}

// ---- Sets -----------------------------------------------------------------------------------------------------

/** One memory of a set: the target's own, or filler derived from a filler base. */
export interface SetRow {
  userId: string;
  key: string;
  text: string;
  createdAt: string;
  /** Index into data.target (>= 0) or, as -1 - i, into data.fillerBases. */
  source: number;
}

/**
 * The rows of a set: `users` users of `perUser` memories; the first user holds the target conversation (when
 * `withTarget`) and filler up to `perUser`. Filler is dated before the target, so the conversation stays together.
 */
export function* setRows(data: BenchData, spec: { users: number; perUser: number; withTarget: boolean; userPrefix: string; seed: number }): Generator<SetRow> {
  const next = rng(spec.seed);
  const fillerStart = Date.UTC(2020, 0, 1);
  for (let u = 0; u < spec.users; u++) {
    const userId = `${spec.userPrefix}${u}`;
    let n = 0;
    if (spec.withTarget && u === 0) {
      for (let i = 0; i < data.target.length && n < spec.perUser; i++, n++) {
        const m = data.target[i] as BenchMemory;
        yield { userId, key: m.key, text: m.text, createdAt: m.createdAt, source: i };
      }
    }
    for (let f = 0; n < spec.perUser; n++, f++) {
      const b = Math.floor(next() * data.fillerBases.length);
      const base = data.fillerBases[b] as BenchMemory;
      yield { userId, key: `filler:${u}:${f}`, text: base.text, createdAt: new Date(fillerStart + f * 60_000).toISOString(), source: -1 - b };
    }
  }
}

/** A pool of random unit directions to perturb vectors with (cheap: two pool entries mixed per copy). */
export function noisePool(dimension: number, size: number, next: () => number): Float32Array[] {
  const pool: Float32Array[] = [];
  for (let i = 0; i < size; i++) {
    const v = new Float32Array(dimension);
    let s = 0;
    for (let j = 0; j < dimension; j++) {
      const g = Math.sqrt(-2 * Math.log(next() + 1e-12)) * Math.cos(2 * Math.PI * next());
      v[j] = g;
      s += g * g;
    }
    s = Math.sqrt(s);
    for (let j = 0; j < dimension; j++) v[j] = (v[j] as number) / s;
    pool.push(v);
  }
  return pool;
}

/** base + t x (a mix of two noise directions), normalised; t in [0.3, 0.7] gives a cosine of about 0.82 to 0.96. */
export function perturb(base: Float32Array, pool: readonly Float32Array[], next: () => number): Float32Array {
  const a = pool[Math.floor(next() * pool.length)] as Float32Array;
  const b = pool[Math.floor(next() * pool.length)] as Float32Array;
  const w = next();
  const t = (0.3 + 0.4 * next()) / Math.sqrt(w * w + (1 - w) * (1 - w));
  const out = new Float32Array(base.length);
  let s = 0;
  for (let j = 0; j < base.length; j++) {
    const x = (base[j] as number) + t * (w * (a[j] as number) + (1 - w) * (b[j] as number));
    out[j] = x;
    s += x * x;
  }
  s = Math.sqrt(s);
  for (let j = 0; j < base.length; j++) out[j] = (out[j] as number) / s;
  return out;
}
