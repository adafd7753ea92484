import { MemoryError } from '../../core/errors.js';
import { assertModelUnchanged } from '../../core/model-check.js';
import { newUuid, type MemoryRef } from '../../core/ids.js';
import type {
  AppScope,
  Candidate,
  CandidateQuery,
  EmbeddingSwap,
  FilledVector,
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
import { openDatabase, type SqliteDatabase, type Statement } from './connection.js';
import { deleteFields, writeFields } from './fields.js';
import { filterSql, narrows, nowOf } from './filters.js';
import { migrate } from './migrations.js';
import { SqliteOAuthRows } from './oauth.js';
import { replaceEmbeddings } from './reembed.js';
import { KEY_COLUMNS, MEMORY_COLUMNS, toApp, toKey, toMemory, type AppRow, type KeyRow, type MemoryRow } from './rows.js';
import { scanMemories } from './scan.js';
import { ensureVectorIndex, readModelRecord } from './vector-index.js';
import { rankExactly } from './sign-search.js';
import { deleteVectors, insertVectors, searchVectors, vectorOf, VECTORS_TABLE, type VectorRow } from './vector-search.js';
import { termQuery, writeWords } from './words.js';

export interface SqliteStoreOptions {
  /** File path, or ':memory:'. */
  path: string;
  /**
   * How long a call waits, in all, for a lock another process holds (default 5 s), retrying off the event loop; then
   * it fails with 503 `unavailable`.
   */
  busyBudgetMs?: number;
}

export const DEFAULT_BUSY_BUDGET_MS = 5_000;

const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_LOCKED']);

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && BUSY_CODES.has(code);
}

/** The wait before busy retry `attempt` (from 0): 2 ms doubling to 100 ms, with jitter so retries spread out. */
function busyBackoffMs(attempt: number): number {
  const cap = Math.min(100, 2 * 2 ** attempt);
  return cap / 2 + Math.random() * (cap / 2);
}

/** Postings of one term walked at most by a filtered word search (see #filteredWordMatches). */
const FILTERED_POSTINGS = 20_000;

/** better-sqlite3's largest step for `backup`: every page that remains, in one step. */
const ALL_REMAINING_PAGES = 0x7fffffff;

interface ExportRow {
  id: string;
  uuid: string;
  user_id: string;
  app_id: string;
  text: string;
  metadata: string;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  key: string | null;
  embedding: Buffer | null;
  vector_pending: number;
}

/** importApp's refusal: the app's UUID names another app here. */
function appUuidTaken(app: App, holder: { slug: string } | undefined): MemoryError {
  const message =
    `The app "${app.slug}" cannot keep its UUID ${app.id}: ` +
    (holder ? `the app "${holder.slug}" has it here.` : 'it is taken here.');
  return new MemoryError('validation_error', message, { details: [{ path: 'appId', message }] });
}

function busy(): MemoryError {
  return new MemoryError('unavailable', 'The database is busy; retry shortly.', { retryAfterSeconds: 1 });
}

const CORRUPT_CODES = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CORRUPT_INDEX', 'SQLITE_CORRUPT_VTAB', 'SQLITE_CORRUPT_SEQUENCE']);

function isCorrupt(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CORRUPT_CODES.has(code);
}

function damaged(cause?: unknown): MemoryError {
  return new MemoryError(
    'unavailable',
    'The database file is damaged; the server refuses to use it until it is restored from a backup.',
    { retryAfterSeconds: 60, ...(cause === undefined ? {} : { cause }) },
  );
}

/** SQLite errors a client may meet under load become 503s; anything else stays an internal error. */
function translate(error: unknown): never {
  if (error instanceof MemoryError) throw error;
  const code = (error as { code?: unknown } | null)?.code;
  if (isBusy(error)) {
    throw new MemoryError('unavailable', busy().message, { retryAfterSeconds: 1, cause: error });
  }
  if (isCorrupt(error)) throw damaged(error);
  if (code === 'SQLITE_FULL' || code === 'SQLITE_IOERR' || code === 'SQLITE_READONLY') {
    throw new MemoryError('unavailable', 'The database cannot be written right now.', { retryAfterSeconds: 5, cause: error });
  }
  throw error;
}

/**
 * The embedded backend: one SQLite file, better-sqlite3 (synchronous) under the asynchronous MemoryStore
 * interface. Every multi-row change runs in one IMMEDIATE transaction, so memory rows, vectors and words change
 * together or not at all, and several processes on one file serialise their writes instead of failing.
 */
export class SqliteStore implements MemoryStore {
  readonly capabilities: StoreCapabilities = Object.freeze({ singleWriter: true, backend: 'sqlite' });
  readonly #db: SqliteDatabase;
  #closed = false;
  /** Prepared statements by SQL text: preparing costs 20-100 µs each, about 0.5 ms of every recall otherwise. */
  readonly #statements = new Map<string, Statement>();
  /** The model this store's caller embeds with (useModel), checked against the database's on every vector write and search. */
  #declared: ModelRecord | undefined;
  /** True while this connection holds a transaction across awaits (see #hold). */
  #held = false;
  /**
   * Set when SQLite reports the file damaged: from then on every call (health too) answers 503, rather than
   * storing more into a broken file, or answering health 200 while recalls fail with 500.
   */
  #damage: Error | undefined;
  #onDamage: ((error: Error) => void) | undefined;

  static open(options: SqliteStoreOptions): SqliteStore {
    let db: SqliteDatabase | undefined;
    try {
      db = openDatabase(options.path);
      migrate(db);
      // From here on no statement waits inside SQLite: a wait there blocks the event loop, so that one write waiting
      // for another process's lock froze health checks and reads too. #run retries off the loop instead.
      db.pragma('busy_timeout = 0');
    } catch (error) {
      db?.close();
      // Refused at start, in a sentence instead of a stack trace.
      if (isCorrupt(error)) throw new MemoryError('unavailable', `${options.path} is damaged or is not an agent-memory database.`, { cause: error });
      throw error;
    }
    return new SqliteStore(db, options.busyBudgetMs ?? DEFAULT_BUSY_BUDGET_MS);
  }

  readonly #busyBudgetMs: number;

  private constructor(db: SqliteDatabase, busyBudgetMs: number) {
    this.#db = db;
    this.#busyBudgetMs = busyBudgetMs;
    this.#oauth = new SqliteOAuthRows(db, (sql) => this.#sql(sql));
  }

  readonly #oauth: SqliteOAuthRows;

  /** The raw connection, for maintenance commands (backup, reembed) that live beside the store. */
  get database(): SqliteDatabase {
    return this.#db;
  }

  /** The statement for `sql`, prepared once per connection (SQLite re-prepares it itself after a schema change). */
  #sql(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs `fn` (synchronous, one statement or one transaction) at once, in this turn. When another process holds the
   * lock it needs, `fn` is run again after a short wait, off the event loop, until it succeeds or `busyBudgetMs` is
   * spent (then 503 with Retry-After). A failed attempt changed nothing: a transaction that fails is rolled back.
   * Reads rarely wait at all: in WAL mode they do not need the write lock.
   */
  async #run<T>(fn: () => T): Promise<T> {
    const deadline = Date.now() + this.#busyBudgetMs;
    for (let attempt = 0; ; attempt++) {
      if (this.#closed) throw new MemoryError('unavailable', 'The store is closed.');
      if (this.#damage) throw damaged();
      if (this.#held) throw busy();
      try {
        return fn();
      } catch (error) {
        if (isCorrupt(error)) this.#markDamaged(error);
        if (!isBusy(error) || Date.now() >= deadline) translate(error);
      }
      await new Promise((resolve) => setTimeout(resolve, busyBackoffMs(attempt)));
    }
  }

  /**
   * Runs `fn`, which keeps a transaction open across awaits (a long export, reembed's swap). On this connection every
   * other call is refused as busy meanwhile, since it would run inside that transaction; with `reader`, a read-only
   * connection of its own serves it instead and this one stays free (not for an in-memory database: it has only one).
   */
  async #hold<T>(fn: (db: SqliteDatabase) => Promise<T>, options: { reader: boolean }): Promise<T> {
    if (this.#closed) throw new MemoryError('unavailable', 'The store is closed.');
    if (this.#held) throw busy();
    const own = options.reader && !this.#db.memory;
    const db = own ? openDatabase(this.#db.name, { readonly: true }) : this.#db;
    if (!own) this.#held = true;
    try {
      return await fn(db);
    } catch (error) {
      return translate(error);
    } finally {
      if (own) db.close();
      else this.#held = false;
    }
  }

  // ---- Apps ---------------------------------------------------------------------------------------------------

  findApp(ref: string): Promise<App | undefined> {
    return this.#run(() => {
      const row = this.#sql('SELECT id, slug, created_at FROM apps WHERE slug = ? OR id = ?').get(ref, ref.toLowerCase()) as
        | AppRow
        | undefined;
      return row ? toApp(row) : undefined;
    });
  }

  ensureApp(slug: string): Promise<App> {
    return this.#run(() => {
      // INSERT OR IGNORE then SELECT: two writers creating the same slug both end with the one row.
      this.#sql('INSERT OR IGNORE INTO apps (id, slug, created_at) VALUES (?, ?, ?)')
        .run(newUuid(), slug, new Date().toISOString());
      return toApp(this.#sql('SELECT id, slug, created_at FROM apps WHERE slug = ?').get(slug) as AppRow);
    });
  }

  // ---- Memories -----------------------------------------------------------------------------------------------

  insertMemory(memory: NewMemory, idempotency?: IdempotencyClaim): Promise<InsertOutcome> {
    return this.#run(() =>
      this.#db
        .transaction((): InsertOutcome => {
          if (idempotency) {
            const existing = this.#sql('SELECT request_hash, response, created_at FROM idempotency_keys WHERE key_id = ? AND key = ?')
              .get(idempotency.keyId, idempotency.key) as { request_hash: string; response: string; created_at: string } | undefined;
            if (existing && existing.created_at < idempotency.notBefore) {
              this.#sql('DELETE FROM idempotency_keys WHERE key_id = ? AND key = ?').run(idempotency.keyId, idempotency.key);
            } else if (existing) {
              return {
                kind: 'replayed',
                record: { requestHash: existing.request_hash, response: existing.response, createdAt: existing.created_at },
              };
            }
          }
          // The write lock is held (IMMEDIATE): no other writer can add the same text between this look and the insert.
          const duplicate = this.#liveDuplicate(memory.userId, memory.appId, textKey(memory.text), null);
          if (!duplicate) this.#insertRows([memory], false);
          if (idempotency) {
            const response = duplicate ? idempotency.duplicateResponse(duplicate) : idempotency.response;
            this.#sql('INSERT INTO idempotency_keys (key_id, key, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?)')
              .run(idempotency.keyId, idempotency.key, idempotency.requestHash, response, new Date().toISOString());
          }
          return duplicate ? { kind: 'duplicate', memory: duplicate } : { kind: 'created' };
        })
        .immediate(),
    );
  }

  /**
   * Bulk import: the whole batch in one transaction, all or nothing. A memory whose uuid is already stored is
   * skipped, so a batch retried after a crash stores nothing twice.
   */
  insertMemories(memories: readonly NewMemory[]): Promise<{ inserted: number }> {
    return this.#run(() => this.#db.transaction(() => ({ inserted: this.#insertRows(memories, true) })).immediate());
  }

  /** Memory rows with their vectors and words, in the caller's transaction; returns how many were inserted. */
  #insertRows(memories: readonly NewMemory[], skipExisting: boolean): number {
    const record = readModelRecord(this.#db);
    if (record === undefined) throw new MemoryError('unavailable', 'The vector index is missing: no embedding model was declared.');
    assertModelUnchanged(this.#declared, record);
    const dimension = record.dimension;
    const insertMemory = this.#sql(
      `INSERT INTO memories (id, uuid, user_id, app_id, text, metadata, created_at, updated_at, expires_at, text_key, key, vector_pending)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ${skipExisting ? 'ON CONFLICT(uuid) DO NOTHING' : ''}`,
    );
    const vectors: VectorRow[] = [];
    let inserted = 0;
    for (const memory of memories) {
      const { changes, lastInsertRowid } = insertMemory.run(
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
        memory.embedding === null ? 1 : 0,
      );
      if (changes === 0) continue;
      inserted++;
      const rowid = Number(lastInsertRowid);
      writeWords(this.#db, rowid, memory.userId, memory.text);
      writeFields(this.#db, rowid, memory.userId, memory.metadata);
      // A pending memory (no vector yet) has no row in the vector index until the backfill fills it.
      if (memory.embedding !== null) vectors.push({ rowid, userId: memory.userId, appId: memory.appId, embedding: memory.embedding });
    }
    insertVectors(this.#db, dimension, vectors);
    return inserted;
  }

  /** The oldest live memory of the user and app with this duplicate key, other than the memory `exceptRowid`. */
  #liveDuplicate(userId: string, appId: string, key: string, exceptRowid: number | null): MemoryRecord | undefined {
    // INDEXED BY: left to itself, the planner walked the user's (user_id, app_id, created_at) index to avoid sorting
    // and checked the text key of every memory of the user: 36 ms of every store at 100,000 memories (the profile in
    // the bench report), against well under a millisecond through the text key.
    const row = this.#sql(
        `SELECT ${MEMORY_COLUMNS} FROM memories m INDEXED BY memories_text_key JOIN apps a ON a.id = m.app_id
         WHERE m.user_id = ? AND m.app_id = ? AND m.text_key = ? AND m.rowid IS NOT ?
           AND (m.expires_at IS NULL OR m.expires_at > ?)
         ORDER BY m.created_at, m.id LIMIT 1`,
      )
      .get(userId, appId, key, exceptRowid, new Date().toISOString()) as MemoryRow | undefined;
    return row ? toMemory(row) : undefined;
  }

  #findRow(ref: MemoryRef, scope: AppScope, now: string): MemoryRow | undefined {
    const column = ref.kind === 'id' ? 'm.id' : 'm.uuid';
    return this.#sql(
        `SELECT ${MEMORY_COLUMNS} FROM memories m JOIN apps a ON a.id = m.app_id
         WHERE ${column} = ? AND (? IS NULL OR m.app_id = ?) AND (m.expires_at IS NULL OR m.expires_at > ?)`,
      )
      .get(ref.value, scope.appId, scope.appId, now) as MemoryRow | undefined;
  }

  getMemory(ref: MemoryRef, scope: AppScope, now?: string): Promise<MemoryRecord | undefined> {
    return this.#run(() => {
      const row = this.#findRow(ref, scope, now ?? new Date().toISOString());
      return row ? toMemory(row) : undefined;
    });
  }

  updateMemory(ref: MemoryRef, scope: AppScope, change: MemoryChange): Promise<UpdateOutcome> {
    return this.#run(() =>
      this.#db
        .transaction((): UpdateOutcome => {
          const row = this.#findRow(ref, scope, change.now);
          if (!row) return { kind: 'not_found' };
          if (change.text) {
            const duplicate = this.#liveDuplicate(row.user_id, row.app_id, textKey(change.text.text), row.rowid);
            if (duplicate) return { kind: 'duplicate', memory: duplicate };
          }
          this.#applyChange(row, change);
          return { kind: 'updated', memory: toMemory(this.#findRow(ref, scope, change.now) as MemoryRow) };
        })
        .immediate(),
    );
  }

  /** Writes a change to one memory, in the caller's transaction: row, words, vector and metadata fields together. */
  #applyChange(row: MemoryRow, change: MemoryChange): void {
    const rowid = row.rowid;
    if (change.text) {
      const record = readModelRecord(this.#db);
      if (record === undefined) throw new MemoryError('unavailable', 'The vector index is missing: no embedding model was declared.');
      assertModelUnchanged(this.#declared, record);
      this.#sql('UPDATE memories SET text = ?, text_key = ? WHERE rowid = ?').run(change.text.text, textKey(change.text.text), rowid);
      this.#sql('DELETE FROM memory_words WHERE rowid = ?').run(rowid);
      writeWords(this.#db, rowid, row.user_id, change.text.text);
      deleteVectors(this.#db, [rowid]);
      const embedding = change.text.embedding;
      if (embedding !== null) insertVectors(this.#db, record.dimension, [{ rowid, userId: row.user_id, appId: row.app_id, embedding }]);
      // A claim on the old text is void: the backfill's write compares the text and leaves this one pending.
      this.#sql('UPDATE memories SET vector_pending = ?, vector_claimed_until = NULL WHERE rowid = ?').run(embedding === null ? 1 : 0, rowid);
    }
    if (change.metadata) {
      this.#sql('UPDATE memories SET metadata = ? WHERE rowid = ?').run(JSON.stringify(change.metadata), rowid);
      deleteFields(this.#db, [rowid]);
      writeFields(this.#db, rowid, row.user_id, change.metadata);
    }
    if (change.expiresAt !== undefined) this.#sql('UPDATE memories SET expires_at = ? WHERE rowid = ?').run(change.expiresAt, rowid);
    this.#sql('UPDATE memories SET updated_at = ? WHERE rowid = ?').run(change.updatedAt, rowid);
  }

  // ---- Caller keys --------------------------------------------------------------------------------------------

  /** The memory holding a key, live or expired (the unique index covers both), served by that index. */
  #keyRow(slot: KeySlot): MemoryRow | undefined {
    return this.#sql(
        `SELECT ${MEMORY_COLUMNS} FROM memories m INDEXED BY memories_key JOIN apps a ON a.id = m.app_id
         WHERE m.user_id = ? AND m.app_id = ? AND m.key = ?`,
      )
      .get(slot.userId, slot.appId, slot.key) as MemoryRow | undefined;
  }

  /** The live memory holding a key, if any. */
  #liveKeyRow(slot: KeySlot, now: string): MemoryRow | undefined {
    const row = this.#keyRow(slot);
    return row && (row.expires_at === null || row.expires_at > now) ? row : undefined;
  }

  upsertMemory(memory: KeyedMemory, now: string): Promise<UpsertOutcome> {
    const slot = { userId: memory.userId, appId: memory.appId, key: memory.key };
    return this.#run(() =>
      this.#db
        .transaction((): UpsertOutcome => {
          // The write lock is held (IMMEDIATE): no other writer, in this process or another, can take the key
          // between this look and the write.
          const held = this.#keyRow(slot);
          if (held && held.expires_at !== null && held.expires_at <= now) {
            // An expired memory is gone for every read: its key is free, and the new memory starts afresh.
            this.#deleteRowids([held.rowid]);
          } else if (held) {
            this.#applyChange(held, {
              text: { text: memory.text, embedding: memory.embedding },
              metadata: memory.metadata,
              expiresAt: memory.expiresAt ?? null,
              updatedAt: now,
              now,
            });
            return { kind: 'updated', memory: toMemory(this.#keyRow(slot) as MemoryRow) };
          }
          this.#insertRows([memory], false);
          return { kind: 'created', memory: toMemory(this.#keyRow(slot) as MemoryRow) };
        })
        .immediate(),
    );
  }

  getMemoryByKey(slot: KeySlot, now: string): Promise<MemoryRecord | undefined> {
    return this.#run(() => {
      const row = this.#liveKeyRow(slot, now);
      return row ? toMemory(row) : undefined;
    });
  }

  deleteMemoryByKey(slot: KeySlot, now: string): Promise<number> {
    return this.#run(() =>
      this.#db
        .transaction(() => {
          // An expired holder is left to purgeExpired, as deleteMemories leaves expired memories.
          const row = this.#liveKeyRow(slot, now);
          if (!row) return 0;
          this.#deleteRowids([row.rowid]);
          return 1;
        })
        .immediate(),
    );
  }

  findKeyHolder(slot: KeySlot): Promise<MemoryRecord | undefined> {
    return this.#run(() => {
      const row = this.#keyRow(slot);
      return row ? toMemory(row) : undefined;
    });
  }

  listMemories(query: ListQuery): Promise<{ items: MemoryRecord[]; total: number }> {
    return this.#run(() => {
      // One read transaction: the page and the total see the same snapshot.
      return this.#db.transaction(() => {
        const app = query.scope.appId === null ? { sql: '', args: [] } : { sql: 'AND m.app_id = ?', args: [query.scope.appId] };
        const filter = filterSql('m', query.userId, query.filter);
        const where = `WHERE m.user_id = ? ${app.sql} ${filter.sql}`;
        const args = [query.userId, ...app.args, ...filter.args];
        const items = (
          this.#sql(
              `SELECT ${MEMORY_COLUMNS} FROM memories m JOIN apps a ON a.id = m.app_id ${where}
               ORDER BY m.created_at DESC, m.id DESC LIMIT ? OFFSET ?`,
            )
            .all(...args, query.limit, query.offset) as MemoryRow[]
        ).map(toMemory);
        const { total } = this.#sql(`SELECT COUNT(*) AS total FROM memories m ${where}`).get(...args) as { total: number };
        return { items, total };
      })();
    });
  }

  listUsers(query: UserListQuery): Promise<{ items: UserSummary[]; total: number }> {
    return this.#run(() =>
      this.#db.transaction(() => {
        // Grouped over the (user_id, ...) indexes, which hold user_id and created_at: no memory row is read.
        // Live memories only: an expired one counts for nothing, as for every read (expires_at is in those indexes).
        const live = '(expires_at IS NULL OR expires_at > @now)';
        const where = query.scope.appId === null ? `WHERE ${live}` : `WHERE app_id = @appId AND ${live}`;
        const params = { appId: query.scope.appId, limit: query.limit, offset: query.offset, now: new Date().toISOString() };
        const rows = this.#sql(
            `SELECT user_id, COUNT(*) AS n, MAX(created_at) AS newest FROM memories ${where}
             GROUP BY user_id ORDER BY newest DESC, user_id LIMIT @limit OFFSET @offset`,
          )
          .all(params) as Array<{ user_id: string; n: number; newest: string }>;
        const { total } = this.#sql(`SELECT COUNT(DISTINCT user_id) AS total FROM memories ${where}`).get(params) as { total: number };
        return { items: rows.map((r) => ({ userId: r.user_id, memoryCount: r.n, newestMemoryAt: r.newest })), total };
      })(),
    );
  }

  #deleteRowids(rowids: readonly number[]): void {
    if (rowids.length === 0) return;
    // Memories exist only after the model was declared, so the vector table exists whenever there is a row.
    if (!this.#hasVectorIndex()) throw new MemoryError('unavailable', 'The vector index is missing.');
    const delMemory = this.#sql('DELETE FROM memories WHERE rowid = ?');
    const delWords = this.#sql('DELETE FROM memory_words WHERE rowid = ?');
    deleteVectors(this.#db, rowids);
    deleteFields(this.#db, rowids);
    for (const rowid of rowids) {
      delWords.run(rowid);
      delMemory.run(rowid);
    }
  }

  deleteMemories(refs: MemoryRef[], scope: AppScope): Promise<number> {
    return this.#run(() =>
      this.#db
        .transaction(() => {
          const ids = JSON.stringify(refs.filter((r) => r.kind === 'id').map((r) => r.value));
          const uuids = JSON.stringify(refs.filter((r) => r.kind === 'uuid').map((r) => r.value));
          // Expired memories are not visible: they are left to purgeExpired.
          const rows = this.#sql(
              `SELECT rowid FROM memories
               WHERE (id IN (SELECT value FROM json_each(?)) OR uuid IN (SELECT value FROM json_each(?)))
                 AND (? IS NULL OR app_id = ?) AND (expires_at IS NULL OR expires_at > ?)`,
            )
            .all(ids, uuids, scope.appId, scope.appId, new Date().toISOString()) as Array<{ rowid: number }>;
          this.#deleteRowids(rows.map((r) => r.rowid));
          return rows.length;
        })
        .immediate(),
    );
  }

  deleteUserMemories(userId: string, scope: AppScope, filter?: MemoryFilter): Promise<number> {
    return this.#run(() =>
      this.#db
        .transaction(() => {
          const where = filterSql('m', userId, filter);
          const rows = this.#sql(`SELECT m.rowid AS rowid FROM memories m WHERE m.user_id = ? AND (? IS NULL OR m.app_id = ?) ${where.sql}`)
            .all(userId, scope.appId, scope.appId, ...where.args) as Array<{ rowid: number }>;
          this.#deleteRowids(rows.map((r) => r.rowid));
          return rows.length;
        })
        .immediate(),
    );
  }

  purgeExpired(before: string, limit: number): Promise<number> {
    return this.#run(() =>
      this.#db
        .transaction(() => {
          const rows = this.#sql('SELECT rowid FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT ?')
            .all(before, limit) as Array<{ rowid: number }>;
          this.#deleteRowids(rows.map((r) => r.rowid));
          return rows.length;
        })
        .immediate(),
    );
  }

  findWordMatches(query: WordMatchQuery): Promise<TermMatches[]> {
    return this.#run(() => {
      const appId = query.scope.appId;
      // Walks the term's postings from the newest and stops after perTerm of the scope: no sort over every match
      // (FTS5 serves ORDER BY rowid DESC itself), so a word in half of a large user's memories stays cheap.
      if (narrows(query.filter)) return this.#filteredWordMatches(query);
      const filter = filterSql('m', query.userId, query.filter);
      const newest = this.#sql(
        `SELECT m.id AS id FROM memory_words w JOIN memories m ON m.rowid = w.rowid
         WHERE memory_words MATCH ? AND m.user_id = ? AND (? IS NULL OR m.app_id = ?) ${filter.sql}
         ORDER BY w.rowid DESC LIMIT ?`,
      );
      return query.terms.map((term): TermMatches => {
        const match = termQuery(query.userId, term);
        if (match === undefined || query.perTerm <= 0) return { term, ids: [] };
        const rows = newest.all(match, query.userId, appId, appId, ...filter.args, query.perTerm) as Array<{ id: string }>;
        return { term, ids: rows.map((r) => r.id) };
      });
    });
  }

  /**
   * The word side under a filter: the memories it lets through are read once (indexed), then each term's postings
   * (the user's, newest first) are walked without touching the memories table, keeping those in the set, until
   * perTerm are found or FILTERED_POSTINGS were walked: a word common enough to exceed that weighs little in the
   * ranking, and the vector side searches the filtered memories whole. Joining every posting to its row instead
   * took 0.3 to 0.5 s per recall over 100,000 memories of one user.
   */
  #filteredWordMatches(query: WordMatchQuery): TermMatches[] {
    const allowed = this.#allowedRowids(query.userId, query.scope.appId, query.filter);
    const postings = this.#sql('SELECT rowid FROM memory_words WHERE memory_words MATCH ? ORDER BY rowid DESC LIMIT ?').pluck();
    const ids = this.#sql('SELECT m.rowid AS rowid, m.id AS id FROM json_each(?) j CROSS JOIN memories m ON m.rowid = j.value');
    return query.terms.map((term): TermMatches => {
      const match = termQuery(query.userId, term);
      if (match === undefined || query.perTerm <= 0 || allowed.size === 0) return { term, ids: [] };
      const kept: number[] = [];
      for (const rowid of postings.iterate(match, FILTERED_POSTINGS) as IterableIterator<number>) {
        if (!allowed.has(rowid)) continue;
        kept.push(rowid);
        if (kept.length >= query.perTerm) break;
      }
      const byRowid = new Map((ids.all(JSON.stringify(kept)) as Array<{ rowid: number; id: string }>).map((r) => [r.rowid, r.id]));
      return { term, ids: kept.map((rowid) => byRowid.get(rowid)).filter((id): id is string => id !== undefined) };
    });
  }

  /** The rowids of the user's memories (in scope) that the filter lets through, live ones only: one indexed query. */
  #allowedRowids(userId: string, appId: string | null, filter: MemoryFilter | undefined): Set<number> {
    const where = filterSql('m', userId, filter);
    // Plucked: a statement of its own (statements are cached by text, and pluck() changes the cached one).
    const rows = this.#sql(`SELECT m.rowid AS accepted FROM memories m WHERE m.user_id = ? AND (? IS NULL OR m.app_id = ?) ${where.sql}`)
      .pluck()
      .all(userId, appId, appId, ...where.args) as number[];
    return new Set(rows);
  }

  recallCandidates(query: CandidateQuery): Promise<Candidate[]> {
    return this.#run(() =>
      this.#db.transaction(() => {
        assertModelUnchanged(this.#declared, readModelRecord(this.#db));
        const appId = query.scope.appId;
        const cosine = new Map<number, number>();
        const accept = this.#acceptor(query.userId, appId, query.filter);
        const vectorHits = searchVectors(this.#db, { userId: query.userId, appId, embedding: query.embedding, k: query.vectorK, accept });
        for (const hit of vectorHits) cosine.set(hit.rowid, hit.cosine);

        // The word side's pick, within the scope, gets its true cosine. CROSS JOIN keeps the lookups by id: left
        // to itself, the planner walked the user's whole index. LEFT JOIN: a memory waiting for its vector is
        // found by its words alone, with no cosine (0; the ranker reads it by its words).
        if (query.alsoIds.length > 0) {
          const also = this.#sql(
              `SELECT m.rowid AS rowid, v.embedding AS embedding
               FROM json_each(?) j CROSS JOIN memories m ON m.id = j.value LEFT JOIN ${VECTORS_TABLE} v ON v.rowid = m.rowid
               WHERE m.user_id = ? AND (? IS NULL OR m.app_id = ?)`,
            )
            .all(JSON.stringify(query.alsoIds), query.userId, appId, appId) as Array<{ rowid: number; embedding: Buffer | null }>;
          // The filter (and liveness) by the same set as the vector side: a condition per row in the statement
          // above made the planner re-run the metadata lookups, 0.5 s over 100,000 memories.
          const fresh = also.filter(({ rowid }) => !cosine.has(rowid) && (accept?.(rowid) ?? true));
          const embedded = fresh.flatMap(({ rowid, embedding }) => (embedding === null ? [] : [{ rowid, embedding: vectorOf(embedding) }]));
          for (const { rowid } of fresh) cosine.set(rowid, 0);
          for (const { rowid, cosine: value } of rankExactly(query.embedding, embedded, embedded.length)) cosine.set(rowid, value);
        }

        if (cosine.size === 0) return [];
        // The rows and their neighbours in the user's (and app's) timeline, in one statement.
        const rows = this.#sql(
            `SELECT ${MEMORY_COLUMNS},
               (SELECT p.id FROM memories p WHERE p.user_id = m.user_id AND p.app_id = m.app_id
                  AND (p.created_at, p.id) < (m.created_at, m.id) ORDER BY p.created_at DESC, p.id DESC LIMIT 1) AS prev_id,
               (SELECT n.id FROM memories n WHERE n.user_id = m.user_id AND n.app_id = m.app_id
                  AND (n.created_at, n.id) > (m.created_at, m.id) ORDER BY n.created_at ASC, n.id ASC LIMIT 1) AS next_id
             FROM json_each(?) j CROSS JOIN memories m ON m.rowid = j.value JOIN apps a ON a.id = m.app_id`,
          )
          .all(JSON.stringify([...cosine.keys()])) as Array<MemoryRow & { prev_id: string | null; next_id: string | null }>;
        return rows.map(
          (row): Candidate => ({ memory: toMemory(row), cosine: cosine.get(row.rowid) ?? 0, prevId: row.prev_id, nextId: row.next_id }),
        );
      })(),
    );
  }

  /**
   * Which vectors recall's vector side may return, checked before its approximate stages so that a narrow filter
   * still gets its k nearest: with a filter, the memories it lets through (one indexed query); without one, all
   * but the user's expired memories (a partial index: usually none). Undefined when every vector is acceptable.
   */
  #acceptor(userId: string, appId: string | null, filter: MemoryFilter | undefined): ((rowid: number) => boolean) | undefined {
    if (narrows(filter)) {
      const allowed = this.#allowedRowids(userId, appId, filter);
      return (rowid) => allowed.has(rowid);
    }
    const expired = this.#sql('SELECT rowid FROM memories WHERE user_id = ? AND expires_at IS NOT NULL AND expires_at <= ?')
      .pluck()
      .all(userId, nowOf(filter)) as number[];
    if (expired.length === 0) return undefined;
    const hidden = new Set(expired);
    return (rowid) => !hidden.has(rowid);
  }

  countMemories(): Promise<number> {
    return this.#run(() => (this.#sql('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n);
  }

  // ---- Memories waiting for their vector (core/backfill.ts) ----------------------------------------------------

  countPendingVectors(): Promise<number> {
    return this.#run(() => (this.#sql('SELECT COUNT(*) AS n FROM memories WHERE vector_pending = 1').get() as { n: number }).n);
  }

  /** One writer at a time: the claim is a plain UPDATE in an IMMEDIATE transaction, leased like PostgreSQL's. */
  claimPendingVectors(limit: number, leaseMs: number): Promise<PendingVector[]> {
    return this.#run(() =>
      this.#db
        .transaction((): PendingVector[] => {
          const now = new Date();
          const rows = this.#sql(
              `SELECT rowid, id, text FROM memories INDEXED BY memories_vector_pending
               WHERE vector_pending = 1 AND (vector_claimed_until IS NULL OR vector_claimed_until <= ?)
                 AND (expires_at IS NULL OR expires_at > ?)
               ORDER BY updated_at, rowid LIMIT ?`,
            )
            .all(now.toISOString(), now.toISOString(), limit) as Array<{ rowid: number; id: string; text: string }>;
          const lease = this.#sql('UPDATE memories SET vector_claimed_until = ? WHERE rowid = ?');
          const until = new Date(now.getTime() + leaseMs).toISOString();
          for (const row of rows) lease.run(until, row.rowid);
          return rows.map(({ id, text }) => ({ id, text }));
        })
        .immediate(),
    );
  }

  fillPendingVectors(vectors: readonly FilledVector[]): Promise<number> {
    if (vectors.length === 0) return Promise.resolve(0);
    return this.#run(() =>
      this.#db
        .transaction((): number => {
          const record = readModelRecord(this.#db);
          if (record === undefined) throw new MemoryError('unavailable', 'The vector index is missing: no embedding model was declared.');
          assertModelUnchanged(this.#declared, record);
          const find = this.#sql('SELECT rowid, user_id, app_id FROM memories WHERE id = ? AND vector_pending = 1 AND text = ?');
          const done = this.#sql('UPDATE memories SET vector_pending = 0, vector_claimed_until = NULL WHERE rowid = ?');
          const rows: VectorRow[] = [];
          for (const vector of vectors) {
            const row = find.get(vector.id, vector.text) as { rowid: number; user_id: string; app_id: string } | undefined;
            if (!row) continue;
            done.run(row.rowid);
            rows.push({ rowid: row.rowid, userId: row.user_id, appId: row.app_id, embedding: vector.embedding });
          }
          insertVectors(this.#db, record.dimension, rows);
          return rows.length;
        })
        .immediate(),
    );
  }

  releasePendingVectors(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    return this.#run(() => {
      this.#sql('UPDATE memories SET vector_claimed_until = NULL WHERE id IN (SELECT value FROM json_each(?)) AND vector_pending = 1').run(JSON.stringify(ids));
    });
  }

  // ---- Whole-database moves (agent-memory copy) ----------------------------------------------------------------

  listApps(): Promise<App[]> {
    return this.#run(() =>
      (this.#sql('SELECT id, slug, created_at FROM apps ORDER BY created_at, id').all() as AppRow[]).map(toApp),
    );
  }

  importApp(app: App): Promise<App> {
    return this.#run(() =>
      this.#db
        .transaction(() => {
          // No conflict target: a taken slug or a taken UUID both leave the row as it is.
          this.#sql('INSERT INTO apps (id, slug, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
            .run(app.id.toLowerCase(), app.slug, app.createdAt);
          const row = this.#sql('SELECT id, slug, created_at FROM apps WHERE slug = ?').get(app.slug) as AppRow | undefined;
          if (row) return toApp(row);
          const holder = this.#sql('SELECT slug FROM apps WHERE id = ?').get(app.id.toLowerCase()) as
            | { slug: string }
            | undefined;
          throw appUuidTaken(app, holder);
        })
        .immediate(),
    );
  }

  exportMemories(after: string | null, limit: number): Promise<MemoryPage> {
    return this.#run(() => {
      // Memories exist only once a model is declared, and with it the vector table.
      if (readModelRecord(this.#db) === undefined) return { memories: [], next: null };
      // LEFT JOIN: a memory without its vector that is not pending is an error to report, not a row to drop
      // silently; a pending one moves as pending (null), for the target's backfill.
      const rows = this.#sql(
          `SELECT m.id AS id, m.uuid AS uuid, m.user_id AS user_id, m.app_id AS app_id, m.text AS text,
                  m.metadata AS metadata, m.created_at AS created_at, m.updated_at AS updated_at,
                  m.expires_at AS expires_at, m.key AS key, v.embedding AS embedding, m.vector_pending AS vector_pending
           FROM memories m LEFT JOIN ${VECTORS_TABLE} v ON v.rowid = m.rowid
           WHERE m.id > ? ORDER BY m.id LIMIT ?`,
        )
        .all(after ?? '', limit) as ExportRow[];
      const memories = rows.map((row): NewMemory => {
        if (!row.embedding && row.vector_pending !== 1) throw new Error(`The memory ${row.id} has no vector: the database is damaged.`);
        return {
          id: row.id,
          uuid: row.uuid,
          userId: row.user_id,
          appId: row.app_id,
          text: row.text,
          metadata: JSON.parse(row.metadata) as Record<string, unknown>,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
          expiresAt: row.expires_at,
          key: row.key,
          // Copied out of the blob, whose bytes need not be 4-byte aligned.
          embedding: row.embedding
            ? new Float32Array(row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength))
            : null,
        };
      });
      return { memories, next: rows.length < limit ? null : (rows[rows.length - 1]?.id ?? null) };
    });
  }

  scanMemories(scan: MemoryScan, onPage: (page: ScanPage) => Promise<void>): Promise<number> {
    return this.#hold((db) => scanMemories(db, scan, onPage), { reader: true });
  }

  // ---- Idempotency --------------------------------------------------------------------------------------------

  findIdempotency(keyId: string, key: string, notBefore: string): Promise<IdempotencyRecord | undefined> {
    return this.#run(() => {
      const row = this.#sql('SELECT request_hash, response, created_at FROM idempotency_keys WHERE key_id = ? AND key = ?')
        .get(keyId, key) as { request_hash: string; response: string; created_at: string } | undefined;
      if (!row) return undefined;
      if (row.created_at < notBefore) {
        // Expired: forget it so that the key can be used again.
        this.#sql('DELETE FROM idempotency_keys WHERE key_id = ? AND key = ? AND created_at < ?').run(keyId, key, notBefore);
        return undefined;
      }
      return { requestHash: row.request_hash, response: row.response, createdAt: row.created_at };
    });
  }

  pruneIdempotency(before: string, limit: number): Promise<number> {
    return this.#run(
      () =>
        this.#sql('DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE created_at < ? LIMIT ?)')
          .run(before, limit).changes,
    );
  }

  // ---- API keys -----------------------------------------------------------------------------------------------

  createKey(key: Omit<ApiKeyRecord, 'app'> & { appId: string | null }): Promise<ApiKeyRecord> {
    return this.#run(() => {
      this.#sql('INSERT INTO api_keys (id, prefix, hash, app_id, label, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(key.id, key.prefix, key.hash, key.appId, key.label, key.createdAt, key.revokedAt);
      return toKey(
        this.#sql(`SELECT ${KEY_COLUMNS} FROM api_keys k LEFT JOIN apps a ON a.id = k.app_id WHERE k.id = ?`).get(key.id) as KeyRow,
      );
    });
  }

  findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.#run(() => {
      const row = this.#sql(`SELECT ${KEY_COLUMNS} FROM api_keys k LEFT JOIN apps a ON a.id = k.app_id WHERE k.hash = ?`)
        .get(hash) as KeyRow | undefined;
      return row ? toKey(row) : undefined;
    });
  }

  listKeys(): Promise<ApiKeyRecord[]> {
    return this.#run(() =>
      (
        this.#sql(`SELECT ${KEY_COLUMNS} FROM api_keys k LEFT JOIN apps a ON a.id = k.app_id ORDER BY k.created_at, k.id`)
          .all() as KeyRow[]
      ).map(toKey),
    );
  }

  revokeKey(id: string, at: string): Promise<boolean> {
    return this.#run(() => {
      const exists = this.#sql('SELECT 1 FROM api_keys WHERE id = ?').get(id);
      if (!exists) return false;
      this.#sql('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(at, id);
      return true;
    });
  }

  countKeys(): Promise<number> {
    return this.#run(() => (this.#sql('SELECT COUNT(*) AS n FROM api_keys WHERE revoked_at IS NULL').get() as { n: number }).n);
  }

  // ---- OAuth (storage/sqlite/oauth.ts) ---------------------------------------------------------------------------

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
    return this.#run(() => this.#oauth.takePending(id));
  }

  createOAuthCode(code: OAuthCodeRecord): Promise<void> {
    return this.#run(() => this.#oauth.createCode(code));
  }

  findOAuthCode(hash: string): Promise<OAuthCodeRecord | undefined> {
    return this.#run(() => this.#oauth.findCode(hash));
  }

  useOAuthCode(hash: string, at: string): Promise<boolean> {
    return this.#run(() => this.#oauth.useCode(hash, at));
  }

  createOAuthTokens(tokens: readonly OAuthTokenRecord[]): Promise<void> {
    return this.#run(() => this.#oauth.createTokens(tokens));
  }

  findOAuthToken(hash: string): Promise<FoundOAuthToken | undefined> {
    return this.#run(() => this.#oauth.findToken(hash));
  }

  useOAuthToken(hash: string, at: string): Promise<boolean> {
    return this.#run(() => this.#oauth.useToken(hash, at));
  }

  revokeOAuthFamily(familyId: string, at: string): Promise<void> {
    return this.#run(() => this.#oauth.revokeFamily(familyId, at));
  }

  pruneOAuth(before: string, limit: number): Promise<number> {
    return this.#run(() => this.#oauth.prune(before, limit));
  }

  getModel(): Promise<ModelRecord | undefined> {
    return this.#run(() => readModelRecord(this.#db));
  }

  getCalibration(model: ModelRecord): Promise<unknown> {
    return this.#run(() => {
      const row = this.#sql('SELECT calibration FROM model_calibrations WHERE model = ? AND dimension = ?').get(model.model, model.dimension) as
        | { calibration: string }
        | undefined;
      return row === undefined ? undefined : (JSON.parse(row.calibration) as unknown);
    });
  }

  putCalibration(model: ModelRecord, calibration: unknown, fittedAt: string): Promise<void> {
    return this.#run(() => {
      this.#sql(
        'INSERT INTO model_calibrations (model, dimension, calibration, fitted_at) VALUES (?, ?, ?, ?) ON CONFLICT (model, dimension) DO UPDATE SET calibration = excluded.calibration, fitted_at = excluded.fitted_at',
      ).run(model.model, model.dimension, JSON.stringify(calibration), fittedAt);
    });
  }

  useModel(model: ModelRecord): Promise<void> {
    return this.#run(() => {
      ensureVectorIndex(this.#db, model);
      this.#declared = { model: model.model, dimension: model.dimension };
    });
  }

  async replaceEmbeddings(swap: EmbeddingSwap): Promise<{ memories: number }> {
    const memories = await this.#hold((db) => replaceEmbeddings(db, swap), { reader: false });
    // This store made the swap: its caller embeds with the new model from now on.
    this.#declared = { model: swap.model.model, dimension: swap.model.dimension };
    return { memories };
  }

  #hasVectorIndex(): boolean {
    return this.#sql("SELECT 1 FROM sqlite_master WHERE name = 'memory_vectors'").get() !== undefined;
  }

  /** False (health 503) once the file is known to be damaged; the call that found it says why in the log. */
  ping(): Promise<boolean> {
    return this.#run(() => this.#sql('SELECT 1 AS ok').get() !== undefined);
  }

  /** Told once when the file turns out to be damaged (the runtime logs it). */
  onDamage(listener: (error: Error) => void): void {
    this.#onDamage = listener;
  }

  #markDamaged(error: unknown): void {
    if (this.#damage) return;
    this.#damage = error instanceof Error ? error : new Error(String(error));
    this.#onDamage?.(this.#damage);
  }

  /**
   * A consistent online copy to a new file, through SQLite's backup API in one step: it reads a single snapshot
   * while writers in this and other processes carry on (WAL). Copied in steps, as better-sqlite3 does by default
   * (100 pages, then back to the event loop), a write by another process between two steps restarts the copy from
   * the first page: under steady writes, a database whose copy takes longer than the gap between writes (a hundred
   * megabytes or so at a few writes a second) was never copied.
   */
  async backup(target: string): Promise<{ totalPages: number }> {
    if (this.#closed) throw new MemoryError('unavailable', 'The store is closed.');
    const { totalPages } = await this.#db.backup(target, { progress: () => ALL_REMAINING_PAGES });
    return { totalPages };
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    // Checkpoint so the next start finds everything in the main file.
    try {
      this.#db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // Another process may hold the WAL; its own close checkpoints.
    }
    this.#db.close();
    return Promise.resolve();
  }
}
