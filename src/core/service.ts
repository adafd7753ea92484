import { z } from 'zod';
import { createHash } from 'node:crypto';
import { findOrCreateApp } from './apps.js';
import { searchCandidates } from './candidates.js';
import { canonicalJson } from './canonical-json.js';
import { isTransientEmbedFailure } from './embedder.js';
import type { EmbeddingState } from './embedding-state.js';
import { MemoryError } from './errors.js';
import { Chore, pruneInBatches } from './housekeeping.js';
import { newMemoryId, newUuid, parseMemoryRef, type MemoryRef } from './ids.js';
import { DEFAULT_APP_SLUG, LIMITS } from './limits.js';
import { silentLogger, type Logger } from './logger.js';
import { compareScored } from './ranking/hybrid-ranker.js';
import { speaksAsSelf } from './ranking/self.js';
import type { QueryPlan, Ranker, ScoredCandidate } from './ranking/types.js';
import {
  forgetAllInputSchema,
  forgetManyInputSchema,
  idempotencyKeySchema,
  keyRefInputSchema,
  listInputSchema,
  listUsersInputSchema,
  memoryKeySchema,
  memoryRefSchema,
  putByKeyInputSchema,
  recallInputSchema,
  type RecallParams,
  storeInputSchema,
  updateInputSchema,
  type DeleteResult,
  type ListItem,
  type ListResult,
  type ListUsersResult,
  type MemoryView,
  type RecallResult,
  type StoreParams,
  type StoreResult,
} from './schemas.js';
import type { AppScope, Candidate, KeySlot, MemoryChange, MemoryFilter, MemoryStore } from './store.js';
import type { App, Caller, MemoryRecord } from './types.js';
import { parseInput } from './validation.js';

const keyOnlySchema = z.object({ key: memoryKeySchema });

export interface StoreOptions {
  /** The Idempotency-Key of the request, if any. */
  idempotencyKey?: string | undefined;
}

export interface StoreOutcome {
  /** `result.duplicate`: a live memory of the user and app already held the text; it is answered, nothing stored. */
  result: StoreResult;
  /** True when an earlier response was replayed for the same Idempotency-Key. */
  replayed: boolean;
}

/** What a store under a caller's key did: created a memory, or replaced the one holding the key (same id). */
export interface PutOutcome {
  memory: MemoryView;
  created: boolean;
}

export interface HealthReport {
  status: 'ok' | 'starting' | 'unavailable';
  store: 'ok' | 'unavailable';
  model: 'ready' | 'loading' | 'failed';
  /** Why the service is not ok, in a sentence. */
  reason?: string;
  /**
   * Where the score map comes from (ranking/calibrated-ranker.ts): 'pending' while the service fits one for a model
   * that has none (the service is ok meanwhile, with a conservative map). Absent with a fixed ranker.
   */
  calibration?: 'builtin' | 'fitted' | 'pending' | 'failed';
  /**
   * Memories stored while the embedding endpoint was down that still wait for their vector (the backfill embeds
   * them); absent when there are none. The service is ok meanwhile: they are found by their words.
   */
  embeddingBacklog?: number;
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
  return {
    id: memory.id,
    text: memory.text,
    createdAt: memory.createdAt,
    updatedAt: memory.updatedAt,
    expiresAt: memory.expiresAt,
    metadata: memory.metadata,
    appId: memory.app.slug,
    ...(memory.key == null ? {} : { key: memory.key }),
    ...(memory.vectorPending === true ? { vectorPending: true as const } : {}),
  };
}

function toMemoryView(memory: MemoryRecord): MemoryView {
  return { ...toListItem(memory), userId: memory.userId };
}

function storeResult(
  memory: { id: string; userId: string; createdAt: string; vectorPending?: true | undefined },
  app: App,
  duplicate: boolean,
): StoreResult {
  return {
    id: memory.id,
    userId: memory.userId,
    appId: app.slug,
    createdAt: memory.createdAt,
    duplicate,
    ...(memory.vectorPending === true ? { vectorPending: true as const } : {}),
  };
}

/** One line of recall's context: the date the fact was last stated (updatedAt, UTC), so an agent can tell newer from older. */
export function contextLine(item: { text: string; updatedAt: string }): string {
  return `- [${item.updatedAt.slice(0, 10)}] ${item.text}`;
}

function keyNotFound(key: string): MemoryError {
  return new MemoryError('not_found', `No memory with the key "${key}" is visible to this key for this user and app (unknown or expired).`);
}

function notFound(id: string): MemoryError {
  return new MemoryError('not_found', `No memory "${id}" is visible to this key (unknown, expired, or in another app).`);
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
  readonly #logger: Logger;
  readonly #pruneIdempotency: Chore;
  readonly #purgeExpired: Chore;

  constructor(deps: MemoryServiceDeps) {
    this.storage = deps.store;
    this.embeddings = deps.embeddings;
    this.#ranker = deps.ranker;
    this.#now = deps.now ?? (() => new Date());
    this.#logger = deps.logger ?? silentLogger;
    this.#pruneIdempotency = new Chore(() => pruneInBatches((limit) => this.storage.pruneIdempotency(this.#notBefore(), limit)), {
      name: 'idempotency pruning',
      logger: deps.logger ?? silentLogger,
      now: () => this.#now().getTime(),
    });
    this.#purgeExpired = new Chore(() => pruneInBatches((limit) => this.storage.purgeExpired(this.#now().toISOString(), limit)), {
      name: 'expired memory purge',
      logger: deps.logger ?? silentLogger,
      now: () => this.#now().getTime(),
    });
  }

  /** Resolves once the housekeeping runs in flight have ended (tests, shutdown). */
  async housekeepingSettled(): Promise<void> {
    await Promise.all([this.#pruneIdempotency.settled(), this.#purgeExpired.settled()]);
  }

  /**
   * An expiry from `ttlSeconds` (from `now`) or `expiresAt` (null clears it); undefined when neither was given. The
   * caller passes the same `now` it stamps the memory with, so that a ttl of 1 s is exactly 1 s after createdAt.
   */
  #expiry(params: { expiresAt?: string | null | undefined; ttlSeconds?: number | undefined }, now: Date): string | null | undefined {
    if (params.ttlSeconds !== undefined) return new Date(now.getTime() + params.ttlSeconds * 1000).toISOString();
    return params.expiresAt;
  }

  /** What a read of the user's memories sees: live at this instant, through the request's filters. */
  #filter(params: { metadata?: Record<string, unknown> | undefined; since?: string | undefined; until?: string | undefined }): MemoryFilter {
    return { now: this.#now().toISOString(), metadata: params.metadata, since: params.since, until: params.until };
  }

  /** The scope of calls that address one memory by id: a bound key sees its app, an unbound key all. */
  #idScope(caller: Caller): AppScope {
    return { appId: caller.boundApp?.id ?? null };
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

  /** The app a store names: `appId`, else the key's app, else "default"; a key bound to another app is refused. */
  #storeAppRef(caller: Caller, appRef: string | undefined): string {
    const ref = appRef ?? caller.boundApp?.slug ?? DEFAULT_APP_SLUG;
    this.#assertAllowed(caller, ref);
    return ref;
  }

  /** The app a store writes to; a key bound to another app is refused at once (before any model work). */
  #appForStore(caller: Caller, appRef: string | undefined): Promise<App> {
    return findOrCreateApp(this.storage, this.#storeAppRef(caller, appRef));
  }

  /**
   * The vector of a text to store; null when the embedding endpoint is down for now (a transient failure:
   * core/embedder.ts): the memory is then stored pending, found by its words, and the backfill (runtime/backfill.ts)
   * embeds it once the endpoint answers. Any other failure (a refused key, a vector of another dimension) fails the
   * write as before.
   */
  async #embedDocument(text: string, caller: string): Promise<Float32Array | null> {
    let vectors: Float32Array[];
    try {
      vectors = await this.embeddings.embed([text], 'document', caller);
    } catch (error) {
      if (!(error instanceof MemoryError && error.code === 'unavailable' && isTransientEmbedFailure(error.cause))) throw error;
      // An endpoint that has not answered once since the start: only a database already built with this model
      // takes the memory (a new one has no vector index yet, and another model's would refuse this one later).
      if (this.embeddings.status !== 'ready' && (await this.storage.getModel())?.model !== this.embeddings.embedder.model) throw error;
      this.#logger.warn('stored without its vector: the embedding endpoint is down; the backfill embeds it once it answers', {
        cause: error.cause instanceof Error ? error.cause.message : undefined,
      });
      return null;
    }
    const [vector] = vectors;
    if (!vector) throw new MemoryError('server_error', 'The embedding model returned no vector.');
    return vector;
  }

  // ---- Operations ---------------------------------------------------------------------------------------------

  async store(caller: Caller, input: unknown, options: StoreOptions = {}): Promise<StoreOutcome> {
    const params = parseInput(storeInputSchema, input);
    // A store under a key is an upsert, idempotent by itself: repeating it leaves the same memory, so an
    // Idempotency-Key adds nothing and is not recorded.
    if (params.key !== undefined) {
      const { memory, created } = await this.#upsert(caller, params, params.key);
      const result: StoreResult = {
        id: memory.id,
        userId: memory.userId,
        appId: memory.appId,
        createdAt: memory.createdAt,
        duplicate: false,
        key: params.key,
        updated: !created,
        ...(memory.vectorPending === true ? { vectorPending: true as const } : {}),
      };
      return { result, replayed: false };
    }
    const idempotencyKey =
      options.idempotencyKey === undefined ? undefined : parseIdempotencyKey(options.idempotencyKey);
    // Expiry comes with traffic: any store may be the one that finds expired memories to purge.
    this.#purgeExpired.poke();
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

    // The app is resolved (a database round trip on PostgreSQL) while the model embeds, not before it.
    const appLookup = this.#appForStore(caller, params.appId);
    const [app, embedding] = await Promise.all([appLookup, this.#embedDocument(params.text, ownerKey)]);
    const now = this.#now();
    const memory = {
      id: newMemoryId(),
      uuid: newUuid(),
      userId: params.userId,
      appId: app.id,
      text: params.text,
      metadata: params.metadata ?? {},
      createdAt: params.createdAt ?? now.toISOString(),
      expiresAt: this.#expiry(params, now) ?? null,
      embedding,
      ...(embedding === null ? { vectorPending: true as const } : {}),
    };
    const result = storeResult(memory, app, false);
    const outcome = await this.storage.insertMemory(
      memory,
      idempotencyKey === undefined
        ? undefined
        : {
            keyId: ownerKey,
            key: idempotencyKey,
            requestHash,
            response: JSON.stringify(result),
            duplicateResponse: (existing) => JSON.stringify(storeResult(existing, app, true)),
            notBefore,
          },
    );
    // Two identical requests raced: the first one's transaction won, this one stored nothing.
    if (outcome.kind === 'replayed') return replay(outcome.record.requestHash, requestHash, outcome.record.response);
    // The text is already remembered: the existing memory answers, and nothing of this request is merged into it.
    if (outcome.kind === 'duplicate') return { result: storeResult(outcome.memory, app, true), replayed: false };
    return { result, replayed: false };
  }

  /**
   * Stores a memory under the caller's key (PUT /v1/memories/by-key/{key}): creates it, or replaces the live memory
   * holding the key in that user and app whole (text and vector, metadata, expiry; id and createdAt stay).
   */
  async putByKey(caller: Caller, key: unknown, input: unknown): Promise<PutOutcome> {
    const parsedKey = parseKey(key);
    const params = parseInput(putByKeyInputSchema, input);
    return this.#upsert(caller, params, parsedKey);
  }

  async #upsert(caller: Caller, params: Omit<StoreParams, 'key'>, key: string): Promise<PutOutcome> {
    this.#purgeExpired.poke();
    const ownerKey = caller.keyId ?? 'local';
    const appLookup = this.#appForStore(caller, params.appId);
    const [app, embedding] = await Promise.all([appLookup, this.#embedDocument(params.text, ownerKey)]);
    const now = this.#now();
    const outcome = await this.storage.upsertMemory(
      {
        id: newMemoryId(),
        uuid: newUuid(),
        userId: params.userId,
        appId: app.id,
        key,
        text: params.text,
        metadata: params.metadata ?? {},
        createdAt: params.createdAt ?? now.toISOString(),
        expiresAt: this.#expiry(params, now) ?? null,
        embedding,
      },
      now.toISOString(),
    );
    return { memory: toMemoryView(outcome.memory), created: outcome.kind === 'created' };
  }

  /** Where a key lives: the user, and the app a store would pick; undefined when that app does not exist. */
  async #keySlot(caller: Caller, input: unknown): Promise<{ slot: KeySlot | undefined; key: string }> {
    const params = parseInput(keyRefInputSchema, input);
    const app = await this.storage.findApp(this.#storeAppRef(caller, params.appId));
    return { slot: app ? { userId: params.userId, appId: app.id, key: params.key } : undefined, key: params.key };
  }

  /** The memory stored under a caller's key: 404 not_found when there is none (or it expired). */
  async getByKey(caller: Caller, input: unknown): Promise<MemoryView> {
    const { slot, key } = await this.#keySlot(caller, input);
    const memory = slot && (await this.storage.getMemoryByKey(slot, this.#now().toISOString()));
    if (!memory) throw keyNotFound(key);
    return toMemoryView(memory);
  }

  /** Deletes the memory stored under a caller's key: `{ deleted: 1 }`, or `{ deleted: 0 }` when there was none. */
  async forgetByKey(caller: Caller, input: unknown): Promise<DeleteResult> {
    const { slot } = await this.#keySlot(caller, input);
    return { deleted: slot ? await this.storage.deleteMemoryByKey(slot, this.#now().toISOString()) : 0 };
  }

  /** One memory by id (`mem_...` or UUID): 404 not_found when unknown, expired, or in an app the key cannot see. */
  async get(caller: Caller, id: unknown): Promise<MemoryView> {
    const ref = parseRef(parseInput(memoryRefSchema, id));
    const memory = await this.storage.getMemory(ref, this.#idScope(caller), this.#now().toISOString());
    if (!memory) throw notFound(ref.value);
    return toMemoryView(memory);
  }

  /**
   * Changes a memory's text (embedded again, in the same transaction as the row), metadata (replaced whole) and/or
   * expiry; keeps its id and createdAt, sets updatedAt. A text another live memory of the user and app holds is
   * refused (409 duplicate_memory), so an update never makes a duplicate either.
   */
  async update(caller: Caller, id: unknown, input: unknown): Promise<MemoryView> {
    const ref = parseRef(parseInput(memoryRefSchema, id));
    const params = parseInput(updateInputSchema, input);
    this.#purgeExpired.poke();
    const scope = this.#idScope(caller);
    const clock = this.#now();
    const now = clock.toISOString();
    const current = await this.storage.getMemory(ref, scope, now);
    if (!current) throw notFound(ref.value);
    const change: MemoryChange = { updatedAt: now, now, metadata: params.metadata, expiresAt: this.#expiry(params, clock) };
    // The embedding depends on the new text only, so it is made before the transaction (the model is slow) and
    // written in it; an unchanged text keeps its vector.
    if (params.text !== undefined && params.text !== current.text) {
      change.text = { text: params.text, embedding: await this.#embedDocument(params.text, caller.keyId ?? 'local') };
    }
    const outcome = await this.storage.updateMemory(ref, scope, change);
    if (outcome.kind === 'not_found') throw notFound(ref.value);
    if (outcome.kind === 'duplicate') {
      const message = `Another memory of this user and app already holds this text: ${outcome.memory.id}. Update or forget that one instead.`;
      throw new MemoryError('duplicate_memory', message, { details: [{ path: 'text', message }] });
    }
    return toMemoryView(outcome.memory);
  }

  async list(caller: Caller, input: unknown): Promise<ListResult> {
    const params = parseInput(listInputSchema, input);
    const scope = await this.#readScope(caller, params.appId);
    const envelope = { page: params.page, pageSize: params.pageSize };
    if (!scope) return { memories: [], total: 0, ...envelope };
    const offset = pageOffset(params.page, params.pageSize);
    this.#purgeExpired.poke();
    const { items, total } = await this.storage.listMemories({
      userId: params.userId,
      scope,
      offset,
      limit: params.pageSize,
      filter: this.#filter(params),
    });
    return { memories: items.map(toListItem), total, ...envelope };
  }

  /** The users with memories in the apps the caller can see (or in `appId`): the most recently written to first. */
  async listUsers(caller: Caller, input: unknown): Promise<ListUsersResult> {
    const params = parseInput(listUsersInputSchema, input);
    const scope = await this.#readScope(caller, params.appId);
    const envelope = { page: params.page, pageSize: params.pageSize };
    if (!scope) return { users: [], total: 0, ...envelope };
    const offset = pageOffset(params.page, params.pageSize);
    const { items, total } = await this.storage.listUsers({ scope, offset, limit: params.pageSize });
    return { users: items, total, ...envelope };
  }

  async recall(caller: Caller, input: unknown): Promise<RecallResult> {
    const params = parseInput(recallInputSchema, input);
    const scope = await this.#readScope(caller, params.appId);
    if (!scope) return { memories: [], context: '' };
    const memories = (await this.#rankParts(caller, params, scope))
      // On the score as reported (4 decimals): a memory answered with 0.8055 must pass minScore 0.8055.
      .filter((s) => roundScore(s.score) >= params.minScore)
      .slice(0, params.limit)
      .map((s) => ({
        ...toListItem(s.candidate.memory),
        score: roundScore(s.score),
        ...(params.explain && s.parts ? { explain: s.parts } : {}),
      }));
    return { memories, context: memories.map(contextLine).join('\n') };
  }

  /**
   * Recall of a message by its parts (ranking/query-parts.ts): each part that asks or states something is planned,
   * embedded (all in one batch), searched and ranked on its own, and a memory scores by the part it answers best.
   * A message of one part is one query, as before.
   */
  async #rankParts(caller: Caller, params: RecallParams, scope: AppScope): Promise<ScoredCandidate[]> {
    const parts = this.#ranker.parts(params.query);
    const plans = parts.map((part) => this.#ranker.plan(part, params.limit, params.query));
    let wordsOnly = false;
    const vectors = this.embeddings.embed(
      plans.map((plan) => plan.embedText),
      'query',
      caller.keyId ?? 'local',
    ).catch((error: unknown) => {
      // The model (or its endpoint) cannot embed the query now: answer on the words rather than fail the recall.
      if (!(error instanceof MemoryError && error.code === 'unavailable')) throw error;
      this.#logger.warn('recall answered on the words: the query could not be embedded', {
        error: error.message,
        cause: error.cause instanceof Error ? error.cause.message : undefined,
      });
      wordsOnly = true;
      return null;
    });
    this.#purgeExpired.poke();
    const search = (plan: QueryPlan, vectors: Promise<Float32Array[] | null>, i: number): Promise<Candidate[]> => {
      const embedding = vectors.then((all) => {
        if (all === null) return null;
        const vector = all[i];
        if (!vector) throw new MemoryError('server_error', 'The embedding model returned no vector.');
        return vector;
      });
      return searchCandidates(this.storage, { userId: params.userId, scope, plan, embedding, filter: this.#filter(params) });
    };
    const found = await Promise.all(plans.map((plan, i) => search(plan, vectors, i)));
    const rankings = found.map((candidates, i) => {
      const plan = plans[i] as QueryPlan;
      return this.#ranker.rank(parts[i] ?? params.query, wordsOnly ? { ...plan, wordsOnly } : plan, candidates);
    });
    // A part read another way is planned, embedded (in one batch), searched and ranked again; `query` is the text
    // the word side ranks it by.
    const readAgain = async (asked: readonly { i: number; query: string; plan: QueryPlan }[]): Promise<ScoredCandidate[][]> => {
      const again = this.embeddings.embed(
        asked.map((a) => a.plan.embedText),
        'query',
        caller.keyId ?? 'local',
      );
      return Promise.all(asked.map(async (a, j) => this.#ranker.rank(a.query, a.plan, await search(a.plan, again, j))));
    };
    // Typos read as the words of the memories found ("what am I alergic to?" -> "allergic", text/typos.ts): the
    // corrected part is searched and ranked in place of the part as typed (whose unknown words meet nothing, and so
    // cannot tell a name the memories do not hold: "when is Musas birthday" -> any birthday), and the readings below
    // start from it. Typo probe: unanswerable questions with a typo answered with nothing 0.86 -> 0.87-0.90.
    const fixed = wordsOnly ? undefined : this.#ranker.corrected(parts, found.flat());
    if (fixed !== undefined) {
      const asked = fixed.flatMap((text, i) => (text === undefined ? [] : [{ i, query: text, plan: this.#ranker.plan(text, params.limit, params.query) }]));
      const again = await readAgain(asked);
      asked.forEach((a, j) => {
        rankings[a.i] = withReading(again[j] ?? [], { corrected: a.query });
        parts[a.i] = a.query;
        plans[a.i] = a.plan;
      });
    }
    // "I" and "my" are the user: a first-person part is read as an agent's note too ("what is user allergic to?",
    // ranking/self.ts). Same terms, so the word side is unchanged; a memory keeps the better of the two readings.
    // Answered on the words (the model is unavailable), the second reading would add nothing.
    const self = wordsOnly ? undefined : this.#ranker.asUser(parts);
    if (self !== undefined) {
      const asked = self.flatMap((text, i) =>
        text === undefined ? [] : [{ i, query: parts[i] ?? params.query, self: text, plan: { ...(plans[i] as QueryPlan), embedText: this.#ranker.plan(text, params.limit).embedText } }],
      );
      const again = await readAgain(asked);
      asked.forEach((a, j) => {
        rankings[a.i] = betterOf(rankings[a.i] ?? [], again[j] ?? [], a.self);
      });
    }
    return this.#ranker.fuse(parts, rankings);
  }

  async forget(caller: Caller, id: unknown): Promise<DeleteResult> {
    const ref = parseRef(parseInput(memoryRefSchema, id));
    return { deleted: await this.storage.deleteMemories([ref], this.#idScope(caller)) };
  }

  async forgetMany(caller: Caller, input: unknown): Promise<DeleteResult> {
    const params = parseInput(forgetManyInputSchema, input);
    const refs = params.ids.map(parseRef);
    return { deleted: await this.storage.deleteMemories(refs, this.#idScope(caller)) };
  }

  async forgetAll(caller: Caller, input: unknown): Promise<DeleteResult> {
    const params = parseInput(forgetAllInputSchema, input);
    const scope = await this.#readScope(caller, params.appId);
    if (!scope) return { deleted: 0 };
    return { deleted: await this.storage.deleteUserMemories(params.userId, scope, this.#filter(params)) };
  }

  async health(): Promise<HealthReport> {
    let reason = 'The database is not answering.';
    const storeOk = await this.storage.ping().catch((error: unknown) => {
      // A store that knows why (a damaged file, say) says so; anything else stays generic.
      if (error instanceof MemoryError) reason = error.message;
      return false;
    });
    const model = this.embeddings.status;
    const status = this.#ranker.calibrationStatus?.();
    const backlog = storeOk ? await this.storage.countPendingVectors().catch(() => 0) : 0;
    const calibration = { ...(status === undefined ? {} : { calibration: status }), ...(backlog > 0 ? { embeddingBacklog: backlog } : {}) };
    if (!storeOk) return { status: 'unavailable', store: 'unavailable', model, reason, ...calibration };
    if (model === 'failed') {
      return { status: 'unavailable', store: 'ok', model, reason: 'The embedding model could not be loaded; the server log says why.', ...calibration };
    }
    if (model === 'loading') return { status: 'starting', store: 'ok', model, reason: 'The embedding model is loading.', ...calibration };
    return { status: 'ok', store: 'ok', model, ...calibration };
  }
}

/**
 * One part's ranking read two ways (as typed, and as a note about the user): each memory keeps its better score, and
 * one that won by the second reading names it (explain.self). Sorted best first.
 */
function betterOf(typed: readonly ScoredCandidate[], asUser: readonly ScoredCandidate[], reading: string): ScoredCandidate[] {
  const best = new Map(typed.map((s) => [s.candidate.memory.id, s]));
  for (const s of asUser) {
    // A memory in the first person ("I'm vegetarian.", a turn of a chat) is met by the query as typed; the second
    // reading is for the others (LongMemEval, whose memories are the user's own messages: off-topic questions answered
    // with nothing 0.882 -> 0.867 without this, 0.873 with it; the chat sets the same either way).
    if (speaksAsSelf(s.candidate.memory.text)) continue;
    const known = best.get(s.candidate.memory.id);
    if (known === undefined || s.score > known.score) best.set(s.candidate.memory.id, { ...s, ...(s.parts ? { parts: { ...s.parts, self: reading } } : {}) });
  }
  return [...best.values()].sort(compareScored);
}

/** A ranking read another way, which replaces the ranking as typed: each memory's explain names the reading. */
function withReading(ranking: readonly ScoredCandidate[], reading: { corrected: string }): ScoredCandidate[] {
  return ranking.map((s) => (s.parts ? { ...s, parts: { ...s.parts, ...reading } } : s));
}

/** The first row of a page; a page so far out that the offset is not a safe integer is refused, not rounded. */
function pageOffset(page: number, pageSize: number): number {
  const offset = page * pageSize;
  if (!Number.isSafeInteger(offset)) {
    throw new MemoryError('validation_error', 'page is too large.', { details: [{ path: 'page', message: 'page is too large.' }] });
  }
  return offset;
}

function parseIdempotencyKey(value: string): string {
  const result = idempotencyKeySchema.safeParse(value);
  if (result.success) return result.data;
  const message = result.error.issues[0]?.message ?? 'Idempotency-Key is invalid.';
  throw new MemoryError('validation_error', message, { details: [{ path: 'Idempotency-Key', message }] });
}

/** A key from a URL path or a tool argument, reported under the field name `key`. */
function parseKey(value: unknown): string {
  return parseInput(keyOnlySchema, { key: value }).key;
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
  // A response recorded before stores could be duplicates has no `duplicate` field: it was a new memory.
  const recorded = JSON.parse(response) as Omit<StoreResult, 'duplicate'> & { duplicate?: boolean };
  return { result: { ...recorded, duplicate: recorded.duplicate ?? false }, replayed: true };
}

/** Scores travel with four decimals: enough to threshold, without float noise in answers. */
function roundScore(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
