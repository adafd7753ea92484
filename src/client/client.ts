import { z } from 'zod';
import {
  deleteResultSchema,
  forgetAllInputSchema,
  forgetManyInputSchema,
  idempotencyKeySchema,
  keyRefInputSchema,
  listInputSchema,
  listResultSchema,
  listUsersInputSchema,
  listUsersResultSchema,
  memoryRefSchema,
  memorySchema,
  putByKeyInputSchema,
  recallInputSchema,
  recallResultSchema,
  storeInputSchema,
  storeResultSchema,
  updateInputSchema,
  type DeleteResult,
  type ForgetAllInput,
  type ListInput,
  type ListResult,
  type ListUsersInput,
  type ListUsersResult,
  type KeyRefInput,
  type MemoryView,
  type PutByKeyInput,
  type RecallInput,
  type RecallItem,
  type RecallResult,
  type StoreInput,
  type StoreResult,
  type UpdateInput,
} from '../core/schemas.js';
import { HttpTransport } from './http.js';
import { resolveOptions, type MemoryClientOptions } from './options.js';
import { validate } from './validate.js';

export interface StoreOptions {
  /**
   * Makes the store safe to repeat: the server answers the first response again for the same key and body. The
   * client always sends one (a fresh UUID per `store` call, reused by its retries); pass your own to make your
   * own retries (a job re-run, a queue redelivery) safe too.
   */
  idempotencyKey?: string | undefined;
}

/** Where a caller's key lives: its user, and its app (the client's `appId` option, else as a store picks it). */
export type KeyScope = Omit<KeyRefInput, 'key'>;

/** Narrows forgetAll: one app, and the list filters (metadata, since, until). */
export type ForgetAllOptions = Omit<ForgetAllInput, 'userId'>;

/** A query string's values: the metadata filter as JSON, the way the server reads it. */
function toQuery(params: Record<string, unknown>): Record<string, string | number | undefined> {
  const query: Record<string, string | number | undefined> = {};
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    query[name] = typeof value === 'string' || typeof value === 'number' ? value : JSON.stringify(value);
  }
  return query;
}

// Wrapped in objects so that a bad value is reported under its name (`id`, `idempotencyKey`), as a field would be.
const forgetInputSchema = z.strictObject({ id: memoryRefSchema });
const storeOptionsSchema = z.object({ idempotencyKey: idempotencyKeySchema.optional() });

/** One key per logical store; `crypto.randomUUID` is global in Node 20+, browsers and edge runtimes. */
function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * The agent-memory REST API, typed from the server's own zod schemas. Inputs are validated with those schemas
 * before anything is sent (a `MemoryValidationError`, no request); failures of the call are `MemoryApiError`
 * subclasses, `ConnectionError` or `TimeoutError`. Network errors, timeouts, 429 and 5xx are retried.
 */
export class MemoryClient {
  readonly #http: HttpTransport;
  readonly #appId: string | undefined;
  /** The server address in use, without trailing slash. */
  readonly baseUrl: string;

  constructor(options: MemoryClientOptions = {}) {
    const resolved = resolveOptions(options);
    this.#http = new HttpTransport(resolved);
    this.#appId = resolved.appId;
    this.baseUrl = resolved.baseUrl;
  }

  /** Stores one memory. `appId` falls back to the client's `appId` option, then to the key's app, then `default`. */
  async store(input: StoreInput, options: StoreOptions = {}): Promise<StoreResult> {
    const params = validate(storeInputSchema, input);
    const { idempotencyKey } = validate(storeOptionsSchema, options);
    const body = this.#withApp(params);
    return this.#http.request(
      // Generated before the first attempt, so a retry after a lost answer replays instead of storing twice.
      { method: 'POST', path: '/v1/memories', body, idempotencyKey: idempotencyKey ?? newIdempotencyKey() },
      storeResultSchema,
    );
  }

  /** One page of a user's memories, newest first: `{ memories, total, page, pageSize }`. */
  async list(input: ListInput): Promise<ListResult> {
    const query = validate(listInputSchema, input);
    // The query form, not /v1/memories/:userId: a user literally called "recall" would hit the recall route.
    return this.#http.request({ method: 'GET', path: '/v1/memories', query: toQuery(query) }, listResultSchema);
  }

  /** One memory by `mem_` id or UUID; a NotFoundError when it is unknown, expired or not visible to the key. */
  async get(id: string): Promise<MemoryView> {
    const params = validate(forgetInputSchema, { id });
    return this.#http.request({ method: 'GET', path: `/v1/memories/by-id/${encodeURIComponent(params.id)}` }, memorySchema);
  }

  /**
   * Changes a memory's `text` (embedded again), `metadata` (replaced whole) and/or expiry (`expiresAt`, null to
   * clear, or `ttlSeconds`); answers the memory as it now is. A text another memory of the same user and app holds
   * is a ConflictError with code `duplicate_memory`.
   */
  async update(id: string, patch: UpdateInput): Promise<MemoryView> {
    const params = validate(forgetInputSchema, { id });
    const body = validate(updateInputSchema, patch);
    return this.#http.request({ method: 'PATCH', path: `/v1/memories/${encodeURIComponent(params.id)}`, body }, memorySchema);
  }

  /**
   * Stores a memory under your own key (unique within its user and app), or replaces the memory stored under it
   * whole (text and vector, metadata, expiry; its id and createdAt stay). Safe to repeat; answers the memory as it
   * now is. `appId` falls back to the client's `appId` option, as for `store`.
   */
  async putByKey(key: string, input: PutByKeyInput): Promise<MemoryView> {
    const params = validate(keyRefInputSchema, { key, userId: input.userId });
    const body = this.#withApp(validate(putByKeyInputSchema, input));
    return this.#http.request({ method: 'PUT', path: this.#keyPath(params.key), body }, memorySchema);
  }

  /** The memory stored under your key for this user (and app); a NotFoundError when there is none. */
  async getByKey(key: string, scope: KeyScope): Promise<MemoryView> {
    const { key: checked, ...query } = this.#withApp(validate(keyRefInputSchema, { ...scope, key }));
    return this.#http.request({ method: 'GET', path: this.#keyPath(checked), query }, memorySchema);
  }

  /** Deletes the memory stored under your key: `{ deleted: 1 }`, or `{ deleted: 0 }` when there was none. */
  async deleteByKey(key: string, scope: KeyScope): Promise<DeleteResult> {
    const { key: checked, ...query } = this.#withApp(validate(keyRefInputSchema, { ...scope, key }));
    return this.#http.request({ method: 'DELETE', path: this.#keyPath(checked), query }, deleteResultSchema);
  }

  #keyPath(key: string): string {
    return `/v1/memories/by-key/${encodeURIComponent(key)}`;
  }

  /** The client's `appId` option, where the call names no app. */
  #withApp<T extends { appId?: string | undefined }>(params: T): T {
    return params.appId === undefined && this.#appId !== undefined ? { ...params, appId: this.#appId } : params;
  }

  /**
   * One page of the users who have memories in the apps the key can see (or in `appId`), the most recently written
   * to first: `{ users: [{ userId, memoryCount, newestMemoryAt }], total, page, pageSize }`.
   */
  async listUsers(input: ListUsersInput = {}): Promise<ListUsersResult> {
    const query = validate(listUsersInputSchema, input);
    return this.#http.request({ method: 'GET', path: '/v1/users', query }, listUsersResultSchema);
  }

  /** The memories that answer `query`, as one context string ("- text" per line), or "" when nothing matched. */
  async recall(input: RecallInput): Promise<string> {
    return (await this.#recall(input)).context;
  }

  /** The memories that answer `query`, with their scores (0 to 1), best first. */
  async recallRaw(input: RecallInput): Promise<RecallItem[]> {
    return (await this.#recall(input)).memories;
  }

  /** Deletes one memory by `mem_` id or UUID: `{ deleted: 1 }`, or `{ deleted: 0 }` if unknown or not visible. */
  async forget(id: string): Promise<DeleteResult> {
    const params = validate(forgetInputSchema, { id });
    return this.#http.request(
      { method: 'DELETE', path: `/v1/memories/${encodeURIComponent(params.id)}` },
      deleteResultSchema,
    );
  }

  /** Deletes several memories in one transaction (1 to 1,000 ids); unknown or invisible ids are skipped. */
  async forgetMany(ids: readonly string[]): Promise<DeleteResult> {
    const body = validate(forgetManyInputSchema, { ids });
    return this.#http.request({ method: 'POST', path: '/v1/memories/batch-delete', body }, deleteResultSchema);
  }

  /** Deletes every memory of a user, or only those in `appId` and matching the filters. */
  async forgetAll(userId: string, options: ForgetAllOptions = {}): Promise<DeleteResult> {
    const query = validate(forgetAllInputSchema, { ...options, userId });
    return this.#http.request({ method: 'DELETE', path: '/v1/memories', query: toQuery(query) }, deleteResultSchema);
  }

  async #recall(input: RecallInput): Promise<RecallResult> {
    const body = validate(recallInputSchema, input);
    // POST, not GET: a long query would not fit in a URL.
    return this.#http.request({ method: 'POST', path: '/v1/memories/recall', body }, recallResultSchema);
  }
}
