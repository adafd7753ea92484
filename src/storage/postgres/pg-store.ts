import { MemoryError } from '../../core/errors.js';
import { assertModelUnchanged } from '../../core/model-check.js';
import { isUuid, newUuid, type MemoryRef } from '../../core/ids.js';
import { silentLogger } from '../../core/logger.js';
import type {
  AppScope,
  Candidate,
  CandidateQuery,
  EmbeddingSwap,
  IdempotencyClaim,
  IdempotencyRecord,
  InsertOutcome,
  KeyedMemory,
  KeySlot,
  ListQuery,
  MemoryChange,
  MemoryFilter,
  MemoryPage,
  MemoryScan,
  MemoryStore,
  ModelRecord,
  NewMemory,
  PendingVector,
  FilledVector,
  ScanPage,
  StoreCapabilities,
  TermMatches,
  UpdateOutcome,
  UpsertOutcome,
  UserListQuery,
  WordMatchQuery,
} from '../../core/store.js';
import { textKey } from '../../core/text-key.js';
import type { UserSummary } from '../../core/schemas.js';
import type {
  FoundOAuthToken,
  OAuthClientRecord,
  OAuthCodeRecord,
  OAuthPendingRecord,
  OAuthTokenRecord,
} from '../../core/oauth/records.js';
import type { ApiKeyRecord, App, MemoryRecord } from '../../core/types.js';
import {
  createPool,
  query,
  withClient,
  withTransaction,
  type PgConnectionOptions,
  type Pool,
  type PoolClient,
  type TransactionMode,
} from './connection.js';
import { translatePgError } from './errors.js';
import { filterSql, liveSql, writeFields } from './filters.js';
import { DUPLICATE_LOCK_NAMESPACE, ensureSchema, migrate } from './migrations.js';
import { PgOAuthRows } from './oauth.js';
import { RECALL_TRANSACTION, recallCandidates } from './recall.js';
import { replaceEmbeddings } from './reembed.js';
import { retryConflicts } from './retry.js';
import { findWordMatches, wordColumns } from './words.js';
import {
  APP_COLUMNS,
  KEY_COLUMNS,
  MEMORY_COLUMNS,
  iso,
  toApp,
  toKey,
  toMemory,
  type AppRow,
  type CountRow,
  type IdempotencyRow,
  type KeyRow,
  type MemoryRow,
} from './rows.js';
import { scanMemories } from './scan.js';
import { Params, scopeFilter } from './sql.js';
import { ensureVectorIndex, pgvectorVersion, readModelRecord } from './vector-index.js';
import { columnMode, newColumnMode, vectorStorage, type VectorMode, type VectorStorage } from './vector-storage.js';

export interface PgStoreOptions extends PgConnectionOptions {
  /** Users (scopes) with at most this many memories are searched exactly; larger ones by HNSW (default 10,000). */
  exactScanLimit?: number;
  /**
   * false: a new vector column is a plain one even where pgvector is available (tests and comparisons of the two
   * modes on one server). An existing column keeps its type. Default true.
   */
  pgvector?: boolean;
}

interface ExportRow {
  id: string;
  uuid: string;
  user_id: string;
  app_id: string;
  text: string;
  metadata: string;
  created_at: Date;
  updated_at: Date;
  expires_at: Date | null;
  key: string | null;
  embedding: string | Buffer | null;
  vector_pending: boolean;
}

/** For the warning of the plain mode: what the operator can do about it. */
async function pgvectorState(pool: Pool, version: [number, number, number] | undefined): Promise<string> {
  if (version !== undefined) return `${version.join('.')} is enabled, but this database keeps plain vectors: run reembed --force to move onto it`;
  const { rows } = await query(pool, "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  return rows.length > 0
    ? 'installed on the server but not enabled in this database: run CREATE EXTENSION vector as its owner, then reembed --force'
    : 'not installed on the server';
}

function toRecord(row: IdempotencyRow): IdempotencyRecord {
  return { requestHash: row.request_hash, response: row.response, createdAt: iso(row.created_at) };
}

/**
 * What PostgreSQL cannot store, refused as field problems (422) rather than failing as server errors. The shared
 * schemas refuse NUL in text already; it is checked again here for rows that reach the store without them
 * (`agent-memory copy` moves rows as they are). The year-1 limit is PostgreSQL's alone (SQLite stores any ISO string).
 */
function assertStorable(memory: NewMemory): void {
  const refuse = (path: string, message: string): never => {
    throw new MemoryError('validation_error', message, { details: [{ path, message }] });
  };
  // text cannot hold NUL.
  if (memory.text.includes('\u0000')) refuse('text', 'text must not contain the NUL character (U+0000).');
  // timestamptz starts at 4713 BC but has no year 0, which ISO 8601 (and toISOString) call 1 BC.
  if (memory.createdAt < '0001') refuse('createdAt', 'createdAt must be in the year 1 or later.');
}

/** The app filter of queries that address memories by id: a bound key sees one app, an unbound key all. */
function appFilter(alias: string, scope: AppScope, params: Params): string {
  return scope.appId === null ? '' : `AND ${alias}.app_id = ${params.add(scope.appId)}`;
}

/**
 * The networked backend: PostgreSQL with pgvector, shared by any number of stateless nodes. Every change that
 * spans rows (a memory with its idempotency claim) runs in one transaction; races that several nodes can lose
 * (creating an app, claiming an Idempotency-Key) are settled by unique constraints with ON CONFLICT DO NOTHING
 * and a re-read, never by a read-then-write that two nodes could both pass.
 */
export class PgStore implements MemoryStore {
  readonly capabilities: StoreCapabilities = Object.freeze({ singleWriter: false, backend: 'postgres' });
  readonly #pool: Pool;
  readonly #oauth: PgOAuthRows;
  readonly #exactScanLimit: number;
  readonly #iterativeScan: boolean;
  readonly #allowPgvector: boolean;
  /** How the vectors are kept: the column's type once it exists, else what a new column would be. */
  #vectors: VectorStorage;
  #closed = false;
  /** The model this store's caller embeds with (useModel), checked against the database's on every vector write and search. */
  #declared: ModelRecord | undefined;

  /** Connects, migrates the schema and checks pgvector; the pool is closed again if any of it fails. */
  static async open(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
    const pool = createPool(url, options);
    try {
      if (options.schema !== undefined) await ensureSchema(pool, options.schema);
      await migrate(pool);
      const allowPgvector = options.pgvector ?? true;
      const mode = await withClient(pool, async (client) => (await columnMode(client)) ?? (await newColumnMode(client, allowPgvector)));
      const logger = options.logger ?? silentLogger;
      const version = await pgvectorVersion(pool);
      const iterative = version !== undefined && (version[0] > 0 || version[1] >= 8);
      if (mode === 'plain') {
        logger.warn(
          'pgvector is not available: vectors are kept in a plain column and each recall compares all of the ' +
            "user's vectors exactly, in time that grows with the user's memories (README: Scaling out)",
          { pgvector: await pgvectorState(pool, version) },
        );
      } else if (!iterative) {
        logger.warn('pgvector is older than 0.8: recall for large users may miss memories', {
          pgvector: version?.join('.') ?? 'unknown',
        });
      }
      return new PgStore(pool, { exactScanLimit: options.exactScanLimit ?? 10_000, iterativeScan: iterative, allowPgvector, mode });
    } catch (error) {
      await pool.end().catch(() => undefined);
      translatePgError(error);
    }
  }

  private constructor(
    pool: Pool,
    settings: { exactScanLimit: number; iterativeScan: boolean; allowPgvector: boolean; mode: VectorMode },
  ) {
    this.#pool = pool;
    this.#oauth = new PgOAuthRows(pool);
    this.#exactScanLimit = settings.exactScanLimit;
    this.#iterativeScan = settings.iterativeScan;
    this.#allowPgvector = settings.allowPgvector;
    this.#vectors = vectorStorage(settings.mode);
  }

  /** 'pgvector', or 'plain' where the server has no pgvector (vector-storage.ts). */
  get vectorMode(): VectorMode {
    return this.#vectors.mode;
  }

  /** The pool, for what lives beside the store on the same database (the rate limiter, maintenance commands). */
  get pool(): Pool {
    return this.#pool;
  }

  /**
   * Writes or searches vectors, then makes sure they were of the database's model (core/model-check.ts). The check
   * runs after the work, in the same transaction: a reembed swap holds the memories table until it commits, so
   * work that waited for it reads the new model record here and is rolled back. A vector of the old dimension fails
   * inside the work already: then the model is read afresh to tell that apart from any other failure.
   */
  async #withModel<T>(work: (client: PoolClient) => Promise<T>, options?: TransactionMode): Promise<T> {
    try {
      return await withTransaction(
        this.#pool,
        async (client) => {
          const result = await work(client);
          assertModelUnchanged(this.#declared, await readModelRecord(client));
          return result;
        },
        options,
      );
    } catch (error) {
      if (this.#declared !== undefined && !(error instanceof MemoryError)) {
        assertModelUnchanged(this.#declared, await withClient(this.#pool, readModelRecord).catch(() => this.#declared));
        await this.#followVectorColumn();
      }
      throw error;
    }
  }

  /**
   * A reembed elsewhere may have replaced the vector column with one of the other kind (a plain database moved onto
   * pgvector) under the same model: this node's statements then fail on the column's type. It follows the column
   * from now on, and this request answers 503, to be retried.
   */
  async #followVectorColumn(): Promise<void> {
    const mode = await withClient(this.#pool, columnMode).catch(() => undefined);
    if (mode === undefined || mode === this.#vectors.mode) return;
    this.#vectors = vectorStorage(mode);
    throw new MemoryError('unavailable', 'The vector column was rebuilt by a reembed; retry.', { retryAfterSeconds: 1 });
  }

  /**
   * Runs one unit of the store's work: again, when PostgreSQL rolled it back for a serialization failure or a
   * deadlock (retry.ts), unless `once` (work with effects outside the database); then a failure the database
   * may recover from becomes 503 'unavailable'.
   */
  async #run<T>(fn: () => Promise<T>, options: { once?: boolean } = {}): Promise<T> {
    if (this.#closed) throw new MemoryError('unavailable', 'The store is closed.');
    try {
      return await (options.once ? fn() : retryConflicts(fn));
    } catch (error) {
      translatePgError(error);
    }
  }

  #one<R extends object>(text: string, values: unknown[]): Promise<R | undefined> {
    return query<R>(this.#pool, text, values).then((r) => r.rows[0]);
  }

  // ---- Apps ---------------------------------------------------------------------------------------------------

  findApp(ref: string): Promise<App | undefined> {
    return this.#run(async () => {
      // A slug may itself look like a UUID: match either, as the SQLite store does.
      const row = await this.#one<AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE slug = $1 OR id = $2::uuid`, [
        ref,
        isUuid(ref) ? ref.toLowerCase() : null,
      ]);
      return row ? toApp(row) : undefined;
    });
  }

  ensureApp(slug: string): Promise<App> {
    return this.#run(async () => {
      // Two statements, not one: a single statement's snapshot would not see the row that a concurrent node
      // committed while our insert waited on it; the SELECT after it does.
      await query(this.#pool, 'INSERT INTO apps (id, slug, created_at) VALUES ($1, $2, $3) ON CONFLICT (slug) DO NOTHING', [
        newUuid(),
        slug,
        new Date().toISOString(),
      ]);
      const row = await this.#one<AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE slug = $1`, [slug]);
      if (!row) throw new Error(`App "${slug}" vanished after its creation.`);
      return toApp(row);
    });
  }

  // ---- Memories -----------------------------------------------------------------------------------------------

  insertMemory(memory: NewMemory, idempotency?: IdempotencyClaim): Promise<InsertOutcome> {
    return this.#run(() => {
      assertStorable(memory);
      return this.#withModel(async (client): Promise<InsertOutcome> => {
        if (idempotency) {
          const earlier = await this.#claim(client, idempotency);
          if (earlier) return { kind: 'replayed', record: earlier };
        }
        const key = textKey(memory.text);
        const duplicate = await this.#lockedDuplicate(client, memory.userId, memory.appId, key, null);
        if (duplicate) {
          if (idempotency) {
            await client.query('UPDATE idempotency_keys SET response = $3 WHERE key_id = $1 AND key = $2', [
              idempotency.keyId,
              idempotency.key,
              idempotency.duplicateResponse(duplicate),
            ]);
          }
          return { kind: 'duplicate', memory: duplicate };
        }
        await client.query(`INSERT INTO memories (${ROW_COLUMNS}) VALUES (${this.#rowPlaceholders()})`, this.#rowValues(memory));
        await writeFields(client, [memory]);
        return { kind: 'created' };
      });
    });
  }

  /**
   * Claims the Idempotency-Key before the memory is written, in the same transaction. ON CONFLICT DO NOTHING
   * makes a second node with the same key wait for the first one's transaction: if it commits, the insert does
   * nothing and the re-read (a new statement, so a new snapshot) returns the first one's record to replay; if it
   * rolls back, the second node's claim goes through. Either way one memory is stored.
   */
  async #claim(client: PoolClient, claim: IdempotencyClaim): Promise<IdempotencyRecord | undefined> {
    await client.query('DELETE FROM idempotency_keys WHERE key_id = $1 AND key = $2 AND created_at < $3', [
      claim.keyId,
      claim.key,
      claim.notBefore,
    ]);
    const inserted = await client.query(
      `INSERT INTO idempotency_keys (key_id, key, request_hash, response, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (key_id, key) DO NOTHING`,
      [claim.keyId, claim.key, claim.requestHash, claim.response, new Date().toISOString()],
    );
    if (inserted.rowCount === 1) return undefined;
    const { rows } = await client.query<IdempotencyRow>(
      'SELECT request_hash, response, created_at FROM idempotency_keys WHERE key_id = $1 AND key = $2',
      [claim.keyId, claim.key],
    );
    const row = rows[0];
    if (!row) throw new MemoryError('unavailable', 'The database is busy; retry shortly.', { retryAfterSeconds: 1 });
    return toRecord(row);
  }

  /**
   * The oldest live memory of the user and app with this duplicate key (other than `exceptId`), after taking the
   * key's lock for the rest of the transaction: a concurrent store of the same text on any node waits here until
   * this transaction ends, then its own look (a new statement, a new snapshot) sees what this one wrote.
   */
  async #lockedDuplicate(client: PoolClient, userId: string, appId: string, key: string, exceptId: string | null): Promise<MemoryRecord | undefined> {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [DUPLICATE_LOCK_NAMESPACE, `${userId}\u0001${appId}\u0001${key}`]);
    const p = new Params();
    const { rows } = await client.query<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM memories m JOIN apps a ON a.id = m.app_id
       WHERE m.user_id = ${p.add(userId)} AND m.app_id = ${p.add(appId)}::uuid AND m.text_key = ${p.add(key)}
         AND m.id IS DISTINCT FROM ${p.add(exceptId)}::text ${liveSql('m', new Date().toISOString(), p)}
       ORDER BY m.created_at, m.id LIMIT 1`,
      p.values,
    );
    return rows[0] ? toMemory(rows[0]) : undefined;
  }

  /** One live memory of the scope by id or UUID; `lock` takes its row lock for an update. */
  async #findRow(client: PoolClient | Pool, ref: MemoryRef, scope: AppScope, now: string, lock = false): Promise<MemoryRow | undefined> {
    const p = new Params();
    const column = ref.kind === 'id' ? 'm.id' : 'm.uuid';
    const cast = ref.kind === 'id' ? 'text' : 'uuid';
    const { rows } = await client.query<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM memories m JOIN apps a ON a.id = m.app_id
       WHERE ${column} = ${p.add(ref.value)}::${cast} ${appFilter('m', scope, p)} ${liveSql('m', now, p)}
       ${lock ? 'FOR UPDATE OF m' : ''}`,
      p.values,
    );
    return rows[0];
  }

  getMemory(ref: MemoryRef, scope: AppScope, now?: string): Promise<MemoryRecord | undefined> {
    return this.#run(async () => {
      const row = await this.#findRow(this.#pool, ref, scope, now ?? new Date().toISOString());
      return row ? toMemory(row) : undefined;
    });
  }

  updateMemory(ref: MemoryRef, scope: AppScope, change: MemoryChange): Promise<UpdateOutcome> {
    return this.#run(() => {
      const newText = change.text;
      const work = async (client: PoolClient): Promise<UpdateOutcome> => {
        const row = await this.#findRow(client, ref, scope, change.now, true);
        if (!row) return { kind: 'not_found' };
        if (newText !== undefined) {
          const key = textKey(newText.text);
          const duplicate = await this.#lockedDuplicate(client, row.user_id, row.app_id, key, row.id);
          if (duplicate) return { kind: 'duplicate', memory: duplicate };
          const words = wordColumns(newText.text);
          // A claim on the old text is void: the backfill's write compares the text and leaves this one pending.
          await client.query(
            `UPDATE memories SET text = $2, text_key = $3, embedding = $4::${this.#vectors.sqlType}, language = $5, terms = $6,
               vector_pending = $7, vector_claimed_until = NULL WHERE id = $1`,
            [row.id, newText.text, key, this.#vectorParam(newText.embedding), words.language, words.terms, newText.embedding === null],
          );
        }
        if (change.metadata !== undefined) {
          await client.query('UPDATE memories SET metadata = $2::json WHERE id = $1', [row.id, JSON.stringify(change.metadata)]);
          await client.query('DELETE FROM memory_fields WHERE memory_id = $1', [row.id]);
          await writeFields(client, [{ id: row.id, userId: row.user_id, metadata: change.metadata }]);
        }
        if (change.expiresAt !== undefined) await client.query('UPDATE memories SET expires_at = $2 WHERE id = $1', [row.id, change.expiresAt]);
        await client.query('UPDATE memories SET updated_at = $2 WHERE id = $1', [row.id, change.updatedAt]);
        const updated = await this.#findRow(client, { kind: 'id', value: row.id }, scope, change.now);
        if (!updated) throw new Error(`The memory ${row.id} vanished inside its own update.`);
        return { kind: 'updated', memory: toMemory(updated) };
      };
      // A new vector is checked against the database's model like any other vector write.
      return newText !== undefined ? this.#withModel(work) : withTransaction(this.#pool, work);
    });
  }

  // ---- Caller keys --------------------------------------------------------------------------------------------

  /**
   * One statement settles the race: INSERT ... ON CONFLICT on the partial unique index (user_id, app_id, key). Of
   * nodes storing one key at once, one inserts; the others wait for its transaction, then update the row it made.
   * An expired holder is deleted first (its key is free); a node racing that delete waits for it too.
   */
  upsertMemory(memory: KeyedMemory, now: string): Promise<UpsertOutcome> {
    return this.#run(() => {
      assertStorable(memory);
      return this.#withModel(async (client): Promise<UpsertOutcome> => {
        await client.query(
          'DELETE FROM memories WHERE user_id = $1 AND app_id = $2::uuid AND key = $3 AND expires_at <= $4::timestamptz',
          [memory.userId, memory.appId, memory.key, now],
        );
        const { rows } = await client.query<{ id: string }>(
          `INSERT INTO memories (${ROW_COLUMNS}) VALUES (${this.#rowPlaceholders()})
           ON CONFLICT (user_id, app_id, key) WHERE key IS NOT NULL DO UPDATE SET
             text = EXCLUDED.text, text_key = EXCLUDED.text_key, metadata = EXCLUDED.metadata,
             expires_at = EXCLUDED.expires_at, embedding = EXCLUDED.embedding, updated_at = $16::timestamptz,
             language = EXCLUDED.language, terms = EXCLUDED.terms, vector_pending = EXCLUDED.vector_pending,
             vector_claimed_until = NULL
           RETURNING id`,
          [...this.#rowValues(memory), now],
        );
        const id = rows[0]?.id;
        if (id === undefined) throw new Error('The upsert returned no row.');
        // The row keeps its id when it was updated: its metadata fields are rewritten.
        const created = id === memory.id;
        if (!created) await client.query('DELETE FROM memory_fields WHERE memory_id = $1', [id]);
        await writeFields(client, [{ id, userId: memory.userId, metadata: memory.metadata }]);
        const row = await this.#findRow(client, { kind: 'id', value: id }, { appId: null }, now);
        if (!row) throw new Error(`The memory ${id} vanished inside its own upsert.`);
        return { kind: created ? 'created' : 'updated', memory: toMemory(row) };
      });
    });
  }

  /** One new memory row's values, in the order of ROW_COLUMNS (a store and an upsert write the same row). */
  #rowValues(memory: NewMemory): unknown[] {
    const words = wordColumns(memory.text);
    return [
      memory.id,
      memory.uuid,
      memory.userId,
      memory.appId,
      memory.text,
      JSON.stringify(memory.metadata),
      memory.createdAt,
      memory.updatedAt ?? memory.createdAt,
      memory.expiresAt ?? null,
      textKey(memory.text),
      memory.key ?? null,
      this.#vectorParam(memory.embedding),
      words.language,
      words.terms,
      memory.embedding === null,
    ];
  }

  #rowPlaceholders(): string {
    return `$1, $2, $3, $4, $5, $6::json, $7, $8, $9, $10, $11, $12::${this.#vectors.sqlType}, $13, $14, $15`;
  }

  /** A vector as a parameter; NULL for a memory waiting for its vector. */
  #vectorParam(vector: Float32Array | null): string | Buffer | null {
    return vector === null ? null : this.#vectors.toParam(vector);
  }

  /** The memory holding a key (served by the unique index); `live` leaves out an expired one. */
  async #keyRow(client: PoolClient | Pool, slot: KeySlot, live: { now: string } | undefined): Promise<MemoryRow | undefined> {
    const p = new Params();
    const { rows } = await client.query<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM memories m JOIN apps a ON a.id = m.app_id
       WHERE m.user_id = ${p.add(slot.userId)} AND m.app_id = ${p.add(slot.appId)}::uuid AND m.key = ${p.add(slot.key)}
       ${live ? liveSql('m', live.now, p) : ''}`,
      p.values,
    );
    return rows[0];
  }

  getMemoryByKey(slot: KeySlot, now: string): Promise<MemoryRecord | undefined> {
    return this.#run(async () => {
      const row = await this.#keyRow(this.#pool, slot, { now });
      return row ? toMemory(row) : undefined;
    });
  }

  deleteMemoryByKey(slot: KeySlot, now: string): Promise<number> {
    return this.#run(async () => {
      // Fields go by cascade; an expired holder is left to purgeExpired, as deleteMemories leaves expired memories.
      const p = new Params();
      const result = await query(
        this.#pool,
        `DELETE FROM memories m WHERE m.user_id = ${p.add(slot.userId)} AND m.app_id = ${p.add(slot.appId)}::uuid
         AND m.key = ${p.add(slot.key)} ${liveSql('m', now, p)}`,
        p.values,
      );
      return result.rowCount ?? 0;
    });
  }

  findKeyHolder(slot: KeySlot): Promise<MemoryRecord | undefined> {
    return this.#run(async () => {
      const row = await this.#keyRow(this.#pool, slot, undefined);
      return row ? toMemory(row) : undefined;
    });
  }

  listMemories(q: ListQuery): Promise<{ items: MemoryRecord[]; total: number }> {
    return this.#run(() =>
      // One snapshot: the page and the total agree even while other nodes write.
      withTransaction(
        this.#pool,
        async (client) => {
          const p = new Params();
          const scope = `${scopeFilter('m', q.userId, q.scope, p)} ${filterSql('m', q.userId, q.filter, p)}`;
          const { rows: count } = await client.query<CountRow>(`SELECT count(*) AS n FROM memories m WHERE ${scope}`, p.values);
          const limit = p.add(q.limit);
          const offset = p.add(q.offset);
          const { rows } = await client.query<MemoryRow>(
            `SELECT ${MEMORY_COLUMNS} FROM memories m JOIN apps a ON a.id = m.app_id
             WHERE ${scope} ORDER BY m.created_at DESC, m.id DESC LIMIT ${limit} OFFSET ${offset}`,
            p.values,
          );
          return { items: rows.map(toMemory), total: Number(count[0]?.n ?? 0) };
        },
        { isolation: 'REPEATABLE READ', readOnly: true },
      ),
    );
  }

  listUsers(q: UserListQuery): Promise<{ items: UserSummary[]; total: number }> {
    return this.#run(() =>
      withTransaction(
        this.#pool,
        async (client) => {
          const p = new Params();
          // Live memories only: an expired one counts for nothing, as for every read.
          const where = `WHERE true ${q.scope.appId === null ? '' : `AND m.app_id = ${p.add(q.scope.appId)}`} ${liveSql('m', new Date().toISOString(), p)}`;
          const { rows: count } = await client.query<CountRow>(`SELECT count(DISTINCT m.user_id) AS n FROM memories m ${where}`, p.values);
          // COLLATE "C": user ids compare byte-wise, as on SQLite, whatever the database's collation.
          const { rows } = await client.query<{ user_id: string; n: string; newest: Date }>(
            `SELECT m.user_id, count(*) AS n, max(m.created_at) AS newest FROM memories m ${where}
             GROUP BY m.user_id ORDER BY newest DESC, m.user_id COLLATE "C" LIMIT ${p.add(q.limit)} OFFSET ${p.add(q.offset)}`,
            p.values,
          );
          const items = rows.map((r) => ({ userId: r.user_id, memoryCount: Number(r.n), newestMemoryAt: iso(r.newest) }));
          return { items, total: Number(count[0]?.n ?? 0) };
        },
        { isolation: 'REPEATABLE READ', readOnly: true },
      ),
    );
  }

  deleteMemories(refs: MemoryRef[], scope: AppScope): Promise<number> {
    return this.#run(async () => {
      if (refs.length === 0) return 0;
      // One statement: all of them or none.
      const p = new Params();
      const ids = p.add(refs.filter((r) => r.kind === 'id').map((r) => r.value));
      const uuids = p.add(refs.filter((r) => r.kind === 'uuid').map((r) => r.value));
      // Expired memories are not visible: they are left to purgeExpired.
      const result = await query(
        this.#pool,
        `DELETE FROM memories m WHERE (m.id = ANY(${ids}::text[]) OR m.uuid = ANY(${uuids}::uuid[])) ${appFilter('m', scope, p)}
         ${liveSql('m', new Date().toISOString(), p)}`,
        p.values,
      );
      return result.rowCount ?? 0;
    });
  }

  deleteUserMemories(userId: string, scope: AppScope, filter?: MemoryFilter): Promise<number> {
    return this.#run(async () => {
      const p = new Params();
      const where = `${scopeFilter('m', userId, scope, p)} ${filterSql('m', userId, filter, p)}`;
      const result = await query(this.#pool, `DELETE FROM memories m WHERE ${where}`, p.values);
      return result.rowCount ?? 0;
    });
  }

  purgeExpired(before: string, limit: number): Promise<number> {
    return this.#run(async () => {
      // SKIP LOCKED, as in pruneIdempotency: nodes purging at once share the rows out. Fields go by cascade.
      const result = await query(
        this.#pool,
        `DELETE FROM memories m
         USING (SELECT id FROM memories WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED) old
         WHERE m.id = old.id`,
        [before, limit],
      );
      return result.rowCount ?? 0;
    });
  }

  findWordMatches(q: WordMatchQuery): Promise<TermMatches[]> {
    return this.#run(() => findWordMatches(this.#pool, q));
  }

  recallCandidates(q: CandidateQuery): Promise<Candidate[]> {
    return this.#run(() =>
      this.#withModel(
        (client) =>
          recallCandidates(client, q, {
            vectors: this.#vectors.mode,
            exactScanLimit: this.#exactScanLimit,
            iterativeScan: this.#iterativeScan,
          }),
        RECALL_TRANSACTION,
      ),
    );
  }

  countMemories(): Promise<number> {
    return this.#run(async () => Number((await this.#one<CountRow>('SELECT count(*) AS n FROM memories', []))?.n ?? 0));
  }

  // ---- Memories waiting for their vector (core/backfill.ts) ----------------------------------------------------

  countPendingVectors(): Promise<number> {
    return this.#run(async () => Number((await this.#one<CountRow>('SELECT count(*) AS n FROM memories WHERE vector_pending', []))?.n ?? 0));
  }

  /**
   * Nodes claim at once: FOR UPDATE SKIP LOCKED passes over the rows another node's claim is taking, and the lease
   * (the database's clock, the same for every node) keeps a claimed row from the others until it is filled,
   * released, or the lease runs out (its node died). Each claim is its own short transaction: no lock is held
   * while the endpoint embeds.
   */
  claimPendingVectors(limit: number, leaseMs: number): Promise<PendingVector[]> {
    return this.#run(async () => {
      const { rows } = await query<PendingVector>(
        this.#pool,
        `UPDATE memories m SET vector_claimed_until = now() + make_interval(secs => $2::float8 / 1000)
         FROM (
           SELECT id FROM memories
           WHERE vector_pending AND (vector_claimed_until IS NULL OR vector_claimed_until <= now())
             AND (expires_at IS NULL OR expires_at > now())
           ORDER BY updated_at, id LIMIT $1
           FOR UPDATE SKIP LOCKED
         ) c
         WHERE m.id = c.id
         RETURNING m.id AS id, m.text AS text`,
        [limit, leaseMs],
      );
      return rows;
    });
  }

  fillPendingVectors(vectors: readonly FilledVector[]): Promise<number> {
    if (vectors.length === 0) return Promise.resolve(0);
    return this.#run(() =>
      // Checked against the database's model like any other vector write; only rows still pending with the text
      // that was embedded take the vector.
      this.#withModel(async (client) => {
        const { rowCount } = await client.query(
          `UPDATE memories m SET embedding = v.embedding, vector_pending = false, vector_claimed_until = NULL
           FROM unnest($1::text[], $2::text[], $3::${this.#vectors.sqlType}[]) AS v(id, text, embedding)
           WHERE m.id = v.id AND m.vector_pending AND m.text = v.text`,
          [vectors.map((v) => v.id), vectors.map((v) => v.text), vectors.map((v) => this.#vectors.toParam(v.embedding))],
        );
        return rowCount ?? 0;
      }),
    );
  }

  releasePendingVectors(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    return this.#run(async () => {
      await query(this.#pool, 'UPDATE memories SET vector_claimed_until = NULL WHERE id = ANY($1::text[]) AND vector_pending', [ids]);
    });
  }

  /**
   * Bulk import in one statement (so all or nothing): the batch travels as one array per column and is unnested
   * on the server. A memory whose uuid is stored already is skipped; any other clash (an id held by another
   * memory) fails the whole batch rather than dropping a memory silently.
   */
  insertMemories(memories: readonly NewMemory[]): Promise<{ inserted: number }> {
    return this.#run(async () => {
      if (memories.length === 0) return { inserted: 0 };
      memories.forEach(assertStorable);
      const inserted = await this.#withModel(async (client) => {
        const { rows } = await client.query<{ id: string }>(
          `INSERT INTO memories (${ROW_COLUMNS})
           SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::json[], $7::timestamptz[],
             $8::timestamptz[], $9::timestamptz[], $10::text[], $11::text[], $12::${this.#vectors.sqlType}[], $13::text[], $14::text[],
             $15::boolean[])
           ON CONFLICT (uuid) DO NOTHING RETURNING id`,
          [
            memories.map((m) => m.id),
            memories.map((m) => m.uuid),
            memories.map((m) => m.userId),
            memories.map((m) => m.appId),
            memories.map((m) => m.text),
            memories.map((m) => JSON.stringify(m.metadata)),
            memories.map((m) => m.createdAt),
            memories.map((m) => m.updatedAt ?? m.createdAt),
            memories.map((m) => m.expiresAt ?? null),
            memories.map((m) => textKey(m.text)),
            memories.map((m) => m.key ?? null),
            memories.map((m) => this.#vectorParam(m.embedding)),
            ...wordColumnArrays(memories.map((m) => m.text)),
            memories.map((m) => m.embedding === null),
          ],
        );
        const stored = new Set(rows.map((r) => r.id));
        await writeFields(client, memories.filter((m) => stored.has(m.id)));
        return rows.length;
      });
      return { inserted };
    });
  }

  // ---- Whole-database moves (agent-memory copy) ----------------------------------------------------------------

  listApps(): Promise<App[]> {
    return this.#run(async () => {
      const { rows } = await query<AppRow>(this.#pool, `SELECT ${APP_COLUMNS} FROM apps ORDER BY created_at, id`);
      return rows.map(toApp);
    });
  }

  importApp(app: App): Promise<App> {
    return this.#run(async () => {
      // No conflict target: a taken slug or a taken UUID both leave the row as it is. Then a new statement (a new
      // snapshot), as in ensureApp, so that a row another node committed meanwhile is seen.
      await query(this.#pool, 'INSERT INTO apps (id, slug, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        app.id,
        app.slug,
        app.createdAt,
      ]);
      const row = await this.#one<AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE slug = $1`, [app.slug]);
      if (row) return toApp(row);
      const holder = await this.#one<{ slug: string }>('SELECT slug FROM apps WHERE id = $1::uuid', [app.id]);
      const message =
        `The app "${app.slug}" cannot keep its UUID ${app.id}: ` +
        (holder ? `the app "${holder.slug}" has it here.` : 'it is taken here.');
      throw new MemoryError('validation_error', message, { details: [{ path: 'appId', message }] });
    });
  }

  exportMemories(after: string | null, limit: number): Promise<MemoryPage> {
    return this.#run(async () => {
      // The vector column exists once a model is declared; memories cannot exist before.
      if ((await withClient(this.#pool, readModelRecord)) === undefined) return { memories: [], next: null };
      // The vector as it was written, bit for bit (vector-storage.ts).
      const vectors = this.#vectors;
      const { rows } = await query<ExportRow>(
        this.#pool,
        `SELECT id, uuid, user_id, app_id, text, metadata::text AS metadata, created_at, updated_at, expires_at, key,
           ${vectors.exportColumn} AS embedding, vector_pending
         FROM memories WHERE id > $1 ORDER BY id LIMIT $2`,
        [after ?? '', limit],
      );
      const memories = rows.map((row): NewMemory => {
        // A pending memory moves as pending (null), for the target's backfill; any other without a vector is damage.
        if (row.embedding === null && !row.vector_pending) throw new Error(`The memory ${row.id} has no vector: the database is damaged.`);
        return {
          id: row.id,
          uuid: row.uuid,
          userId: row.user_id,
          appId: row.app_id,
          text: row.text,
          metadata: JSON.parse(row.metadata) as Record<string, unknown>,
          createdAt: iso(row.created_at),
          updatedAt: iso(row.updated_at),
          expiresAt: row.expires_at === null ? null : iso(row.expires_at),
          key: row.key,
          embedding: row.embedding === null ? null : vectors.fromColumn(row.embedding),
        };
      });
      return { memories, next: rows.length < limit ? null : (rows[rows.length - 1]?.id ?? null) };
    });
  }

  async scanMemories(scan: MemoryScan, onPage: (page: ScanPage) => Promise<void>): Promise<number> {
    // The handler's own failures (a full disk, a closed pipe: EPIPE) are the caller's, passed on as they are: taken
    // for the driver's, they would be translated into "the database is unavailable".
    let failed: { error: unknown } | undefined;
    const handler = (page: ScanPage): Promise<void> =>
      onPage(page).catch((error: unknown) => {
        failed = { error };
        throw new Error('The page handler failed.');
      });
    try {
      // Once: the pages already handed over cannot be taken back.
      return await this.#run(() => scanMemories(this.#pool, scan, handler), { once: true });
    } catch (error) {
      throw failed ? failed.error : error;
    }
  }

  // ---- Idempotency --------------------------------------------------------------------------------------------

  findIdempotency(keyId: string, key: string, notBefore: string): Promise<IdempotencyRecord | undefined> {
    return this.#run(async () => {
      const row = await this.#one<IdempotencyRow>(
        'SELECT request_hash, response, created_at FROM idempotency_keys WHERE key_id = $1 AND key = $2',
        [keyId, key],
      );
      if (!row) return undefined;
      if (iso(row.created_at) < notBefore) {
        // Expired: forget it so that the key can be used again.
        await query(this.#pool, 'DELETE FROM idempotency_keys WHERE key_id = $1 AND key = $2 AND created_at < $3', [
          keyId,
          key,
          notBefore,
        ]);
        return undefined;
      }
      return toRecord(row);
    });
  }

  pruneIdempotency(before: string, limit: number): Promise<number> {
    return this.#run(async () => {
      // SKIP LOCKED: nodes pruning at once share the rows out instead of queueing on each other's locks. Rows are
      // named by their key, not by ctid, so the statement also runs on a table distributed by key.
      const result = await query(
        this.#pool,
        `DELETE FROM idempotency_keys k
         USING (SELECT key_id, key FROM idempotency_keys WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED) old
         WHERE k.key_id = old.key_id AND k.key = old.key`,
        [before, limit],
      );
      return result.rowCount ?? 0;
    });
  }

  // ---- API keys -----------------------------------------------------------------------------------------------

  createKey(key: Omit<ApiKeyRecord, 'app'> & { appId: string | null }): Promise<ApiKeyRecord> {
    return this.#run(async () => {
      const row = await this.#one<KeyRow>(
        `WITH k AS (
           INSERT INTO api_keys (id, prefix, hash, app_id, label, created_at, revoked_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *
         )
         SELECT ${KEY_COLUMNS} FROM k LEFT JOIN apps a ON a.id = k.app_id`,
        [key.id, key.prefix, key.hash, key.appId, key.label, key.createdAt, key.revokedAt],
      );
      if (!row) throw new Error('The key insert returned no row.');
      return toKey(row);
    });
  }

  findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.#run(async () => {
      const row = await this.#one<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys k LEFT JOIN apps a ON a.id = k.app_id WHERE k.hash = $1`, [
        hash,
      ]);
      return row ? toKey(row) : undefined;
    });
  }

  listKeys(): Promise<ApiKeyRecord[]> {
    return this.#run(async () => {
      const { rows } = await query<KeyRow>(
        this.#pool,
        `SELECT ${KEY_COLUMNS} FROM api_keys k LEFT JOIN apps a ON a.id = k.app_id ORDER BY k.created_at, k.id`,
      );
      return rows.map(toKey);
    });
  }

  revokeKey(id: string, at: string): Promise<boolean> {
    return this.#run(async () => {
      // The first revocation's time stays.
      const result = await query(this.#pool, 'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1', [id, at]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  countKeys(): Promise<number> {
    return this.#run(async () =>
      Number((await this.#one<CountRow>('SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL', []))?.n ?? 0),
    );
  }

  // ---- OAuth (storage/postgres/oauth.ts) -------------------------------------------------------------------------

  createOAuthClient(client: OAuthClientRecord): Promise<void> {
    return this.#run(() => this.#oauth.createClient(client));
  }

  findOAuthClient(id: string): Promise<OAuthClientRecord | undefined> {
    return this.#run(() => this.#oauth.findClient(id));
  }

  listOAuthClients(): Promise<OAuthClientRecord[]> {
    return this.#run(() => this.#oauth.listClients());
  }

  revokeOAuthClient(id: string, at: string): Promise<boolean> {
    return this.#run(() => this.#oauth.revokeClient(id, at));
  }

  markOAuthClientAuthorized(id: string, at: string): Promise<void> {
    return this.#run(() => this.#oauth.markClientAuthorized(id, at));
  }

  countOAuthClients(): Promise<{ total: number; unused: number }> {
    return this.#run(() => this.#oauth.countClients());
  }

  pruneUnusedOAuthClients(registeredBefore: string, limit: number): Promise<number> {
    return this.#run(() => this.#oauth.pruneUnusedClients(registeredBefore, limit));
  }

  createOAuthPending(pending: OAuthPendingRecord): Promise<void> {
    return this.#run(() => this.#oauth.createPending(pending));
  }

  takeOAuthPending(id: string): Promise<OAuthPendingRecord | undefined> {
    return this.#run(() => this.#oauth.takePending(id), { once: true });
  }

  createOAuthCode(code: OAuthCodeRecord): Promise<void> {
    return this.#run(() => this.#oauth.createCode(code));
  }

  findOAuthCode(hash: string): Promise<OAuthCodeRecord | undefined> {
    return this.#run(() => this.#oauth.findCode(hash));
  }

  useOAuthCode(hash: string, at: string): Promise<boolean> {
    return this.#run(() => this.#oauth.useCode(hash, at), { once: true });
  }

  createOAuthTokens(tokens: readonly OAuthTokenRecord[]): Promise<void> {
    return this.#run(() => this.#oauth.createTokens(tokens));
  }

  findOAuthToken(hash: string): Promise<FoundOAuthToken | undefined> {
    return this.#run(() => this.#oauth.findToken(hash));
  }

  useOAuthToken(hash: string, at: string): Promise<boolean> {
    return this.#run(() => this.#oauth.useToken(hash, at), { once: true });
  }

  revokeOAuthFamily(familyId: string, at: string): Promise<void> {
    return this.#run(() => this.#oauth.revokeFamily(familyId, at));
  }

  pruneOAuth(before: string, limit: number): Promise<number> {
    return this.#run(() => this.#oauth.prune(before, limit));
  }

  // ---- Embedding model ----------------------------------------------------------------------------------------

  getModel(): Promise<ModelRecord | undefined> {
    return this.#run(() => withClient(this.#pool, readModelRecord));
  }

  getCalibration(model: ModelRecord): Promise<unknown> {
    return this.#run(async () => {
      const row = await this.#one<{ calibration: unknown }>('SELECT calibration FROM model_calibrations WHERE model = $1 AND dimension = $2', [
        model.model,
        model.dimension,
      ]);
      return row?.calibration;
    });
  }

  putCalibration(model: ModelRecord, calibration: unknown, fittedAt: string): Promise<void> {
    return this.#run(async () => {
      await query(
        this.#pool,
        'INSERT INTO model_calibrations (model, dimension, calibration, fitted_at) VALUES ($1, $2, $3, $4) ON CONFLICT (model, dimension) DO UPDATE SET calibration = excluded.calibration, fitted_at = excluded.fitted_at',
        [model.model, model.dimension, JSON.stringify(calibration), fittedAt],
      );
    });
  }

  useModel(model: ModelRecord): Promise<void> {
    return this.#run(async () => {
      this.#vectors = vectorStorage(await ensureVectorIndex(this.#pool, model, this.#allowPgvector));
      this.#declared = { model: model.model, dimension: model.dimension };
    });
  }

  replaceEmbeddings(swap: EmbeddingSwap): Promise<{ memories: number }> {
    return this.#run(
      async () => {
        const { memories, mode } = await replaceEmbeddings(this.#pool, swap, this.#allowPgvector);
        // This store made the swap: its caller embeds with the new model from now on, into the new column.
        this.#declared = { model: swap.model.model, dimension: swap.model.dimension };
        this.#vectors = vectorStorage(mode);
        return { memories };
      },
      // Once: it embeds late memories inside (minutes of model time), and its caller can simply run it again.
      { once: true },
    );
  }

  async ping(): Promise<boolean> {
    if (this.#closed) throw new MemoryError('unavailable', 'The store is closed.');
    try {
      return (await this.#one<{ ok: number }>('SELECT 1 AS ok', []))?.ok === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}

/** The columns a new memory row is written to (PgStore's #rowValues gives their values). */
const ROW_COLUMNS =
  'id, uuid, user_id, app_id, text, metadata, created_at, updated_at, expires_at, text_key, key, embedding, language, terms, vector_pending';

/** The word-index columns of a batch, as two arrays for unnest. */
function wordColumnArrays(texts: readonly string[]): [string[], string[]] {
  const columns = texts.map(wordColumns);
  return [columns.map((c) => c.language), columns.map((c) => c.terms)];
}
