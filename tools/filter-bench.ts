/**
 * How fast the lifecycle filters are over one large user: `npm run bench:filters -- [--rows N] [--database-url URL |
 * --pglite]`. Builds one user with N memories (default 100,000; 512-dimension vectors from a seeded PRNG, metadata
 * `topic` of 20 values and `source` of 4, createdAt over a year), then times (median of 9 runs, each with other
 * filter values) a list page with its total, recall's candidate search, and a filtered delete, with and without
 * filters. SQLite by default (a file in the OS temp dir); PostgreSQL with --database-url, or in-process PGlite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { searchCandidates } from '../src/core/candidates.js';
import type { MemoryFilter, MemoryStore, NewMemory } from '../src/core/store.js';
import { openPgStore } from '../src/storage/postgres/index.js';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.js';
import { mulberry32 } from './shared/prng.js';

const DIMENSION = 512;
const RUNS = 9;
const TOPICS = 20;
const SOURCES = 4;
const YEAR_MS = 365 * 24 * 3600 * 1000;
const START = Date.UTC(2025, 0, 1);

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '100000' }, 'database-url': { type: 'string' }, pglite: { type: 'boolean', default: false } },
});
const rows = Number(values.rows);
if (!Number.isInteger(rows) || rows < 1_000) throw new Error('--rows must be an integer of at least 1000.');

const next = mulberry32(0xf11e);

function unitVector(): Float32Array {
  const v = Float32Array.from({ length: DIMENSION }, () => next() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

async function openStore(): Promise<{ store: MemoryStore; label: string; close(): Promise<void> }> {
  if (values['database-url'] !== undefined) {
    const schema = `filter_bench_${Date.now().toString(36)}`;
    const store = await openPgStore(values['database-url'], { schema, statementTimeoutMs: 600_000 });
    return { store, label: `PostgreSQL (schema ${schema})`, close: () => store.close() };
  }
  if (values.pglite) {
    const { PGlite } = await import('@electric-sql/pglite');
    const { vector } = await import('@electric-sql/pglite-pgvector');
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
    const db = await PGlite.create({ extensions: { vector } });
    await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
    await server.start();
    const port = Number(server.getServerConn().split(':').pop());
    const store = await openPgStore(`postgres://postgres:x@127.0.0.1:${port}/postgres`, { statementTimeoutMs: 600_000 });
    return {
      store,
      label: 'PostgreSQL on PGlite (in process)',
      async close() {
        await store.close();
        await server.stop();
        await db.close();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-filter-bench-'));
  const store = SqliteStore.open({ path: join(dir, 'bench.db') });
  return {
    store,
    label: 'SQLite',
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function build(store: MemoryStore): Promise<number> {
  const started = performance.now();
  await store.useModel({ model: 'filter-bench', dimension: DIMENSION });
  const app = await store.ensureApp('default');
  let batch: NewMemory[] = [];
  for (let i = 0; i < rows; i++) {
    const topic = i % TOPICS;
    batch.push({
      id: `mem_${i.toString(36).padStart(12, '0')}`,
      uuid: `f11e0000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
      userId: 'bench',
      appId: app.id,
      text: `Memory ${i}: a note about topic${topic} from source${i % SOURCES}.`,
      metadata: { topic: `topic${topic}`, source: `source${i % SOURCES}`, i },
      createdAt: new Date(START + Math.floor((i / rows) * YEAR_MS)).toISOString(),
      embedding: unitVector(),
    });
    if (batch.length === 5_000) {
      await store.insertMemories(batch);
      batch = [];
      process.stderr.write(`\rbuilt ${i + 1}/${rows}`);
    }
  }
  if (batch.length > 0) await store.insertMemories(batch);
  process.stderr.write('\n');
  return (performance.now() - started) / 1000;
}

async function median(run: (i: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(RUNS / 2)] as number;
}

const week = (i: number): MemoryFilter => {
  const since = START + (i * 37 * 24 * 3600 * 1000) % (YEAR_MS - 7 * 24 * 3600 * 1000);
  return { since: new Date(since).toISOString(), until: new Date(since + 7 * 24 * 3600 * 1000).toISOString() };
};
const topic = (i: number): MemoryFilter => ({ metadata: { topic: `topic${i % TOPICS}` } });
const topicAndSource = (i: number): MemoryFilter => ({ metadata: { topic: `topic${i % TOPICS}`, source: `source${(i % TOPICS) % SOURCES}` } });

const opened = await openStore();
try {
  const buildSeconds = await build(opened.store);
  const store = opened.store;
  const cases: Array<[string, (i: number) => MemoryFilter | undefined, string]> = [
    ['none', () => undefined, '100%'],
    ['metadata {topic}', topic, `${(100 / TOPICS).toFixed(0)}%`],
    ['metadata {topic, source}', topicAndSource, `${(100 / TOPICS).toFixed(0)}%`],
    ['since/until (one week)', week, '2%'],
    ['metadata + week', (i) => ({ ...topic(i), ...week(i) }), '0.1%'],
  ];
  const lines: string[] = [];
  for (const [name, filter, share] of cases) {
    const list = await median((i) => store.listMemories({ userId: 'bench', scope: { appId: null }, offset: 0, limit: 20, filter: filter(i) }));
    const recall = await median((i) =>
      searchCandidates(store, {
        userId: 'bench',
        scope: { appId: null },
        plan: { embedText: '', terms: [`topic${i % TOPICS}`, 'note'], vectorK: 200, textK: 200, perTerm: 200 },
        embedding: Promise.resolve(unitVector()),
        filter: filter(i),
      }),
    );
    lines.push(`| ${name} | ${share} | ${list.toFixed(1)} | ${recall.toFixed(1)} |`);
  }
  // One filtered delete: the memories of one topic in one week (about 70 of them).
  const started = performance.now();
  const deleted = await store.deleteUserMemories('bench', { appId: null }, { ...topic(3), ...week(3) });
  const deleteMs = performance.now() - started;
  console.log(`${opened.label}, ${rows.toLocaleString('en')} memories of one user (built in ${buildSeconds.toFixed(0)} s), median of ${RUNS} runs:\n`);
  console.log('| filter | memories it keeps | list page + total (ms) | recall candidates (ms) |');
  console.log('|---|---|---|---|');
  for (const line of lines) console.log(line);
  console.log(`\nFiltered delete-all (metadata + week): ${deleted} memories in ${deleteMs.toFixed(1)} ms.`);
} finally {
  await opened.close();
}
