/**
 * The benchmark on PostgreSQL (`--database-url`): every set in a schema of its own, `bench_<run>_<set>`, created
 * by the bench next to whatever the database already holds, which it never reads or changes. The servers, the
 * in-process store and the builder reach a set through the URL with `options=-c search_path=<schema>,<pgvector's
 * schema>`, which PostgreSQL applies to each connection. The schemas are dropped at the end, also when the run
 * fails (kept with `--keep`). If pgvector is installed on the server but not enabled in the database, the bench
 * enables it (as `agent-memory serve` would) and drops it again at the end. A server without pgvector is measured
 * as the store runs there: plain vectors (bytea), each recall an exact scan of the user's vectors in the node.
 *
 * PGlite serves every connection from one session and ignores startup options: there the bench sets that
 * session's search_path itself before each phase (SetTarget.activate), and never serves two sets at once.
 *
 * Load settings for building: a long statement timeout on the builder's connections (a batch of 5,000 with its
 * HNSW inserts may outlast the servers' 5 s), then ANALYZE, untimed, as autovacuum would soon do after a bulk load.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { PgStore } from '../../src/storage/postgres/pg-store.js';
import { maskDatabaseUrl } from '../../src/storage/postgres/url.js';
import type { BenchBackend, BackendText, SetTarget } from './backends.js';
import { connect, IDENTIFIER, inspectServer, withSearchPath, type PgServerFacts } from './pg-server.js';
import { EXACT_SCAN_LIMIT, pgVectorProbe, plainVectorProbe } from './pg-vector-probe.js';
import { count, mib } from './stats.js';

const LOAD_STATEMENT_TIMEOUT_MS = 60 * 60_000;

/** The report's wording; `plain`: no pgvector on the server, vectors kept as bytea and scanned exactly in the node. */
const text = (plain: boolean): BackendText => ({
  title: ' on PostgreSQL',
  perSet:
    'one process per set, each set in a schema of its own (the URL given to the process as DATABASE_URL, which is ' +
    '`--database-url`, kept out of the process list)',
  loadSettings:
    'Bench-only load settings while building (ids in increasing order, a one-hour statement timeout on the builder\'s ' +
    'connections), then ANALYZE of the set (not timed), as autovacuum would soon do; the servers then connect normally.',
  sizeColumn: 'tables + indexes',
  sizePer100k: 'tables and indexes per 100,000 (pg_total_relation_size)',
  indexPath: plain
    ? 'no index: without pgvector every vector of the user is read (bytea) and compared in the node, so the "fast path" is the exact scan'
    : 'the HNSW index (pgvector, cosine; forced, with sorting disabled; ef_search and iterative scan as recall sets them for ' +
      `users over ${count(EXACT_SCAN_LIMIT)} memories)`,
  vectorAlone: plain
    ? "vector search alone (without pgvector: every vector of the user read as bytea and compared in the node, as recall's plain mode does)"
    : `vector search alone (the query recall runs for this user: an exact scan up to ${count(EXACT_SCAN_LIMIT)} memories, the HNSW ` +
      'index above; timed with the bench\'s own copy of that SQL)',
  wordSide: "each term's newest memories by tsvector (GIN)",
  mcpArgs: '--database-url <set>',
  rss: 'server resident memory (RSS of the agent-memory process, incl. model; the database server\'s not included)',
});

interface Context {
  url: string;
  admin: pg.Client;
  facts: PgServerFacts;
  /** pgvector's schema; undefined on a server without pgvector (plain vectors). */
  vectorSchema: string | undefined;
  schemas: Set<string>;
}

function setTarget(ctx: Context, schema: string): SetTarget {
  const path = ctx.vectorSchema === undefined ? [schema] : [schema, ctx.vectorSchema];
  const url = withSearchPath(ctx.url, path);
  const iterative = ctx.facts.pgvector?.iterativeScan ?? false;
  return {
    name: schema,
    child: { args: [], env: { DATABASE_URL: url } },
    async activate() {
      if (!ctx.facts.sharedSession) return;
      await ctx.admin.query("SELECT set_config('search_path', $1, false)", [path.join(', ')]);
    },
    async open() {
      const store = await PgStore.open(url);
      return { store, vectors: ctx.vectorSchema === undefined ? plainVectorProbe(store.pool) : pgVectorProbe(store.pool, iterative) };
    },
    openForLoad: () => PgStore.open(url, { poolSize: 2, statementTimeoutMs: LOAD_STATEMENT_TIMEOUT_MS }),
    async afterLoad() {
      await ctx.admin.query(`ANALYZE ${schema}.memories`);
    },
    async bytes() {
      const { rows } = await ctx.admin.query<{ bytes: number }>(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'm')`,
        [schema],
      );
      return rows[0]?.bytes ?? Number.NaN;
    },
    async remove() {
      await ctx.admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      ctx.schemas.delete(schema);
    },
  };
}

/**
 * pgvector, enabled if the server has it; returns its schema and whether the bench enabled it, or no schema when the
 * server has no pgvector: the store then keeps plain vectors, as `agent-memory serve` would on that server.
 */
async function ensurePgvector(ctx: Omit<Context, 'vectorSchema' | 'schemas'>): Promise<{ schema: string | undefined; created: boolean }> {
  if (ctx.facts.pgvector) return { schema: ctx.facts.pgvector.schema, created: false };
  if (!ctx.facts.pgvectorAvailable) return { schema: undefined, created: false };
  // In the server's default schema (usually public), not in a set's schema, whose drop would take it along.
  await ctx.admin.query('CREATE EXTENSION vector');
  const facts = await inspectServer(ctx.url, ctx.admin);
  if (!facts.pgvector) throw new Error('pgvector was enabled but cannot be found.');
  ctx.facts.pgvector = facts.pgvector;
  return { schema: facts.pgvector.schema, created: true };
}

function describe(ctx: Context, prefix: string, databaseBytes: number): string[] {
  const f = ctx.facts;
  const vector = f.pgvector
    ? `pgvector ${f.pgvector.version} (0.8 or later: ${f.pgvector.iterativeScan ? 'yes' : '**no**, large users may get fewer candidates'})`
    : 'no pgvector on this server: plain vectors (bytea), every recall scans the user\'s vectors exactly in the node';
  const lines = [
    `Backend: PostgreSQL at ${maskDatabaseUrl(ctx.url)}: server_version ${f.serverVersion}, ${vector}; \`version()\`: ${f.version}. ` +
      `Each set in a schema of its own (\`${prefix}_*\`) in the database ${f.database}, dropped at the end unless \`--keep\`; ` +
      `pg_database_size at the end of the run, before the cleanup: ${mib(databaseBytes)} (that database's all, not only the bench's).`,
  ];
  if (f.pglite || f.sharedSession) {
    lines.push(
      `**Not representative of a real PostgreSQL server**: ${f.pglite ? 'this is PGlite' : 'every connection to this server shares one session, as on PGlite'} ` +
        '(PostgreSQL compiled to WebAssembly, running in one Node.js process): one session serves every connection, one statement at ' +
        'a time, with no parallel workers, no background writer or autovacuum, and WebAssembly instead of native code. It shows that ' +
        'the benchmark runs on PostgreSQL and how the figures relate to each other; a real server will give other (mostly faster) ' +
        'figures, and the same-minutes comparison of two sets is left out (two sets cannot be served at once).',
    );
  }
  return lines;
}

/** Connects, inspects the server and returns the backend; sets are created on demand. */
export async function postgresBackend(url: string): Promise<BenchBackend> {
  const admin = await connect(url);
  try {
    const facts = await inspectServer(url, admin);
    if (!facts.startupOptions && !facts.sharedSession) {
      throw new Error(
        `The server at ${maskDatabaseUrl(url)} (or a pooler in front of it) ignores the connection's startup options, so the ` +
          'benchmark cannot keep its sets in schemas of their own: connect to the server directly.',
      );
    }
    const vector = await ensurePgvector({ url, admin, facts });
    if (vector.schema !== undefined && !IDENTIFIER.test(vector.schema)) throw new Error(`pgvector's schema "${vector.schema}" is not a plain identifier.`);
    const ctx: Context = { url, admin, facts, vectorSchema: vector.schema, schemas: new Set() };
    const prefix = `bench_${randomBytes(3).toString('hex')}`;
    return {
      kind: 'postgres',
      text: text(vector.schema === undefined),
      concurrentSets: !facts.sharedSession,
      async create(name) {
        const schema = `${prefix}_${name}`;
        if (!IDENTIFIER.test(schema)) throw new Error(`Invalid set name "${name}".`);
        await admin.query(`CREATE SCHEMA ${schema}`);
        ctx.schemas.add(schema);
        return setTarget(ctx, schema);
      },
      async describe() {
        const { rows } = await admin.query<{ bytes: number }>('SELECT pg_database_size(current_database())::float8 AS bytes');
        return describe(ctx, prefix, rows[0]?.bytes ?? Number.NaN);
      },
      async close(keep) {
        try {
          if (keep) {
            if (ctx.schemas.size > 0) process.stderr.write(`[bench] kept the schemas ${[...ctx.schemas].join(', ')}\n`);
            return;
          }
          for (const schema of ctx.schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          ctx.schemas.clear();
          // No CASCADE: if anything else has come to use it meanwhile, it stays.
          if (vector.created) await admin.query('DROP EXTENSION IF EXISTS vector').catch(() => undefined);
          if (facts.sharedSession) await admin.query("SELECT set_config('search_path', reset_val, false) FROM pg_settings WHERE name = 'search_path'");
        } finally {
          await admin.end().catch(() => undefined);
        }
      },
    };
  } catch (error) {
    await admin.end().catch(() => undefined);
    throw error;
  }
}
