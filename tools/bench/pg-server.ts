/**
 * What the benchmark learns about a PostgreSQL server before it creates anything: its version, pgvector's, and
 * whether its connections are sessions of their own. PGlite (PostgreSQL compiled to WebAssembly, which the
 * tests serve over a socket) serves every connection from one session and ignores the connection's startup
 * options; a real server does neither.
 */
import pg from 'pg';
import { maskDatabaseUrl } from '../../src/storage/postgres/url.js';

export interface PgServerFacts {
  serverVersion: string;
  /** `version()`: names PGlite when it is PGlite. */
  version: string;
  database: string;
  pgvector: { version: string; schema: string; iterativeScan: boolean } | undefined;
  /** pgvector can be created here by this role (it is installed on the server but not enabled in the database). */
  pgvectorAvailable: boolean;
  /** Two connections at once got the same backend: one session serves every connection (PGlite). */
  sharedSession: boolean;
  /** The server applied `options=-c ...` from the connection string (a pooler or PGlite may drop them). */
  startupOptions: boolean;
  pglite: boolean;
}

/** A plain lower-case identifier, as schema names and search_path entries in connection options must be here. */
export const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** `url` with `-c search_path=...` added to the connection's startup options (kept with any already there). */
export function withSearchPath(url: string, path: readonly string[]): string {
  const parsed = new URL(url);
  const existing = parsed.searchParams.get('options');
  parsed.searchParams.set('options', `${existing ? `${existing} ` : ''}-c search_path=${path.join(',')}`);
  return parsed.toString();
}

export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: 'agent-memory-bench' });
  try {
    await client.connect();
  } catch (error) {
    // pg's errors may carry the URL; ours names it masked.
    throw new Error(`Cannot connect to ${maskDatabaseUrl(url)}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return client;
}

async function backendPid(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return rows[0]?.pid ?? -1;
}

export async function inspectServer(url: string, admin: pg.Client): Promise<PgServerFacts> {
  const { rows: info } = await admin.query<{ server_version: string; version: string; database: string }>(
    "SELECT current_setting('server_version') AS server_version, version() AS version, current_database() AS database",
  );
  const { rows: ext } = await admin.query<{ version: string; schema: string }>(
    "SELECT extversion AS version, extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extname = 'vector'",
  );
  const { rows: available } = await admin.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  // A second connection while the first is open, with a startup option that a real server applies.
  const probe = await connect(withSearchPath(url, ['agent_memory_bench_probe']));
  let sharedSession: boolean;
  let startupOptions: boolean;
  try {
    sharedSession = (await backendPid(probe)) === (await backendPid(admin));
    const { rows } = await probe.query<{ path: string }>("SELECT current_setting('search_path') AS path");
    startupOptions = rows[0]?.path === 'agent_memory_bench_probe';
  } finally {
    await probe.end();
  }
  const row = info[0];
  const vector = ext[0];
  const [major, minor] = (vector?.version ?? '').split('.').map(Number);
  return {
    serverVersion: row?.server_version ?? 'unknown',
    version: row?.version ?? 'unknown',
    database: row?.database ?? 'unknown',
    pgvector: vector ? { ...vector, iterativeScan: (major ?? 0) > 0 || (minor ?? 0) >= 8 } : undefined,
    pgvectorAvailable: available.length > 0,
    sharedSession,
    startupOptions,
    pglite: /pglite/i.test(row?.version ?? ''),
  };
}
