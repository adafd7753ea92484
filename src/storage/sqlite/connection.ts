import type BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { sqliteDriverFor } from './driver.js';

function loadDriver(): typeof BetterSqlite3 {
  const require = createRequire(import.meta.url);
  const wanted = sqliteDriverFor(Number(process.versions.node.split('.')[0]));
  if (wanted === 'better-sqlite3-v13') {
    try {
      return require('better-sqlite3-v13') as typeof BetterSqlite3;
    } catch (error) {
      if ((error as { code?: string }).code !== 'MODULE_NOT_FOUND') throw error;
      // Installed without optional dependencies (--omit=optional): 12.x works on Node 22, and on 24 until a GC aborts.
      process.emitWarning(
        `better-sqlite3-v13 (better-sqlite3 13, an optional dependency) is not installed: using better-sqlite3 12, which can abort the process on Node 24 and later (reinstall without --omit=optional)`,
        { code: 'AGENT_MEMORY_SQLITE_DRIVER' },
      );
    }
  }
  return require('better-sqlite3') as typeof BetterSqlite3;
}

/** better-sqlite3's Database class, from the release for the Node line running (sqliteDriverFor). */
export const Database: typeof BetterSqlite3 = loadDriver();
export type SqliteDatabase = BetterSqlite3.Database;
export type Statement = BetterSqlite3.Statement;

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
