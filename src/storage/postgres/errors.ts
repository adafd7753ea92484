import { MemoryError } from '../../core/errors.js';

/**
 * Driver errors that mean "the database cannot serve right now" become MemoryError 'unavailable' (503 with
 * Retry-After), so a client retries and a load balancer can move on; every other error stays as it is and the
 * adapters turn it into a 500 that says nothing internal. Messages never quote the driver: it may name hosts,
 * users or SQL.
 */
export const UNAVAILABLE_MESSAGE = 'The database is unavailable; retry shortly.';

/** Node socket errors: nothing listens, the network dropped us, the name does not resolve (yet). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What pg and pg-pool throw for dead, closed or timed-out connections (they carry no code). */
const DRIVER_MESSAGES =
  /^(Connection terminated|timeout expired|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Client was closed)/;

/**
 * SQLSTATEs worth a retry, with how long to wait. Class 08 (connection exception) and 28 (bad credentials, e.g. a
 * rotated password not yet deployed) are matched by class below.
 */
const RETRYABLE_STATES: ReadonlyMap<string, number> = new Map([
  ['57P01', 5], // admin_shutdown: the server is restarting or failing over
  ['57P02', 5], // crash_shutdown
  ['57P03', 5], // cannot_connect_now: starting up / recovering
  ['57014', 1], // query_canceled: statement_timeout fired
  ['53300', 2], // too_many_connections
  ['53400', 2], // configuration_limit_exceeded
  ['53100', 30], // disk_full
  ['53200', 5], // out_of_memory
  ['40001', 1], // serialization_failure
  ['40P01', 1], // deadlock_detected
  ['55P03', 1], // lock_not_available: lock_timeout fired
  ['25006', 5], // read_only_sql_transaction: connected to a standby after a failover
  ['3D000', 30], // invalid_catalog_name: the database is not (yet) created
]);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Seconds to wait before a retry when `error` means the database is unavailable; undefined otherwise. */
export function unavailableRetrySeconds(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = codeOf(error);
  if (code !== undefined) {
    if (NETWORK_CODES.has(code)) return 2;
    const retry = RETRYABLE_STATES.get(code);
    if (retry !== undefined) return retry;
    if (/^(08|28)[0-9A-Z]{3}$/.test(code)) return 5;
  }
  if (DRIVER_MESSAGES.test(error.message)) return 2;
  // Node's happy-eyeballs connect (localhost -> ::1 and 127.0.0.1) fails with an AggregateError of socket errors.
  if (error instanceof AggregateError) {
    return error.errors.map(unavailableRetrySeconds).find((s) => s !== undefined);
  }
  const cause = (error as { cause?: unknown }).cause;
  return cause === undefined || cause === error ? undefined : unavailableRetrySeconds(cause);
}

/** True when the connection that raised `error` must not go back to the pool. */
export function isConnectionBroken(error: unknown): boolean {
  const code = codeOf(error);
  if (code === '57014' || code === '40001' || code === '40P01' || code === '55P03') return false;
  return unavailableRetrySeconds(error) !== undefined;
}

/** Rethrows `error`, as MemoryError 'unavailable' when the database cannot serve right now. */
export function translatePgError(error: unknown): never {
  if (error instanceof MemoryError) throw error;
  const retryAfterSeconds = unavailableRetrySeconds(error);
  if (retryAfterSeconds !== undefined) {
    throw new MemoryError('unavailable', UNAVAILABLE_MESSAGE, { retryAfterSeconds, cause: error });
  }
  throw error;
}
