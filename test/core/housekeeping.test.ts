import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EmbeddingState } from '../../src/core/embedding-state.js';
import { Chore, PRUNE_BATCH, PRUNE_MAX_BATCHES, pruneInBatches } from '../../src/core/housekeeping.js';
import { LIMITS } from '../../src/core/limits.js';
import type { Logger } from '../../src/core/logger.js';
import { HybridRanker } from '../../src/core/ranking/hybrid-ranker.js';
import { MemoryService } from '../../src/core/service.js';
import type { MemoryStore } from '../../src/core/store.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import type { Embedder } from '../../src/core/embedder.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (message) => warnings.push(message), error() {} };
}

describe('Chore', () => {
  it('runs at most once per interval, the first time one interval after the start, never twice at once', async () => {
    let now = 0;
    let runs = 0;
    let release: () => void = () => undefined;
    const chore = new Chore(
      async () => {
        runs++;
        await new Promise<void>((resolve) => (release = resolve));
        return 0;
      },
      { name: 'test chore', logger: recordingLogger(), intervalMs: 1_000, now: () => now },
    );
    chore.poke();
    await chore.settled();
    expect(runs).toBe(0);
    now = 1_000;
    chore.poke();
    chore.poke();
    await vi.waitFor(() => expect(runs).toBe(1));
    // Still running: a poke a whole interval later waits for the next one.
    now = 5_000;
    chore.poke();
    release();
    await chore.settled();
    expect(runs).toBe(1);
    now = 6_000;
    chore.poke();
    await vi.waitFor(() => expect(runs).toBe(2));
    release();
    await chore.settled();
  });

  it('logs a failure instead of throwing it, and tries again after the interval', async () => {
    let now = 0;
    const logger = recordingLogger();
    const task = vi.fn(() => Promise.reject(new Error('database away')));
    const chore = new Chore(task, { name: 'test chore', logger, intervalMs: 10, now: () => now });
    now = 10;
    expect(() => chore.poke()).not.toThrow();
    await vi.waitFor(() => expect(logger.warnings).toEqual(['test chore failed; it runs again later']));
    await chore.settled();
    now = 20;
    chore.poke();
    await vi.waitFor(() => expect(task).toHaveBeenCalledTimes(2));
    await chore.settled();
  });

  it('prunes in bounded batches until one comes back short, and stops at the cap', async () => {
    const calls: number[] = [];
    const removed = await pruneInBatches((limit) => {
      calls.push(limit);
      return Promise.resolve(calls.length < 3 ? limit : 7);
    });
    expect(calls).toEqual([PRUNE_BATCH, PRUNE_BATCH, PRUNE_BATCH]);
    expect(removed).toBe(2 * PRUNE_BATCH + 7);
    const endless = vi.fn((limit: number) => Promise.resolve(limit));
    expect(await pruneInBatches(endless)).toBe(PRUNE_MAX_BATCHES * PRUNE_BATCH);
    expect(endless).toHaveBeenCalledTimes(PRUNE_MAX_BATCHES);
  });
});

describe('MemoryService housekeeping: expired Idempotency-Key claims and expired memories', () => {
  const embedder: Embedder = {
    model: 'fake',
    ready: () => Promise.resolve({ model: 'fake', dimension: 2 }),
    embed: (texts) => Promise.resolve(texts.map(() => Float32Array.from([1, 0]))),
    close: () => Promise.resolve(),
  };
  let dir: string;
  let store: SqliteStore;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-memory-prune-'));
    store = SqliteStore.open({ path: join(dir, 'm.db') });
    await store.useModel({ model: 'fake', dimension: 2 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function service(storage: MemoryStore, now: () => Date, logger = recordingLogger()): MemoryService {
    return new MemoryService({ store: storage, embeddings: new EmbeddingState(embedder, embedder.ready()), ranker: new HybridRanker(), now, logger });
  }

  it('prunes claims older than the window from an idempotent store, in the background', async () => {
    const real = service(store, () => new Date());
    await real.store(LOCAL_CALLER, { userId: 'u', text: 'first' }, { idempotencyKey: 'k1' });
    const since = '2000-01-01T00:00:00.000Z';
    expect(await store.findIdempotency('local', 'k1', since)).toBeDefined();
    // A day and a minute later, by the service's clock: its next idempotent store prunes the first claim.
    let now = Date.now();
    const later = service(store, () => new Date(now));
    now += LIMITS.idempotencyTtlMs + 61_000;
    const outcome = await later.store(LOCAL_CALLER, { userId: 'u', text: 'second' }, { idempotencyKey: 'k2' });
    expect(outcome.replayed).toBe(false);
    await vi.waitFor(async () => expect(await store.findIdempotency('local', 'k1', since)).toBeUndefined());
    expect(await store.countMemories()).toBe(2);
  });

  it('answers the request as usual when pruning fails, and logs it', async () => {
    const broken = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'pruneIdempotency') return () => Promise.reject(new Error('disk on fire'));
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    let now = Date.now();
    const logger = recordingLogger();
    const memories = service(broken, () => new Date(now), logger);
    now += 61_000;
    const outcome = await memories.store(LOCAL_CALLER, { userId: 'u', text: 'kept' }, { idempotencyKey: 'k' });
    expect(outcome.result.userId).toBe('u');
    await vi.waitFor(() => expect(logger.warnings).toEqual(['idempotency pruning failed; it runs again later']));
  });

  it('counts ttlSeconds from the instant the memory is stamped with, even on a clock that moves between reads', async () => {
    // Every read of this clock is 1 ms later: a ttl taken from a second reading would come out 1 ms long.
    let now = Date.now();
    const memories = service(store, () => new Date(now++));
    const { result } = await memories.store(LOCAL_CALLER, { userId: 'u', text: 'door code 4711', ttlSeconds: 1 });
    const stored = await memories.get(LOCAL_CALLER, result.id);
    expect(Date.parse(stored.expiresAt ?? '') - Date.parse(stored.createdAt)).toBe(1_000);
    const updated = await memories.update(LOCAL_CALLER, result.id, { ttlSeconds: 5 });
    expect(Date.parse(updated.expiresAt ?? '') - Date.parse(updated.updatedAt)).toBe(5_000);
  });

  it('purges expired memories in the background, riding on traffic, and hides them before that', async () => {
    let now = Date.now();
    const memories = service(store, () => new Date(now));
    for (const text of ['brief one', 'brief two', 'brief three']) await memories.store(LOCAL_CALLER, { userId: 'u', text, ttlSeconds: 60 });
    await memories.store(LOCAL_CALLER, { userId: 'u', text: 'lasting' });
    expect(await store.countMemories()).toBe(4);
    now += 61_000;
    // The list already hides them (the service's clock), and its request starts the purge.
    expect((await memories.list(LOCAL_CALLER, { userId: 'u' })).memories.map((m) => m.text)).toEqual(['lasting']);
    await vi.waitFor(async () => expect(await store.countMemories()).toBe(1));
    await memories.housekeepingSettled();
    // Gone with their duplicate keys: the text can be stored again.
    expect((await memories.store(LOCAL_CALLER, { userId: 'u', text: 'brief one' })).result.duplicate).toBe(false);
  });
});
