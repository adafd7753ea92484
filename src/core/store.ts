/**
 * The storage interface: narrow, domain-level and asynchronous, so that a synchronous engine (better-sqlite3) and a
 * pooled network one (PostgreSQL) sit behind the same calls. Backends translate their driver errors into
 * MemoryError; the core never sees SQL.
 */
import type { MemoryRef } from './ids.js';
import type { UserSummary } from './schemas.js';
import type { OAuthStore } from './oauth/records.js';
import type { ApiKeyRecord, App, MemoryRecord } from './types.js';

/** Which apps a query may touch: one app, or all of them. */
export type AppScope = { appId: string } | { appId: null };

export interface NewMemory {
  id: string;
  uuid: string;
  userId: string;
  appId: string;
  text: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  /** Defaults to createdAt (an import or a copy carries the original's). */
  updatedAt?: string | undefined;
  /** Null or absent: never expires. */
  expiresAt?: string | null | undefined;
  /**
   * Unit-length embedding of `text`, of the store's dimension; null when the embedding endpoint could not make it
   * now (a transient failure): the memory is stored pending, found by its words until the backfill embeds it.
   */
  embedding: Float32Array | null;
  /** The caller's own key, unique within the user and app (expired memories included, until purged). */
  key?: string | null | undefined;
}

/** A memory stored under a caller's key (`upsertMemory`). */
export type KeyedMemory = NewMemory & { key: string };

/** Where a caller's key lives: one user in one app. */
export interface KeySlot {
  userId: string;
  /** The app's UUID. */
  appId: string;
  key: string;
}

export type UpsertOutcome =
  /** No live memory held the key: this one was inserted (an expired holder was deleted first). */
  | { kind: 'created'; memory: MemoryRecord }
  /** The live memory holding the key got the new text, vector, metadata and expiry; id and createdAt stay. */
  | { kind: 'updated'; memory: MemoryRecord };

/**
 * What a read sees of a user's memories: never an expired one (expiresAt at or before `now`), and, when named, only
 * those whose metadata holds every key with its exact value (indexed: core/metadata-fields.ts) and whose createdAt
 * lies in [since, until).
 */
export interface MemoryFilter {
  /** ISO timestamp; the store's clock when absent. */
  now?: string | undefined;
  metadata?: Readonly<Record<string, unknown>> | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

/** A change to one memory: the fields given replace the stored ones; updatedAt is set. */
export interface MemoryChange {
  /** The new text with its embedding (made before the transaction, written in it); null: pending (NewMemory.embedding). */
  text?: { text: string; embedding: Float32Array | null } | undefined;
  metadata?: Record<string, unknown> | undefined;
  /** A new expiry, or null to clear it; absent: unchanged. */
  expiresAt?: string | null | undefined;
  updatedAt: string;
  /** Memories expired at this instant cannot be updated (ISO timestamp). */
  now: string;
}

export type UpdateOutcome =
  | { kind: 'updated'; memory: MemoryRecord }
  | { kind: 'not_found' }
  /** The new text is, normalised, the text of another live memory of the same user and app: nothing changed. */
  | { kind: 'duplicate'; memory: MemoryRecord };

/** A store that carries an Idempotency-Key: claimed in the same transaction as the insert. */
export interface IdempotencyClaim {
  keyId: string;
  key: string;
  /** Hash of the request body, to tell a retry from a reuse of the key with another body. */
  requestHash: string;
  /** The response to replay, computed before the insert. */
  response: string;
  /** The response to record instead when the store turns out a duplicate of `existing` (nothing inserted). */
  duplicateResponse(existing: MemoryRecord): string;
  /** Claims older than this (ISO timestamp) have expired and are replaced. */
  notBefore: string;
}

export interface IdempotencyRecord {
  requestHash: string;
  response: string;
  createdAt: string;
}

export type InsertOutcome =
  | { kind: 'created' }
  | { kind: 'replayed'; record: IdempotencyRecord }
  /** A live memory of the same user and app holds the same normalised text (core/text-key.ts): nothing inserted. */
  | { kind: 'duplicate'; memory: MemoryRecord };

export interface ListQuery {
  userId: string;
  scope: AppScope;
  offset: number;
  limit: number;
  filter?: MemoryFilter | undefined;
}

/** The users with memories in a scope: those whose newest memory is the most recent first, then by user id. */
export interface UserListQuery {
  scope: AppScope;
  offset: number;
  limit: number;
}

/**
 * The word side of recall, which needs no embedding (so it can run while the model computes one): for each term,
 * the memories of the scope that contain it. Bounded per term, so that a word found in half of a large user's
 * memories costs no more than a rare one; which memories the ranker then takes from these lists is decided once,
 * in the core (ranking/word-candidates.ts), for every backend.
 */
export interface WordMatchQuery {
  userId: string;
  scope: AppScope;
  /** Word terms, already normalised; each is matched as the full-text index tokenises it (a phrase if several tokens). */
  terms: readonly string[];
  /** At most this many memories per term. */
  perTerm: number;
  filter?: MemoryFilter | undefined;
}

/** The memories one term occurs in: the most recently stored first, at most `perTerm` of them. */
export interface TermMatches {
  term: string;
  ids: string[];
}

export interface CandidateQuery {
  userId: string;
  scope: AppScope;
  /** Unit-length query embedding. */
  embedding: Float32Array;
  /** How many nearest vectors to take. */
  vectorK: number;
  /** Memories to return beside the nearest vectors (the word side's pick); ids outside the scope are ignored. */
  alsoIds: readonly string[];
  /** The vector side searches only the memories the filter lets through (not the k nearest, then filtered). */
  filter?: MemoryFilter | undefined;
}

/** One memory that either side of the search found. */
export interface Candidate {
  memory: MemoryRecord;
  /** Cosine similarity to the query embedding, in [-1, 1]; computed for every candidate. */
  cosine: number;
  /** Ids of the same user's memories stored just before and after this one (same app), if any. */
  prevId: string | null;
  nextId: string | null;
}

export interface ModelRecord {
  model: string;
  dimension: number;
}

/** One page of `exportMemories`: memories as `insertMemories` takes them. */
export interface MemoryPage {
  memories: NewMemory[];
  next: string | null;
}

/** What `scanMemories` visits: every memory, or one user's. */
export interface MemoryScan {
  /** Only this user's memories; every user's when undefined. */
  userId?: string | undefined;
  /** Only this app's memories (its UUID); every app's when undefined. */
  appId?: string | undefined;
  /** Memories per page. */
  pageSize: number;
}

export interface ScanPage {
  memories: MemoryRecord[];
  /** How many memories the whole scan visits, counted in the same snapshot as the pages. */
  total: number;
}

/** The new vectors of `agent-memory reembed` (core/reembed.ts), handed to `replaceEmbeddings`. */
export interface EmbeddingSwap {
  /** The model the new vectors were made with. */
  model: ModelRecord;
  /** Unit-length vectors of `model.dimension`, by memory id, made beforehand outside any transaction. */
  vectors: ReadonlyMap<string, Float32Array>;
  /**
   * Embeds the memories that `vectors` lacks (stored after it was made), in order. Called at most once, inside the
   * swap while writes wait, so that nothing stored meanwhile is left without a vector of the new model.
   */
  embedMissing(memories: ReadonlyArray<{ id: string; text: string }>): Promise<Float32Array[]>;
}

export interface StoreCapabilities {
  /** One writer at a time (SQLite): callers need not expect concurrent write throughput. */
  singleWriter: boolean;
  /** Name for logs and /healthz. */
  backend: string;
}

/** Apps: named by slug, created on first use (findOrCreateApp in core/apps.ts), listed and imported by copy. */
export interface AppStore {
  findApp(ref: string): Promise<App | undefined>;
  /** Returns the app with that slug, creating it when missing (race-free). */
  ensureApp(slug: string): Promise<App>;
  /** Every app, oldest first (`agent-memory copy`). */
  listApps(): Promise<App[]>;
  /**
   * Adds an app with its own UUID, slug and creation time, unless its slug is taken; returns the app stored under
   * that slug (an existing one keeps its own UUID). Refuses (validation_error) an app whose UUID another slug holds.
   */
  importApp(app: App): Promise<App>;
}

/** Memories: their rows, vectors and words, written, read, searched, moved in bulk and purged when expired. */
export interface MemoryRecordStore {
  /**
   * Stores one memory, unless a live memory of the same user and app holds the same normalised text (then that one
   * is answered: 'duplicate'); the check and the insert are one transaction, so racing duplicates store one copy.
   */
  insertMemory(memory: NewMemory, idempotency?: IdempotencyClaim): Promise<InsertOutcome>;
  /**
   * Bulk import: the whole batch in one transaction, all or nothing; a memory whose uuid is already stored is
   * skipped (not an error), so a batch retried after a crash stores nothing twice. `agent-memory import` and
   * `agent-memory copy` use it; both backends have it.
   */
  insertMemories(memories: readonly NewMemory[]): Promise<{ inserted: number }>;
  /**
   * Stores a memory under its key, or replaces the live memory holding that key (text, vector, metadata, expiry
   * and updatedAt; id and createdAt stay), in one transaction, so that racing writers of one key (on any node) end
   * with one memory. A keyed memory is addressed by its key, not its text: no duplicate-text check here.
   */
  upsertMemory(memory: KeyedMemory, now: string): Promise<UpsertOutcome>;
  /** The live memory holding the key, if any. */
  getMemoryByKey(slot: KeySlot, now: string): Promise<MemoryRecord | undefined>;
  /** Deletes the live memory holding the key; returns 1, or 0 when there was none. */
  deleteMemoryByKey(slot: KeySlot, now: string): Promise<number>;
  /** The memory holding the key, live or expired (an import checks that a key is free). */
  findKeyHolder(slot: KeySlot): Promise<MemoryRecord | undefined>;
  /** One live memory of the scope (expired ones are not found; `now` defaults to the store's clock). */
  getMemory(ref: MemoryRef, scope: AppScope, now?: string): Promise<MemoryRecord | undefined>;
  /**
   * Changes one live memory of the scope in one transaction: row, vector and word entries together. A new text
   * that another live memory of the same user and app holds is refused ('duplicate').
   */
  updateMemory(ref: MemoryRef, scope: AppScope, change: MemoryChange): Promise<UpdateOutcome>;
  listMemories(query: ListQuery): Promise<{ items: MemoryRecord[]; total: number }>;
  /**
   * One page of the users who have memories in the scope, with their count and newest createdAt; user ids compared
   * byte-wise (UTF-8) after the date, so the order is the same on every backend. `total` counts the users.
   */
  listUsers(query: UserListQuery): Promise<{ items: UserSummary[]; total: number }>;
  /** Deletes the visible (live) memories among refs, all or nothing; returns how many went. */
  deleteMemories(refs: MemoryRef[], scope: AppScope): Promise<number>;
  /** Deletes the user's live memories that the filter lets through. */
  deleteUserMemories(userId: string, scope: AppScope, filter?: MemoryFilter): Promise<number>;
  /**
   * Deletes at most `limit` memories that expired at or before `before`, with their vectors and words; returns how
   * many went. Bounded like pruneIdempotency.
   */
  purgeExpired(before: string, limit: number): Promise<number>;
  findWordMatches(query: WordMatchQuery): Promise<TermMatches[]>;
  /** The k nearest memories of the scope by cosine, with `alsoIds`: each with its cosine and its neighbours. */
  recallCandidates(query: CandidateQuery): Promise<Candidate[]>;
  countMemories(): Promise<number>;
  /**
   * Moving a whole database (`agent-memory copy`), everything as it is, vectors included: a page of memories with
   * their vectors, in id order (byte-wise, the same on every backend), starting after the id `after` (null: from
   * the first); `next` is the id to pass for the following page, null after the last one.
   */
  exportMemories(after: string | null, limit: number): Promise<MemoryPage>;
  /**
   * `agent-memory export`: every memory (of one user, when named), oldest first: by createdAt, then by id compared
   * byte-wise, so the order is the same on every backend. The pages come from one read snapshot, consistent while
   * others keep writing; each is handed to `onPage`, which is awaited before the next one is read (back-pressure)
   * and whose error ends the scan. Returns how many memories were visited.
   */
  scanMemories(scan: MemoryScan, onPage: (page: ScanPage) => Promise<void>): Promise<number>;
}

/** A memory waiting for its vector, as the backfill claimed it: the text it embeds. */
export interface PendingVector {
  id: string;
  text: string;
}

/** A vector the backfill made for the text it claimed. */
export interface FilledVector extends PendingVector {
  /** Unit-length, of the store's dimension. */
  embedding: Float32Array;
}

/**
 * Memories stored without a vector while the embedding endpoint was down (NewMemory.embedding null), and the
 * backfill that gives them one (core/backfill.ts), run by every node at once: a claim is a lease, so each pending
 * memory is handed to one worker at a time, and a worker that dies leaves its claim to expire.
 */
export interface PendingVectorStore {
  /** How many memories wait for their vector (live or not yet purged). */
  countPendingVectors(): Promise<number>;
  /**
   * Claims at most `limit` pending live memories that no other worker holds (or whose claim expired), oldest change
   * first, for `leaseMs`; on PostgreSQL the rows are taken with FOR UPDATE SKIP LOCKED, so racing nodes take
   * different ones.
   */
  claimPendingVectors(limit: number, leaseMs: number): Promise<PendingVector[]>;
  /**
   * Writes the vectors of memories that are still pending with the very text that was embedded (a text changed
   * meanwhile stays pending, for its own new vector); releases their claims. Returns how many were written.
   */
  fillPendingVectors(vectors: readonly FilledVector[]): Promise<number>;
  /** Gives claims back unfilled (the endpoint failed again, or the node stops), so that any worker may take them. */
  releasePendingVectors(ids: readonly string[]): Promise<void>;
}

/** Idempotency claims of stores: found on a retry, pruned by housekeeping (made in `insertMemory`). */
export interface IdempotencyStore {
  findIdempotency(keyId: string, key: string, notBefore: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Deletes at most `limit` claims made before `before` (expired ones, which a new claim would replace anyway);
   * returns how many went. Bounded, so that housekeeping never holds the database for long.
   */
  pruneIdempotency(before: string, limit: number): Promise<number>;
}

/** API keys, kept as hashes. */
export interface KeyStore {
  createKey(key: Omit<ApiKeyRecord, 'app'> & { appId: string | null }): Promise<ApiKeyRecord>;
  findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listKeys(): Promise<ApiKeyRecord[]>;
  /** Returns false when no key has that id. */
  revokeKey(id: string, at: string): Promise<boolean>;
  countKeys(): Promise<number>;
}

/** The embedding model the vectors were made with, and the swap to another one. */
export interface ModelStore {
  getModel(): Promise<ModelRecord | undefined>;
  /**
   * Declares the model whose vectors will be written: creates the vector index on a new database, and refuses
   * (MemoryError 'unavailable') a database whose vectors were made with another model.
   */
  useModel(model: ModelRecord): Promise<void>;
  /**
   * `agent-memory reembed`'s swap, in one transaction: the vector index of the new dimension, every memory's new
   * vector (`embedMissing` supplies those the map lacks) and the model record replace the old ones. Writes wait
   * meanwhile; a failure or a crash leaves the previous model and vectors as they were. Afterwards `useModel`
   * refuses the previous model. Returns how many memories got a vector.
   */
  replaceEmbeddings(swap: EmbeddingSwap): Promise<{ memories: number }>;
}

/**
 * Score calibrations fitted by the service itself (`agent-memory calibrate`, or in the background at start) for a
 * model without a built-in one, keyed by the model's name and dimension so that every node of the database uses
 * the same one. The calibration is JSON the core parses (core/ranking/calibration.ts); the store only keeps it.
 */
export interface CalibrationStore {
  /** The stored calibration of the model, if any. */
  getCalibration(model: ModelRecord): Promise<unknown>;
  /** Stores (or replaces) the model's calibration. */
  putCalibration(model: ModelRecord, calibration: unknown, fittedAt: string): Promise<void>;
}

/** The connection itself: what the backend is, whether it answers, and closing it. */
export interface StoreConnection {
  readonly capabilities: StoreCapabilities;
  /** True when the database answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A storage backend: every concern above, implemented by one class per backend (SqliteStore, PgStore). Code that
 * needs one concern takes that part (a KeyStore, an AppStore), so what it touches is visible in its signature.
 */
export type MemoryStore = AppStore &
  MemoryRecordStore &
  PendingVectorStore &
  IdempotencyStore &
  KeyStore &
  OAuthStore &
  ModelStore &
  CalibrationStore &
  StoreConnection;
