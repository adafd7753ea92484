/**
 * What PostgreSQL without pgvector costs: the vector side of recall (PgStore.recallCandidates, 200 nearest) on plain
 * vectors, for one user of N memories of 512 dimensions, on a throwaway real server (tools/shared/postgres-cluster.ts)
 * or on --database-url (in a schema of its own, dropped at the end). Also times the alternative that was not chosen:
 * the same cosines computed by SQL over a `real[]` column.
 *
 *   node --import tsx tools/plain-vectors.ts [--sizes 1000,10000] [--runs 20] [--database-url URL]
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { newMemoryId, newUuid } from '../src/core/ids.js';
import type { NewMemory } from '../src/core/store.js';
import { openPgStore } from '../src/storage/postgres/index.js';
import { maskDatabaseUrl } from '../src/storage/postgres/url.js';
import { ms, summarize, type Summary } from './bench/stats.js';
import { findPostgresBinaries, startRealPostgres, type RealPostgres } from './shared/postgres-cluster.js';
import { mulberry32 } from './shared/prng.js';

const DIMENSION = 512;
const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '1000,10000' }, runs: { type: 'string', default: '20' }, 'database-url': { type: 'string' } },
});
const sizes = values.sizes.split(',').map(Number);
const runs = Number(values.runs);
const random = mulberry32(17);

function unitVector(): Float32Array {
  const v = Float32Array.from({ length: DIMENSION }, () => random() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

async function timed(fn: () => Promise<unknown>): Promise<string> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  const summary: Summary = summarize(times);
  return `${ms(summary.median)} / ${ms(summary.p95)}`;
}

let cluster: RealPostgres | undefined;
let url = values['database-url'];
if (url === undefined) {
  const binaries = findPostgresBinaries();
  if ('reason' in binaries) throw new Error(`No server to measure on: ${binaries.reason}. Give --database-url.`);
  cluster = await startRealPostgres(binaries);
  url = cluster.url;
}
const admin = new pg.Client({ connectionString: url });
await admin.connect();
const version = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v;
console.log(`PostgreSQL ${version} at ${maskDatabaseUrl(url)}; ${DIMENSION} dimensions, ${runs} runs, median / p95`);
console.log('\n| memories in the user | plain vectors, cosines in the node (the store) | real[], cosines in SQL |');
console.log('|---|---|---|');
try {
  for (const size of sizes) {
    const schema = `plain_vectors_${size}_${process.pid}`;
    const store = await openPgStore(url, { schema, pgvector: false, statementTimeoutMs: 120_000 });
    try {
      await store.useModel({ model: 'random-vectors', dimension: DIMENSION });
      const app = await store.ensureApp('default');
      const texts: string[] = [];
      for (let i = 0; i < size; i += 500) {
        const batch: NewMemory[] = Array.from({ length: Math.min(500, size - i) }, (_, j) => ({
          id: newMemoryId(),
          uuid: newUuid(),
          userId: 'u',
          appId: app.id,
          text: `memory ${i + j}`,
          metadata: {},
          createdAt: new Date(Date.UTC(2024, 0, 1) + (i + j) * 1000).toISOString(),
          embedding: unitVector(),
        }));
        texts.push(...batch.map((m) => `{${Array.from(m.embedding!).join(',')}}`));
        await store.insertMemories(batch);
      }
      await store.pool.query('ANALYZE memories');
      const query = unitVector();
      const plain = await timed(() =>
        store.recallCandidates({ userId: 'u', scope: { appId: null }, embedding: query, vectorK: 200, alsoIds: [] }),
      );
      // The alternative: the same vectors as real[] and the cosine (a dot product: unit vectors) summed by SQL.
      await admin.query(`CREATE TABLE ${schema}.as_arrays AS SELECT id, user_id, e::real[] AS e FROM unnest($1::text[]) WITH ORDINALITY AS t(e, id), (SELECT 'u' AS user_id) u`, [texts]);
      await admin.query(`CREATE INDEX ON ${schema}.as_arrays (user_id); ANALYZE ${schema}.as_arrays`);
      const literal = `{${Array.from(query).join(',')}}`;
      const inSql = await timed(() =>
        admin.query(
          `SELECT id, (SELECT sum(x::float8 * y) FROM unnest(e, $2::real[]) AS v(x, y)) AS cosine FROM ${schema}.as_arrays
           WHERE user_id = $1 ORDER BY cosine DESC LIMIT 200`,
          ['u', literal],
        ),
      );
      console.log(`| ${size.toLocaleString('en-US')} | ${plain} | ${inSql} |`);
    } finally {
      await store.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  }
} finally {
  await admin.end();
  await cluster?.stop();
}
