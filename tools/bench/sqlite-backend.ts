/**
 * The benchmark on SQLite: one file per set in the run's scratch folder (removed with it unless `--keep`).
 *
 * Bench-only load settings on the builder's connection: no rollback journal and no fsync (a crash would only
 * lose the benchmark's scratch file) and a 256 MiB page cache. The servers measured afterwards open the file with
 * the normal settings (WAL, synchronous=NORMAL).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { searchVectors } from '../../src/storage/sqlite/vector-search.js';
import type { BenchBackend, BackendText, OpenedSet, SetTarget, VectorProbe } from './backends.js';
import { fileBytes } from './files.js';

const TEXT: BackendText = {
  title: '',
  perSet: 'one process per database file',
  loadSettings: 'Bench-only load settings while building (no journal, no fsync, ids in increasing order); the servers then open the files normally.',
  sizeColumn: 'database',
  sizePer100k: 'database file per 100,000',
  indexPath: 'fast path (sign-bit pre-filter, then exact cosine of the best candidates)',
  vectorAlone: 'vector search alone',
  wordSide: "each term's newest memories by FTS5",
  mcpArgs: '--db <set>',
  rss: 'server resident memory (RSS, whole process incl. model)',
};

function probe(store: SqliteStore): VectorProbe {
  return {
    async search(q, path) {
      // The fast path is what recall uses on SQLite at every size; minCandidates Infinity re-scores every vector.
      const exact = path === 'exact' ? { minCandidates: Number.POSITIVE_INFINITY } : {};
      return searchVectors(store.database, { userId: q.userId, appId: null, embedding: q.embedding, k: q.k, ...exact }).map((h) => String(h.rowid));
    },
    async targetKeys() {
      const rows = store.database.prepare("SELECT rowid FROM memories WHERE json_extract(metadata, '$.externalId') IS NOT NULL").pluck().all() as number[];
      return new Set(rows.map(String));
    },
    async explain() {
      return undefined;
    },
  };
}

function target(work: string, name: string): SetTarget {
  const path = join(work, `${name}.db`);
  return {
    name,
    child: { args: ['--db', path], env: {} },
    async activate() {},
    async open(): Promise<OpenedSet> {
      const store = SqliteStore.open({ path });
      return { store, vectors: probe(store) };
    },
    async openForLoad() {
      const store = SqliteStore.open({ path });
      store.database.pragma('journal_mode = OFF');
      store.database.pragma('synchronous = OFF');
      store.database.pragma('cache_size = -262144');
      return store;
    },
    async afterLoad() {},
    async bytes() {
      return fileBytes(path);
    },
    async remove() {
      for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    },
  };
}

/** Sets as files under `work`, the run's scratch folder, which the bench removes at the end unless `--keep`. */
export function sqliteBackend(work: string): BenchBackend {
  return {
    kind: 'sqlite',
    text: TEXT,
    concurrentSets: true,
    create: async (name) => target(work, name),
    describe: async () => [],
    close: async () => {},
  };
}
