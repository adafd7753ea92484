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
import type { MemoryStore } from '../src/core/store.js';
import { query } from '../src/storage/postgres/connection.js';
import { openPgStore, type PgStore } from '../src/storage/postgres/index.js';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.js';
import { buildFilterSet, FILTER_RUNS, filterTable, measureFilters } from './bench/filters.js';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '100000' }, 'database-url': { type: 'string' }, pglite: { type: 'boolean', default: false } },
});
const rows = Number(values.rows);
if (!Number.isInteger(rows) || rows < 1_000) throw new Error('--rows must be an integer of at least 1000.');

interface Opened {
  store: MemoryStore;
  label: string;
  /** After the load: fresh planner statistics on PostgreSQL, as a server's autovacuum would gather. */
  afterLoad(): Promise<void>;
  close(): Promise<void>;
}

const analyze = (store: PgStore) => async () => {
  await query(store.pool, 'ANALYZE');
};

async function openStore(): Promise<Opened> {
  if (values['database-url'] !== undefined) {
    const schema = `filter_bench_${Date.now().toString(36)}`;
    const store = await openPgStore(values['database-url'], { schema, statementTimeoutMs: 600_000 });
    return { store, label: `PostgreSQL (schema ${schema})`, afterLoad: analyze(store), close: () => store.close() };
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
      afterLoad: analyze(store),
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
    afterLoad: () => Promise.resolve(),
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const opened = await openStore();
try {
  const buildSeconds = await buildFilterSet(opened.store, rows, (done) => process.stderr.write(`\rbuilt ${done}/${rows}`));
  process.stderr.write('\n');
  await opened.afterLoad();
  const result = await measureFilters(opened.store);
  console.log(`${opened.label}, ${rows.toLocaleString('en')} memories of one user (built in ${buildSeconds.toFixed(0)} s), median of ${FILTER_RUNS} runs:\n`);
  console.log(filterTable(result));
} finally {
  await opened.close();
}
