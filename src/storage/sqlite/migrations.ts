import { MemoryError } from '../../core/errors.js';
import { textKey } from '../../core/text-key.js';
import type { SqliteDatabase } from './connection.js';
import { writeFields } from './fields.js';
import { nfcIdentifiers } from './nfc-ids.js';
import { writeWords } from './words.js';

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
  {
    version: 4,
    name: 'lifecycle: updated_at, expires_at, duplicate key, metadata fields',
    up(db) {
      // The duplicate key and the metadata fields are computed in JavaScript (core/text-key.ts,
      // core/metadata-fields.ts), as for every new row, so that old and new rows agree to the bit.
      db.function('agent_memory_text_key', { deterministic: true }, (text: unknown) => textKey(String(text)));
      db.exec(`
        ALTER TABLE memories ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';
        ALTER TABLE memories ADD COLUMN expires_at TEXT;
        ALTER TABLE memories ADD COLUMN text_key TEXT NOT NULL DEFAULT '';
        UPDATE memories SET updated_at = created_at, text_key = agent_memory_text_key(text);
        -- Every read now asks whether a memory is live: with expires_at in the list indexes, a page and its total
        -- are still read from the index alone (a count over 100,000 memories of one user took 0.65 s without it).
        DROP INDEX memories_user_created;
        CREATE INDEX memories_user_created ON memories(user_id, created_at, id, expires_at);
        DROP INDEX memories_user_app_created;
        CREATE INDEX memories_user_app_created ON memories(user_id, app_id, created_at, id, expires_at);
        -- A store looks for a live memory of the same user, app and normalised text.
        CREATE INDEX memories_text_key ON memories(user_id, app_id, text_key);
        -- Purging (by time) and hiding (per user) expired memories; most memories never expire.
        CREATE INDEX memories_expires ON memories(expires_at) WHERE expires_at IS NOT NULL;
        CREATE INDEX memories_user_expires ON memories(user_id, expires_at) WHERE expires_at IS NOT NULL;
        -- Top-level scalar metadata entries, for filters: one B-tree lookup per key instead of parsing every row.
        CREATE TABLE memory_fields (
          user_id TEXT NOT NULL,
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          memory_rowid INTEGER NOT NULL,
          PRIMARY KEY (user_id, key, value, memory_rowid)
        ) WITHOUT ROWID;
        CREATE INDEX memory_fields_memory ON memory_fields(memory_rowid);
      `);
      // Pages, not iterate(): better-sqlite3 refuses writes while a statement is being iterated.
      const page = db.prepare('SELECT rowid, user_id, metadata FROM memories WHERE rowid > ? ORDER BY rowid LIMIT 1000');
      let last = 0;
      for (;;) {
        const rows = page.all(last) as Array<{ rowid: number; user_id: string; metadata: string }>;
        if (rows.length === 0) break;
        for (const row of rows) writeFields(db, row.rowid, row.user_id, JSON.parse(row.metadata) as Record<string, unknown>);
        last = rows[rows.length - 1]!.rowid;
      }
    },
  },
  {
    version: 5,
    name: 'words in every language',
    up(db) {
      // The word index held the raw text under FTS5's porter (English) tokenizer: a Chinese or Japanese sentence
      // was one token, and every language was stemmed as English. It now holds the terms of core's analysis
      // (core/text/analyze.ts), split by each memory's language, which FTS5 keeps as they are (letters, digits and
      // marks are token characters, so a Thai or Devanagari term stays whole). Contentless, so rebuilt from memories.
      db.exec(`
        ALTER TABLE memories ADD COLUMN language TEXT NOT NULL DEFAULT 'und';
        DROP TABLE memory_words;
        CREATE VIRTUAL TABLE memory_words USING fts5(
          text, owner,
          content = '', contentless_delete = 1,
          tokenize = "unicode61 remove_diacritics 0 categories 'L* N* Co M*'"
        );
      `);
      const page = db.prepare('SELECT rowid, user_id, text FROM memories WHERE rowid > ? ORDER BY rowid LIMIT 1000');
      let last = 0;
      for (;;) {
        const rows = page.all(last) as Array<{ rowid: number; user_id: string; text: string }>;
        if (rows.length === 0) break;
        for (const row of rows) writeWords(db, row.rowid, row.user_id, row.text);
        last = rows[rows.length - 1]!.rowid;
      }
    },
  },
  {
    version: 6,
    name: 'caller keys',
    up(db) {
      // A caller's own key for a memory (PUT /v1/memories/by-key/{key}): unique within the user and app. The index
      // is what keeps racing writers of one key to one memory, and finds the memory by key.
      db.exec(`
        ALTER TABLE memories ADD COLUMN key TEXT;
        CREATE UNIQUE INDEX memories_key ON memories(user_id, app_id, key) WHERE key IS NOT NULL;
      `);
    },
  },
  {
    version: 7,
    name: 'oauth: clients, pending consents, codes, tokens',
    up(db) {
      // The built-in OAuth authorization server (core/oauth). Codes, tokens and CSRF tokens are kept as SHA-256.
      db.exec(`
        CREATE TABLE oauth_clients (
          id TEXT PRIMARY KEY,
          metadata TEXT NOT NULL,
          name TEXT,
          redirect_uris TEXT NOT NULL,
          secret_hash TEXT,
          created_at TEXT NOT NULL,
          revoked_at TEXT
        );
        CREATE TABLE oauth_pending (
          id TEXT PRIMARY KEY,
          csrf_hash TEXT NOT NULL,
          client_id TEXT NOT NULL,
          redirect_uri TEXT NOT NULL,
          code_challenge TEXT NOT NULL,
          state TEXT,
          scopes TEXT NOT NULL,
          resource TEXT NOT NULL,
          expires_at TEXT NOT NULL
        );
        CREATE INDEX oauth_pending_expires ON oauth_pending(expires_at);
        CREATE TABLE oauth_codes (
          hash TEXT PRIMARY KEY,
          client_id TEXT NOT NULL,
          key_id TEXT NOT NULL,
          redirect_uri TEXT NOT NULL,
          code_challenge TEXT NOT NULL,
          scopes TEXT NOT NULL,
          resource TEXT NOT NULL,
          family_id TEXT NOT NULL,
          expires_at TEXT NOT NULL,
          used_at TEXT
        );
        CREATE INDEX oauth_codes_family ON oauth_codes(family_id);
        CREATE INDEX oauth_codes_expires ON oauth_codes(expires_at);
        CREATE TABLE oauth_tokens (
          hash TEXT PRIMARY KEY,
          kind TEXT NOT NULL,
          family_id TEXT NOT NULL,
          client_id TEXT NOT NULL,
          key_id TEXT NOT NULL,
          scopes TEXT NOT NULL,
          resource TEXT NOT NULL,
          expires_at TEXT NOT NULL,
          created_at TEXT NOT NULL,
          used_at TEXT,
          revoked_at TEXT
        );
        CREATE INDEX oauth_tokens_family ON oauth_tokens(family_id);
        CREATE INDEX oauth_tokens_expires ON oauth_tokens(expires_at);
      `);
    },
  },
  {
    version: 8,
    name: 'user ids and caller keys in Unicode NFC',
    up: nfcIdentifiers,
  },
  {
    version: 9,
    name: 'oauth: when a client first completed an authorization',
    up(db) {
      // Registered clients that never completed an authorization are capped and deleted after a while (anyone may
      // register one). Clients already holding a code or token count as authorized from their registration.
      db.exec(`
        ALTER TABLE oauth_clients ADD COLUMN authorized_at TEXT;
        UPDATE oauth_clients SET authorized_at = created_at
          WHERE id IN (SELECT client_id FROM oauth_codes UNION SELECT client_id FROM oauth_tokens);
        CREATE INDEX oauth_clients_unused ON oauth_clients(created_at) WHERE authorized_at IS NULL;
      `);
    },
  },
  {
    version: 10,
    name: 'score calibrations fitted by the service, per model',
    up(db) {
      // agent-memory calibrate (core/calibration): one row per model name and dimension, read by every node.
      db.exec(`
        CREATE TABLE model_calibrations (
          model TEXT NOT NULL,
          dimension INTEGER NOT NULL,
          calibration TEXT NOT NULL,
          fitted_at TEXT NOT NULL,
          PRIMARY KEY (model, dimension)
        );
      `);
    },
  },
  {
    version: 11,
    name: 'memories waiting for their vector',
    up(db) {
      // A memory stored (or re-texted) while the embedding endpoint was down has no row in memory_vectors (its
      // vector is null) until the backfill embeds it (core/backfill.ts): vector_pending says so, and
      // vector_claimed_until is a backfill worker's lease on it. The partial index holds the pending ones only
      // (usually none), for the backlog's count and the claim.
      db.exec(`
        ALTER TABLE memories ADD COLUMN vector_pending INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE memories ADD COLUMN vector_claimed_until TEXT;
        CREATE INDEX memories_vector_pending ON memories(updated_at, rowid) WHERE vector_pending = 1;
      `);
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
