import pg from 'pg';
import type { Logger } from '../../core/logger.js';
import { silentLogger } from '../../core/logger.js';
import { isConnectionBroken } from './errors.js';
import { maskDatabaseUrl } from './url.js';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export interface PgConnectionOptions {
  /** Connections this node keeps at most (default 10). Several nodes share the server's max_connections. */
  poolSize?: number;
  /** How long to wait for a connection, new or from a full pool, before failing (default 5,000 ms). */
  connectTimeoutMs?: number;
  /** Longest a statement may run (default 5,000 ms): a hung or overloaded database fails a request fast. */
  statementTimeoutMs?: number;
  /** A schema of its own (created if missing), put first on the search path; default: the server's search path. */
  schema?: string;
  logger?: Logger;
}

export const CONNECTION_DEFAULTS = Object.freeze({ poolSize: 10, connectTimeoutMs: 5_000, statementTimeoutMs: 5_000 });

/** Unquoted lower-case identifiers only: a schema name ends up in SQL text, where no parameter can stand. */
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_PATTERN.test(schema)) {
    throw new Error(`Invalid schema name "${schema}": use lower-case letters, digits and "_" (at most 63).`);
  }
}

/**
 * pg would throw Node's own URL error, which carries the whole URL, password included, in its `input` field, where
 * a logger serialising the error would print it. This one names the URL masked and carries nothing else.
 */
function assertUrl(url: string): void {
  let valid = true;
  try {
    new URL(url);
  } catch {
    valid = false;
  }
  if (!valid) throw new Error(`The database URL is not a valid URL: ${maskDatabaseUrl(url)}`);
}

/**
 * A pool whose every wait is bounded: connecting (connectionTimeoutMillis, also the wait for a free connection),
 * each statement on the server (statement_timeout) and, as a backstop when the server cannot even answer, on the
 * client (query_timeout, a second later so that the server's own cancellation wins when it can). A transaction
 * abandoned by a crashed node releases its locks after idle_in_transaction_session_timeout.
 */
export function createPool(url: string, options: PgConnectionOptions = {}): Pool {
  assertUrl(url);
  const logger = options.logger ?? silentLogger;
  const statementTimeout = options.statementTimeoutMs ?? CONNECTION_DEFAULTS.statementTimeoutMs;
  if (options.schema !== undefined) assertSchemaName(options.schema);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? CONNECTION_DEFAULTS.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECTION_DEFAULTS.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: statementTimeout,
    query_timeout: statementTimeout + 1_000,
    idle_in_transaction_session_timeout: 60_000,
    application_name: 'agent-memory',
    keepAlive: true,
  });
  // An idle connection that the server drops (restart, failover) is reported here; without a listener Node
  // would crash the process. The pool has already discarded it; the next checkout opens a fresh one.
  const target = maskDatabaseUrl(url);
  pool.on('error', (error) => {
    logger.warn('postgres connection lost', { database: target, error: error.message });
  });
  if (options.schema !== undefined) {
    const schema = options.schema;
    pool.on('connect', (client) => {
      // The server's default path stays behind ours (it may hold the vector extension, e.g. `extensions`).
      // reset_val, not current_setting: a pooler or PGlite may share one session between connections.
      client
        .query(
          `SELECT set_config('search_path', quote_ident($1) || ', ' ||
             (SELECT reset_val FROM pg_settings WHERE name = 'search_path'), false)`,
          [schema],
        )
        .catch((error: unknown) => {
          logger.error('postgres search_path setup failed', { database: target, error: String(error) });
          // The queries queued behind this one would run against the wrong tables: end the connection, so they
          // fail (as 'unavailable') and whoever holds it discards it.
          client.end().catch(() => undefined);
        });
    });
  }
  return pool;
}

/**
 * Runs `fn` on one checked-out connection. A connection that broke (or whose state is unknown) is destroyed
 * instead of going back to the pool, where the next request would inherit the failure.
 */
export async function withClient<T>(
  pool: Pool,
  fn: (client: PoolClient, discard: (error: Error) => void) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // While checked out the pool no longer listens for errors; one arriving between two queries must not crash us.
  let broken: Error | undefined;
  const onError = (error: Error): void => {
    broken ??= error;
  };
  client.on('error', onError);
  try {
    return await fn(client, onError);
  } catch (error) {
    if (broken === undefined && isConnectionBroken(error)) broken = error as Error;
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

export interface TransactionMode {
  isolation?: 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';
  readOnly?: boolean;
}

/** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
export function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>, mode: TransactionMode = {}): Promise<T> {
  return withClient(pool, (client, discard) => inTransaction(client, discard, () => fn(client), mode));
}

/**
 * One transaction on a connection already checked out (by withClient, whose `discard` it takes), for work that
 * also runs outside the transaction on the same session.
 */
export async function inTransaction<T>(
  client: PoolClient,
  discard: (error: Error) => void,
  fn: () => Promise<T>,
  mode: TransactionMode = {},
): Promise<T> {
  await client.query(`BEGIN ISOLATION LEVEL ${mode.isolation ?? 'READ COMMITTED'}${mode.readOnly ? ' READ ONLY' : ''}`);
  try {
    const result = await fn();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A dead connection cannot roll back; the server does it when the connection closes. A connection that
    // cannot roll back is in an unknown state: discard it rather than hand it to the next request.
    if (!isConnectionBroken(error)) await client.query('ROLLBACK').catch(discard);
    throw error;
  }
}

/** One statement on a pooled connection. */
export function query<R extends pg.QueryResultRow>(pool: Pool, text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
  return withClient(pool, (client) => client.query<R>(text, values));
}
