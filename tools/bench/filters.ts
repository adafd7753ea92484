/**
 * The lifecycle filters over one large user, shared by `npm run bench:filters` (tools/filter-bench.ts) and the
 * benchmark's filters phase: one user of N memories (512-dimension vectors from a seeded PRNG, metadata `topic` of
 * 20 values and `source` of 4, createdAt over a year), then the median of 9 runs (each with other filter values) of
 * a list page with its total, recall's candidate search, and one filtered delete, with and without filters.
 */
import { searchCandidates } from '../../src/core/candidates.js';
import type { MemoryFilter, MemoryStore, NewMemory } from '../../src/core/store.js';
import { mulberry32 } from '../shared/prng.js';

const DIMENSION = 512;
export const FILTER_RUNS = 9;
const TOPICS = 20;
const SOURCES = 4;
const YEAR_MS = 365 * 24 * 3600 * 1000;
const START = Date.UTC(2025, 0, 1);
const USER = 'bench';

function unitVectors(seed: number): () => Float32Array {
  const next = mulberry32(seed);
  return () => {
    const v = Float32Array.from({ length: DIMENSION }, () => next() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
}

/** Fills `store` (empty) with the one user's `rows` memories; returns the seconds it took. */
export async function buildFilterSet(store: MemoryStore, rows: number, progress: (done: number) => void = () => undefined): Promise<number> {
  const started = performance.now();
  const vector = unitVectors(0xf11e);
  await store.useModel({ model: 'filter-bench', dimension: DIMENSION });
  const app = await store.ensureApp('default');
  let batch: NewMemory[] = [];
  for (let i = 0; i < rows; i++) {
    const topic = i % TOPICS;
    batch.push({
      id: `mem_${i.toString(36).padStart(12, '0')}`,
      uuid: `f11e0000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
      userId: USER,
      appId: app.id,
      text: `Memory ${i}: a note about topic${topic} from source${i % SOURCES}.`,
      metadata: { topic: `topic${topic}`, source: `source${i % SOURCES}`, i },
      createdAt: new Date(START + Math.floor((i / rows) * YEAR_MS)).toISOString(),
      embedding: vector(),
    });
    if (batch.length === 5_000) {
      await store.insertMemories(batch);
      batch = [];
      progress(i + 1);
    }
  }
  if (batch.length > 0) await store.insertMemories(batch);
  return (performance.now() - started) / 1000;
}

async function median(run: (i: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < FILTER_RUNS; i++) {
    const started = performance.now();
    await run(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(FILTER_RUNS / 2)] as number;
}

const week = (i: number): MemoryFilter => {
  const since = START + ((i * 37 * 24 * 3600 * 1000) % (YEAR_MS - 7 * 24 * 3600 * 1000));
  return { since: new Date(since).toISOString(), until: new Date(since + 7 * 24 * 3600 * 1000).toISOString() };
};
const topic = (i: number): MemoryFilter => ({ metadata: { topic: `topic${i % TOPICS}` } });
const topicAndSource = (i: number): MemoryFilter => ({ metadata: { topic: `topic${i % TOPICS}`, source: `source${(i % TOPICS) % SOURCES}` } });

export interface FilterRow {
  filter: string;
  /** The share of the user's memories the filter keeps. */
  keeps: string;
  listMs: number;
  recallMs: number;
}

export interface FilterResult {
  rows: FilterRow[];
  deleted: number;
  deleteMs: number;
}

/** Times each filter on the built set, then one filtered delete (which changes the set: measure it last). */
export async function measureFilters(store: MemoryStore): Promise<FilterResult> {
  const vector = unitVectors(0x5eed);
  const cases: Array<[string, (i: number) => MemoryFilter | undefined, string]> = [
    ['none', () => undefined, '100%'],
    ['metadata {topic}', topic, `${(100 / TOPICS).toFixed(0)}%`],
    ['metadata {topic, source}', topicAndSource, `${(100 / TOPICS).toFixed(0)}%`],
    ['since/until (one week)', week, '2%'],
    ['metadata + week', (i) => ({ ...topic(i), ...week(i) }), '0.1%'],
  ];
  const rows: FilterRow[] = [];
  for (const [name, filter, keeps] of cases) {
    const listMs = await median((i) => store.listMemories({ userId: USER, scope: { appId: null }, offset: 0, limit: 20, filter: filter(i) }));
    const recallMs = await median((i) =>
      searchCandidates(store, {
        userId: USER,
        scope: { appId: null },
        plan: { embedText: '', language: 'en', terms: [`topic${i % TOPICS}`, 'note'], vectorK: 200, textK: 200, perTerm: 200 },
        embedding: Promise.resolve(vector()),
        filter: filter(i),
      }),
    );
    rows.push({ filter: name, keeps, listMs, recallMs });
  }
  // One filtered delete: the memories of one topic in one week (about 70 of them at 100,000).
  const started = performance.now();
  const deleted = await store.deleteUserMemories(USER, { appId: null }, { ...topic(3), ...week(3) });
  return { rows, deleted, deleteMs: performance.now() - started };
}

/** The result as a markdown table and a line on the delete. */
export function filterTable(result: FilterResult): string {
  return [
    '| filter | memories it keeps | list page + total (ms) | recall candidates (ms) |',
    '|---|---|---|---|',
    ...result.rows.map((r) => `| ${r.filter} | ${r.keeps} | ${r.listMs.toFixed(1)} | ${r.recallMs.toFixed(1)} |`),
    '',
    `Filtered delete-all (metadata + week): ${result.deleted} memories in ${result.deleteMs.toFixed(1)} ms.`,
  ].join('\n');
}
