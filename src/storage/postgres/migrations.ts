import type { QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { MemoryError } from '../../core/errors.js';
import { textKey } from '../../core/text-key.js';
import { wordIndexOf } from '../../core/text/analyze.js';
import { writeFields } from './filters.js';
import { nfcIdentifiers } from './nfc-ids.js';
import { TERMS_ARRAY } from './words.js';
import { assertSchemaName, withTransaction, type Pool, type PoolClient } from './connection.js';

/**
 * Schema migrations for PostgreSQL, mirroring the SQLite backend's tables. Never edit a released migration: add
 * a new one. The vector column and its index are not here: their dimension depends on the embedding model and
 * they are created by vector-index.ts when the model is declared, as pgvector's `vector` or, where the server has
 * no pgvector, as plain bytes (vector-storage.ts).
 *
 * Every query of the store names a user (recall, list, delete-all) or a memory id, and every table that grows
 * with use (memories, idempotency_keys) can be distributed by user_id or key (e.g. Citus), with apps, api_keys
 * and meta as small reference tables. A distributed memories table would also need user_id in its primary and
 * unique keys; id and uuid are random, so their uniqueness then rests on their 72 and 122 random bits.
 */
export interface PgMigration {
  version: number;
  name: string;
  up: (client: PoolClient) => Promise<void>;
}

export const MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'apps, keys, memories with word index, idempotency, meta, rate buckets',
    async up(client) {
      await createVectorExtension(client);
      await ddl(
        client,
        `

        CREATE TABLE apps (
          id uuid PRIMARY KEY,
          slug text NOT NULL UNIQUE,
          created_at timestamptz NOT NULL
        );

        CREATE TABLE api_keys (
          id text PRIMARY KEY,
          prefix text NOT NULL,
          hash text NOT NULL UNIQUE,
          app_id uuid REFERENCES apps(id),
          label text,
          created_at timestamptz NOT NULL,
          revoked_at timestamptz
        );

        -- id is compared byte-wise ("C"), as SQLite and the ranker's tie-break do, whatever the database's locale.
        -- metadata is json, not jsonb: kept as sent (key order, \\u0000 escapes), as SQLite keeps it.
        -- text_search and doc_length feed the word side of recall (words.ts): 'english' stems and drops stop
        -- words; doc_length (distinct lexemes) is BM25's document length, stored so that the average over a
        -- user's memories is an index-only scan of the indexes below.
        CREATE TABLE memories (
          id text COLLATE "C" PRIMARY KEY,
          uuid uuid NOT NULL UNIQUE,
          user_id text NOT NULL,
          app_id uuid NOT NULL REFERENCES apps(id),
          text text NOT NULL,
          metadata json NOT NULL DEFAULT '{}',
          created_at timestamptz NOT NULL,
          text_search tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
          doc_length integer GENERATED ALWAYS AS (length(to_tsvector('english', text))) STORED
        );
        -- List (newest first, then id), delete, recall's neighbours and statistics, with and without an app.
        CREATE INDEX memories_user_created ON memories (user_id, created_at, id) INCLUDE (doc_length);
        CREATE INDEX memories_user_app_created ON memories (user_id, app_id, created_at, id) INCLUDE (doc_length);
        CREATE INDEX memories_text_search ON memories USING gin (text_search);

        CREATE TABLE idempotency_keys (
          key_id text NOT NULL,
          key text NOT NULL,
          request_hash text NOT NULL,
          response text NOT NULL,
          created_at timestamptz NOT NULL,
          PRIMARY KEY (key_id, key)
        );
        CREATE INDEX idempotency_created ON idempotency_keys (created_at);

        CREATE TABLE meta (
          key text PRIMARY KEY,
          value text NOT NULL
        );

        -- Token buckets of the rate limiter, shared by every node (pg-rate-limiter.ts).
        CREATE TABLE rate_buckets (
          key_id text PRIMARY KEY,
          tokens double precision NOT NULL,
          allowed boolean NOT NULL,
          updated_at timestamptz NOT NULL
        );
      `,
      );
    },
  },
  {
    version: 2,
    name: 'oldest-first index',
    async up(client) {
      // `agent-memory export` reads every user's memories oldest first, a page at a time: without this index each
      // page would sort the whole table.
      await ddl(client, 'CREATE INDEX memories_created ON memories (created_at, id)');
    },
  },
  {
    version: 3,
    name: 'lifecycle: updated_at, expires_at, duplicate key, metadata fields',
    async up(client) {
      await ddl(
        client,
        `
        ALTER TABLE memories ADD COLUMN updated_at timestamptz;
        UPDATE memories SET updated_at = created_at;
        ALTER TABLE memories ALTER COLUMN updated_at SET NOT NULL;
        ALTER TABLE memories ADD COLUMN expires_at timestamptz;
        ALTER TABLE memories ADD COLUMN text_key text;
        -- Top-level scalar metadata entries, for filters: one index lookup per key instead of parsing every row.
        CREATE TABLE memory_fields (
          user_id text NOT NULL,
          key text NOT NULL,
          value text NOT NULL,
          memory_id text COLLATE "C" NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
          PRIMARY KEY (user_id, key, value, memory_id)
        );
        CREATE INDEX memory_fields_memory ON memory_fields (memory_id);
      `,
      );
      // The duplicate key and the fields are computed in JavaScript (core/text-key.ts, core/metadata-fields.ts), as
      // for every new row, so that old and new rows, and both backends, agree to the bit.
      for (let after = ''; ; ) {
        const { rows } = await longQuery<{ id: string; user_id: string; text: string; metadata: Record<string, unknown> }>(
          client,
          'SELECT id, user_id, text, metadata FROM memories WHERE id > $1 ORDER BY id LIMIT 1000',
          [after],
        );
        if (rows.length === 0) break;
        await longQuery(client, 'UPDATE memories m SET text_key = t.k FROM unnest($1::text[], $2::text[]) t(id, k) WHERE m.id = t.id', [
          rows.map((r) => r.id),
          rows.map((r) => textKey(r.text)),
        ]);
        await writeFields(client, rows.map((r) => ({ id: r.id, userId: r.user_id, metadata: r.metadata })));
        after = rows[rows.length - 1]!.id;
      }
      await ddl(
        client,
        `
        ALTER TABLE memories ALTER COLUMN text_key SET NOT NULL;
        -- Every read now asks whether a memory is live: with expires_at in the list indexes, counts and pages stay
        -- index-only scans.
        DROP INDEX memories_user_created;
        CREATE INDEX memories_user_created ON memories (user_id, created_at, id) INCLUDE (doc_length, expires_at);
        DROP INDEX memories_user_app_created;
        CREATE INDEX memories_user_app_created ON memories (user_id, app_id, created_at, id) INCLUDE (doc_length, expires_at);
        -- A store looks for a live memory of the same user, app and normalised text.
        CREATE INDEX memories_text_key ON memories (user_id, app_id, text_key);
        -- Purging expired memories; most memories never expire.
        CREATE INDEX memories_expires ON memories (expires_at) WHERE expires_at IS NOT NULL;
      `,
      );
    },
  },
  {
    version: 4,
    name: 'words in every language',
    async up(client) {
      // The word index was to_tsvector('english', text): English stemming and stop words for every language, and
      // the parser's idea of a word (a Chinese sentence is one). It now holds the terms of core's analysis
      // (core/text/analyze.ts), the same as SQLite's, space-separated and searched as an array (GIN), so that a term
      // matches exactly the memories it matches on SQLite, in any script and whatever the server's locale.
      await ddl(
        client,
        `
        ALTER TABLE memories DROP COLUMN text_search, DROP COLUMN doc_length;
        ALTER TABLE memories ADD COLUMN language text NOT NULL DEFAULT 'und';
        ALTER TABLE memories ADD COLUMN terms text NOT NULL DEFAULT '';
        DROP INDEX IF EXISTS memories_user_created;
        CREATE INDEX memories_user_created ON memories (user_id, created_at, id) INCLUDE (expires_at);
        DROP INDEX IF EXISTS memories_user_app_created;
        CREATE INDEX memories_user_app_created ON memories (user_id, app_id, created_at, id) INCLUDE (expires_at);
      `,
      );
      for (let after = ''; ; ) {
        const { rows } = await longQuery<{ id: string; text: string }>(client, 'SELECT id, text FROM memories WHERE id > $1 ORDER BY id LIMIT 1000', [after]);
        if (rows.length === 0) break;
        const entries = rows.map((r) => wordIndexOf(r.text));
        await longQuery(
          client,
          'UPDATE memories m SET language = t.l, terms = t.w FROM unnest($1::text[], $2::text[], $3::text[]) t(id, l, w) WHERE m.id = t.id',
          [rows.map((r) => r.id), entries.map((e) => e.language), entries.map((e) => e.terms.join(' '))],
        );
        after = rows[rows.length - 1]!.id;
      }
      await ddl(client, `CREATE INDEX memories_terms ON memories USING gin ((${TERMS_ARRAY}))`);
    },
  },
  {
    version: 5,
    name: 'caller keys',
    async up(client) {
      // A caller's own key for a memory (PUT /v1/memories/by-key/{key}): unique within the user and app. The
      // partial unique index is the conflict target of the upsert (INSERT ... ON CONFLICT), so that nodes storing
      // one key at once end with one memory; COLLATE "C" compares keys byte-wise, as SQLite does.
      await ddl(
        client,
        `
        ALTER TABLE memories ADD COLUMN key text COLLATE "C";
        CREATE UNIQUE INDEX memories_key ON memories (user_id, app_id, key) WHERE key IS NOT NULL;
      `,
      );
    },
  },
  {
    version: 6,
    name: 'oauth: clients, pending consents, codes, tokens',
    async up(client) {
      // The built-in OAuth authorization server (core/oauth). Codes, tokens and CSRF tokens are kept as SHA-256.
      await ddl(
        client,
        `
        CREATE TABLE oauth_clients (
          id text PRIMARY KEY,
          metadata jsonb NOT NULL,
          name text,
          redirect_uris jsonb NOT NULL,
          secret_hash text,
          created_at timestamptz NOT NULL,
          revoked_at timestamptz
        );
        CREATE TABLE oauth_pending (
          id text PRIMARY KEY,
          csrf_hash text NOT NULL,
          client_id text NOT NULL,
          redirect_uri text NOT NULL,
          code_challenge text NOT NULL,
          state text,
          scopes text NOT NULL,
          resource text NOT NULL,
          expires_at timestamptz NOT NULL
        );
        CREATE INDEX oauth_pending_expires ON oauth_pending (expires_at);
        CREATE TABLE oauth_codes (
          hash text PRIMARY KEY,
          client_id text NOT NULL,
          key_id text NOT NULL,
          redirect_uri text NOT NULL,
          code_challenge text NOT NULL,
          scopes text NOT NULL,
          resource text NOT NULL,
          family_id text NOT NULL,
          expires_at timestamptz NOT NULL,
          used_at timestamptz
        );
        CREATE INDEX oauth_codes_family ON oauth_codes (family_id);
        CREATE INDEX oauth_codes_expires ON oauth_codes (expires_at);
        CREATE TABLE oauth_tokens (
          hash text PRIMARY KEY,
          kind text NOT NULL,
          family_id text NOT NULL,
          client_id text NOT NULL,
          key_id text NOT NULL,
          scopes text NOT NULL,
          resource text NOT NULL,
          expires_at timestamptz NOT NULL,
          created_at timestamptz NOT NULL,
          used_at timestamptz,
          revoked_at timestamptz
        );
        CREATE INDEX oauth_tokens_family ON oauth_tokens (family_id);
        CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at);
      `,
      );
    },
  },
  {
    version: 7,
    name: 'user ids and caller keys in Unicode NFC',
    up: (client) => nfcIdentifiers(client),
  },
  {
    version: 8,
    name: 'oauth: when a client first completed an authorization',
    async up(client) {
      // Registered clients that never completed an authorization are capped and deleted after a while (anyone may
      // register one). Clients already holding a code or token count as authorized from their registration.
      await ddl(
        client,
        `
        ALTER TABLE oauth_clients ADD COLUMN authorized_at timestamptz;
        UPDATE oauth_clients SET authorized_at = created_at
          WHERE id IN (SELECT client_id FROM oauth_codes UNION SELECT client_id FROM oauth_tokens);
        CREATE INDEX oauth_clients_unused ON oauth_clients (created_at) WHERE authorized_at IS NULL;
      `,
      );
    },
  },
  {
    version: 9,
    name: 'score calibrations fitted by the service, per model',
    async up(client) {
      // agent-memory calibrate (core/calibration): one row per model name and dimension, read by every node.
      await ddl(
        client,
        `
        CREATE TABLE model_calibrations (
          model text NOT NULL,
          dimension integer NOT NULL,
          calibration jsonb NOT NULL,
          fitted_at timestamptz NOT NULL,
          PRIMARY KEY (model, dimension)
        );
      `,
      );
    },
  },
  {
    version: 10,
    name: 'memories waiting for their vector',
    async up(client) {
      // A memory stored (or re-texted) while the embedding endpoint was down has a NULL embedding (the column,
      // made by vector-index.ts, is nullable) until the backfill embeds it (core/backfill.ts). vector_pending says
      // so (the column may not exist yet here, and a flag is indexable); vector_claimed_until is a backfill node's
      // lease on it. The partial index holds the pending ones only (usually none), for the backlog and the claim.
      await ddl(
        client,
        `
        ALTER TABLE memories ADD COLUMN vector_pending boolean NOT NULL DEFAULT false;
        ALTER TABLE memories ADD COLUMN vector_claimed_until timestamptz;
        CREATE INDEX memories_vector_pending ON memories (updated_at, id) WHERE vector_pending;
      `,
      );
    },
  },
];

/**
 * Enables pgvector when the server has it. When it is not installed (0A000, or 58P01 before PostgreSQL 15's
 * wording) or this role may not create it (42501), the database keeps its vectors in a plain column instead
 * (vector-storage.ts; PgStore.open logs a warning): the savepoint undoes the failed statement and nothing else.
 * The tables of both modes are the same; only the embedding column, made when a model is declared, differs.
 */
async function createVectorExtension(client: PoolClient): Promise<void> {
  await client.query('SAVEPOINT vector_extension');
  try {
    await ddl(client, 'CREATE EXTENSION IF NOT EXISTS vector');
    await client.query('RELEASE SAVEPOINT vector_extension');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== '42501' && code !== '0A000' && code !== '58P01') throw error;
    await client.query('ROLLBACK TO SAVEPOINT vector_extension');
  }
}

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/**
 * Advisory lock keys (two int4: 'agme' and a purpose), taken with pg_advisory_xact_lock so that they are released
 * by the transaction's end, even when the node holding them dies.
 */
export const LOCK_NAMESPACE = 0x61676d65;
export const MIGRATION_LOCK = 1;
export const MODEL_LOCK = 2;
/** First key of the per-text locks that make a store's duplicate check and insert atomic across nodes. */
export const DUPLICATE_LOCK_NAMESPACE = 0x61676d64;

/**
 * Migrations, index builds and the wait for another node's migration may take longer than a request's timeouts:
 * their statements run with this one, on the server (SET LOCAL) and on the client (query_timeout).
 */
export const DDL_TIMEOUT_MS = 10 * 60_000;

/** One statement with the long timeout (after lockForDdl, which sets the server's side of it). */
export function longQuery<R extends QueryResultRow>(client: PoolClient, text: string, values: unknown[] = []): Promise<QueryResult<R>> {
  // pg reads a per-query query_timeout (client.js) that @types/pg does not declare.
  const config: QueryConfig & { query_timeout: number } = { text, values, query_timeout: DDL_TIMEOUT_MS };
  return client.query<R>(config);
}

/** One DDL statement (or lock wait) with the long timeout. */
export async function ddl(client: PoolClient, text: string, values: unknown[] = []): Promise<void> {
  await longQuery(client, text, values);
}

/** Starts a DDL transaction's work: the long server-side timeout, then the advisory lock `purpose`. */
export async function lockForDdl(client: PoolClient, purpose: number): Promise<void> {
  await client.query(`SET LOCAL statement_timeout = ${DDL_TIMEOUT_MS}`);
  await ddl(client, 'SELECT pg_advisory_xact_lock($1, $2)', [LOCK_NAMESPACE, purpose]);
}

async function versionIn(client: PoolClient): Promise<number> {
  await ddl(
    client,
    'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)',
  );
  const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
  return rows[0]?.v ?? 0;
}

/** Creates the store's own schema, if it has one; nodes starting together serialise on the migration lock. */
export function ensureSchema(pool: Pool, schema: string): Promise<void> {
  assertSchemaName(schema);
  return withTransaction(pool, async (client) => {
    await lockForDdl(client, MIGRATION_LOCK);
    // The name was checked against a plain-identifier pattern (connection.ts): it needs no quoting.
    await ddl(client, `CREATE SCHEMA IF NOT EXISTS ${schema}`);
  });
}

/** The schema version the database is at (0 for an empty one). */
export function currentVersion(pool: Pool): Promise<number> {
  return withTransaction(pool, versionIn);
}

/**
 * Brings the database to the latest version and returns the versions applied; refuses a database written by a
 * newer release. Many nodes may start at once: the advisory lock makes all but one wait, and those find the
 * work done. All pending migrations apply in one transaction (PostgreSQL's DDL is transactional): a failure
 * leaves the previous version intact.
 *
 * PGlite (the tests' server) serves every connection from one session, where advisory locks do not exclude;
 * there its socket server runs one transaction at a time instead.
 */
export function migrate(pool: Pool, migrations: readonly PgMigration[] = MIGRATIONS): Promise<number[]> {
  return withTransaction(pool, async (client) => {
    await lockForDdl(client, MIGRATION_LOCK);
    const start = await versionIn(client);
    const latest = migrations[migrations.length - 1]?.version ?? 0;
    if (start > latest) {
      throw new MemoryError(
        'unavailable',
        `The database schema is version ${start}, newer than this release understands (${latest}). Upgrade agent-memory.`,
      );
    }
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= start) continue;
      await migration.up(client);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())', [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    return applied;
  });
}
