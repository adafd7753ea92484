import { createHash } from 'node:crypto';
import { searchCandidates } from './candidates.js';
import { canonicalJson } from './canonical-json.js';
import type { EmbeddingState } from './embedding-state.js';
import { MemoryError } from './errors.js';
import { Chore, pruneInBatches } from './housekeeping.js';
import { isUuid, newMemoryId, newUuid, parseMemoryRef, type MemoryRef } from './ids.js';
import { DEFAULT_APP_SLUG, LIMITS } from './limits.js';
import { silentLogger, type Logger } from './logger.js';
import type { Ranker } from './ranking/types.js';
import {
  forgetAllInputSchema,
  forgetManyInputSchema,
  idempotencyKeySchema,
  listInputSchema,
  memoryRefSchema,
  recallInputSchema,
  storeInputSchema,
  type DeleteResult,
  type ListItem,
  type ListResult,
  type RecallResult,
  type StoreResult,
} from './schemas.js';
import type { AppScope, MemoryStore } from './store.js';
import type { App, Caller, MemoryRecord } from './types.js';
import { parseInput } from './validation.js';

export interface StoreOptions {
  /** The Idempotency-Key of the request, if any. */
  idempotencyKey?: string | undefined;
}

export interface StoreOutcome {
  result: StoreResult;
  /** True when an earlier response was replayed for the same Idempotency-Key. */
  replayed: boolean;
}

export interface HealthReport {
  status: 'ok' | 'starting' | 'unavailable';
  store: 'ok' | 'unavailable';
  model: 'ready' | 'loading' | 'failed';
  /** Why the service is not ok, in a sentence. */
  reason?: string;
}

export interface MemoryServiceDeps {
  store: MemoryStore;
  embeddings: EmbeddingState;
  ranker: Ranker;
  now?: () => Date;
  /** For housekeeping's failures (pruning expired Idempotency-Key claims); silent by default. */
  logger?: Logger;
}

function toListItem(memory: MemoryRecord): ListItem {
  return { id: memory.id, text: memory.text, createdAt: memory.createdAt, metadata: memory.metadata, appId: memory.app.slug };
}

/**
 * The memory service: every rule of the contract (validation, defaults, app confinement, idempotency, recall's
 * ranking and threshold) lives here once. REST and MCP only translate requests into these calls.
 */
export class MemoryService {
  readonly storage: MemoryStore;
  readonly embeddings: EmbeddingState;
  readonly #ranker: Ranker;
  readonly #now: () => Date;
  readonly #pruneIdempotency: Chore;

  constructor(deps: MemoryServiceDeps) {
    this.storage = deps.store;
    this.embeddings = deps.embeddings;
    this.#ranker = deps.ranker;
    this.#now = deps.now ?? (() => new Date());
    this.#pruneIdempotency = new Chore(() => pruneInBatches((limit) => this.storage.pruneIdempotency(this.#notBefore(), limit)), {
      name: 'idempotency pruning',
      logger: deps.logger ?? silentLogger,
      now: () => this.#now().getTime(),
    });
  }

  /** Idempotency-Key claims made before this have expired. */
  #notBefore(): string {
    return new Date(this.#now().getTime() - LIMITS.idempotencyTtlMs).toISOString();
  }

  // ---- Apps and scopes ----------------------------------------------------------------------------------------

  /** A bound key may only name its own app, by slug or by UUID. */
  #assertAllowed(caller: Caller, appRef: string): void {
    const bound = caller.boundApp;
    if (bound === null) return;
    if (appRef === bound.slug || appRef.toLowerCase() === bound.id) return;
    throw new MemoryError('forbidden', `This API key is bound to the app "${bound.slug}" and cannot use the app "${appRef}".`);
  }

  /** The scope of a read or delete; undefined when the named app does not exist (nothing to see). */
  async #readScope(caller: Caller, appRef: string | undefined): Promise<AppScope | undefined> {
    if (appRef === undefined) return { appId: caller.boundApp?.id ?? null };
    this.#assertAllowed(caller, appRef);
    const app = await this.storage.findApp(appRef);
    return app ? { appId: app.id } : undefined;
  }

  async #appForStore(caller: Caller, appRef: string | undefined): Promise<App> {
    const ref = appRef ?? caller.boundApp?.slug ?? DEFAULT_APP_SLUG;
    this.#assertAllowed(caller, ref);
    if (isUuid(ref)) {
      const app = await this.storage.findApp(ref);
      if (!app) {
        throw new MemoryError('validation_error', `No app has the UUID "${ref}".`, {
          details: [{ path: 'appId', message: 'No app has this UUID; name a new app by slug to create it.' }],
        });
      }
      return app;
    }
    return this.storage.ensureApp(ref);
  }

  // ---- Operations ---------------------------------------------------------------------------------------------

  async store(caller: Caller, input: unknown, options: StoreOptions = {}): Promise<StoreOutcome> {
    const params = parseInput(storeInputSchema, input);
    const idempotencyKey =
      options.idempotencyKey === undefined ? undefined : parseIdempotencyKey(options.idempotencyKey);
    const ownerKey = caller.keyId ?? 'local';
    const requestHash = createHash('sha256').update(canonicalJson(input)).digest('hex');
    const notBefore = this.#notBefore();

    if (idempotencyKey !== undefined) {
      // Claims are made here only, so expired ones are pruned from here (in the background, at most once a minute).
      this.#pruneIdempotency.poke();
      // A retry is answered before any model work.
      const earlier = await this.storage.findIdempotency(ownerKey, idempotencyKey, notBefore);
      if (earlier) return replay(earlier.requestHash, requestHash, earlier.response);
    }

    const app = await this.#appForStore(caller, params.appId);
    const [embedding] = await this.embeddings.embed([params.text], 'document', ownerKey);
    if (!embedding) throw new MemoryError('server_error', 'The embedding model returned no vector.');
    const memory = {
      id: newMemoryId(),
      uuid: newUuid(),
      userId: params.userId,
      appId: app.id,
      text: params.text,
      metadata: params.metadata ?? {},
      createdAt: params.createdAt ?? this.#now().toISOString(),
      embedding,
    };
    const result: StoreResult = { id: memory.id, userId: memory.userId, appId: app.slug, createdAt: memory.createdAt };
    const outcome = await this.storage.insertMemory(
      memory,
      idempotencyKey === undefined
        ? undefined
        : { keyId: ownerKey, key: idempotencyKey, requestHash, response: JSON.stringify(result), notBefore },
    );
    // Two identical requests raced: the first one's transaction won, this one stored nothing.
    if (outcome.kind === 'replayed') return replay(outcome.record.requestHash, requestHash, outcome.record.response);
    return { result, replayed: false };
  }

  async list(caller: Caller, input: unknown): Promise<ListResult> {
    const params = parseInput(listInputSchema, input);
    const scope = await this.#readScope(caller, params.appId);
    const envelope = { page: params.page, pageSize: params.pageSize };
    if (!scope) return { memories: [], total: 0, ...envelope };
    const offset = params.page * params.pageSize;
    if (!Number.isSafeInteger(offset)) {
      throw new MemoryError('validation_error', 'page is too large.', { details: [{ path: 'page', message: 'page is too large.' }] });
    }
    const { items, total } = await this.storage.listMemories({ userId: params.userId, scope, offset, limit: params.pageSize });
    return { memories: items.map(toListItem), total, ...envelope };
  }

  async recall(caller: Caller, input: unknown): Promise<RecallResult> {
    const params = parseInput(recallInputSchema, input);
    const scope = await this.#readScope(caller, params.appId);
    if (!scope) return { memories: [], context: '' };
    const plan = this.#ranker.plan(params.query, params.limit);
    const embedding = this.embeddings.embed([plan.embedText], 'query', caller.keyId ?? 'local').then(([vector]) => {
      if (!vector) throw new MemoryError('server_error', 'The embedding model returned no vector.');
      return vector;
    });
    const candidates = await searchCandidates(this.storage, { userId: params.userId, scope, plan, embedding });
    const memories = this.#ranker
      .rank(params.query, plan, candidates)
      .filter((s) => s.score >= params.minScore)
      .slice(0, params.limit)
      .map((s) => ({ ...toListItem(s.candidate.memory), score: roundScore(s.score) }));
    return { memories, context: memories.map((m) => `- ${m.text}`).join('\n') };
  }

  async forget(caller: Caller, id: unknown): Promise<DeleteResult> {
    const ref = parseRef(parseInput(memoryRefSchema, id));
    return { deleted: await this.storage.deleteMemories([ref], { appId: caller.boundApp?.id ?? null }) };
  }

  async forgetMany(caller: Caller, input: unknown): Promise<DeleteResult> {
    const params = parseInput(forgetManyInputSchema, input);
    const refs = params.ids.map(parseRef);
    return { deleted: await this.storage.deleteMemories(refs, { appId: caller.boundApp?.id ?? null }) };
  }

  async forgetAll(caller: Caller, input: unknown): Promise<DeleteResult> {
    const params = parseInput(forgetAllInputSchema, input);
    const scope = await this.#readScope(caller, params.appId);
    if (!scope) return { deleted: 0 };
    return { deleted: await this.storage.deleteUserMemories(params.userId, scope) };
  }

  async health(): Promise<HealthReport> {
    let reason = 'The database is not answering.';
    const storeOk = await this.storage.ping().catch((error: unknown) => {
      // A store that knows why (a damaged file, say) says so; anything else stays generic.
      if (error instanceof MemoryError) reason = error.message;
      return false;
    });
    const model = this.embeddings.status;
    if (!storeOk) return { status: 'unavailable', store: 'unavailable', model, reason };
    if (model === 'failed') {
      return { status: 'unavailable', store: 'ok', model, reason: 'The embedding model could not be loaded; the server log says why.' };
    }
    if (model === 'loading') return { status: 'starting', store: 'ok', model, reason: 'The embedding model is loading.' };
    return { status: 'ok', store: 'ok', model };
  }
}

function parseIdempotencyKey(value: string): string {
  const result = idempotencyKeySchema.safeParse(value);
  if (result.success) return result.data;
  const message = result.error.issues[0]?.message ?? 'Idempotency-Key is invalid.';
  throw new MemoryError('validation_error', message, { details: [{ path: 'Idempotency-Key', message }] });
}

function parseRef(value: string): MemoryRef {
  const ref = parseMemoryRef(value);
  // The schema has already checked the form; this only narrows the type.
  if (!ref) throw new MemoryError('validation_error', `"${value}" is not a memory id.`);
  return ref;
}

function replay(storedHash: string, requestHash: string, response: string): StoreOutcome {
  if (storedHash !== requestHash) {
    throw new MemoryError(
      'idempotency_conflict',
      'This Idempotency-Key was already used with a different request body; use a new key for a new memory.',
    );
  }
  return { result: JSON.parse(response) as StoreResult, replayed: true };
}

/** Scores travel with four decimals: enough to threshold, without float noise in answers. */
function roundScore(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
