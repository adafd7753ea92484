import { MemoryError } from '../../core/errors.js';
import type { SqliteDatabase } from './connection.js';

/**
 * Schema migrations, applied in order inside one transaction each, so that an existing file is upgraded in place
 * and a crash mid-upgrade leaves the previous version intact. Never edit a released migration: add a new one.
 *
 * The vector table is not here: its dimension depends on the embedding model and is created by vector-index.ts.
 */
export interface Migration {
  version: number;
  name: string;
  up: (db: SqliteDatabase) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'apps, keys, memories, idempotency, meta',
    up(db) {
      db.exec(`
        CREATE TABLE apps (
          id TEXT PRIMARY KEY,
          slug TEXT NOT NULL UNIQUE,
          created_at TEXT NOT NULL
        );
        CREATE TABLE api_keys (
          id TEXT PRIMARY KEY,
          prefix TEXT NOT NULL,
          hash TEXT NOT NULL UNIQUE,
          app_id TEXT REFERENCES apps(id),
          label TEXT,
          created_at TEXT NOT NULL,
          revoked_at TEXT
        );
        -- rowid ties a memory to its rows in the vector and word indexes.
        CREATE TABLE memories (
          rowid INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          uuid TEXT NOT NULL UNIQUE,
          user_id TEXT NOT NULL,
          app_id TEXT NOT NULL REFERENCES apps(id),
          text TEXT NOT NULL,
          metadata TEXT NOT NULL DEFAULT '{}',
          created_at TEXT NOT NULL
        );
        -- List (newest first, then id) and delete, with and without an app filter.
        CREATE INDEX memories_user_created ON memories(user_id, created_at, id);
        CREATE INDEX memories_user_app_created ON memories(user_id, app_id, created_at, id);
        CREATE TABLE idempotency_keys (
          key_id TEXT NOT NULL,
          key TEXT NOT NULL,
          request_hash TEXT NOT NULL,
          response TEXT NOT NULL,
          created_at TEXT NOT NULL,
          PRIMARY KEY (key_id, key)
        );
        CREATE INDEX idempotency_created ON idempotency_keys(created_at);
        CREATE TABLE meta (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        );
      `);
    },
  },
  {
    version: 2,
    name: 'word index',
    up(db) {
      // Contentless: the text lives once, in memories. "owner" holds one token per user so that a word search is
      // an intersection with that user's postings, not a scan of every user's matches.
      db.exec(`
        CREATE VIRTUAL TABLE memory_words USING fts5(
          text, owner,
          content = '', contentless_delete = 1,
          tokenize = 'porter unicode61 remove_diacritics 2'
        );
      `);
    },
  },
  {
    version: 3,
    name: 'oldest-first index',
    up(db) {
      // `agent-memory export` reads every user's memories oldest first, a page at a time: without this index each
      // page would sort the whole table.
      db.exec('CREATE INDEX memories_created ON memories(created_at, id)');
    },
  },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

export function currentVersion(db: SqliteDatabase): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

/** Brings the file to the latest version; refuses a file written by a newer release. Returns versions applied. */
export function migrate(db: SqliteDatabase): number[] {
  const applied: number[] = [];
  // IMMEDIATE: two processes starting together must not both apply the same migration.
  const step = db.transaction((migration: Migration) => {
    if (currentVersion(db) >= migration.version) return false;
    migration.up(db);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
      migration.version,
      migration.name,
      new Date().toISOString(),
    );
    return true;
  });
  const start = currentVersion(db);
  if (start > LATEST_VERSION) {
    throw new MemoryError(
      'unavailable',
      `The database schema is version ${start}, newer than this release understands (${LATEST_VERSION}). Upgrade agent-memory.`,
    );
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= start) continue;
    if (step.immediate(migration)) applied.push(migration.version);
  }
  return applied;
}
