import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type SqliteDatabase = Database.Database;
export type Statement = Database.Statement;

/**
 * How long a statement of a short-lived connection (migrations at start, a maintenance command) waits for another
 * process's transaction before failing with SQLITE_BUSY. The wait blocks the thread: the store sets it to 0 once it
 * serves requests and retries asynchronously instead (SqliteStore's busy retry).
 */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens the database file with the settings every connection needs: WAL so readers never block the writer and
 * several processes (the server, stdio MCP instances) share one file; a busy timeout so concurrent writers wait
 * instead of failing; synchronous=NORMAL, which in WAL mode loses nothing on a process crash (kill -9) and at most
 * the last commits on a power loss.
 */
export function openDatabase(path: string, options: { readonly?: boolean } = {}): SqliteDatabase {
  if (path !== ':memory:' && !options.readonly) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { readonly: options.readonly ?? false, timeout: BUSY_TIMEOUT_MS });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  return db;
}
