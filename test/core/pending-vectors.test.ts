/**
 * Storing while the embedding endpoint is down (issue 31), on both backends: the memory is stored without its
 * vector (vectorPending), found by its words at once, and by its meaning once the backfill has embedded it; a refusal
 * (401, a vector of another dimension) is still an error; an update during the backfill is never overwritten by a
 * stale vector; the endpoint flapping and a shutdown mid-batch lose nothing. The model is the hash model behind a
 * real OpenAI-compatible server on loopback (tools/shared/embeddings-endpoint.server.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryError } from '../../src/core/errors.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { VectorBackfill } from '../../src/runtime/backfill.js';
import { openRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime/runtime.js';
import { useEmbeddingsEndpoint } from '../helpers/embeddings-endpoint.js';

const endpoint = useEmbeddingsEndpoint('pending');

/** Every attempt (the first and its 3 retries) answers 503: the endpoint is down for this call and the next ones. */
const down = (): void => endpoint.server.fail({ kind: 'status', status: 503 });
const up = (): void => endpoint.server.fail({ kind: 'ok' }, 0);

/** A runtime on the hash model behind the test endpoint, over `storage`. */
function endpointRuntime(storage: { dbPath: string; databaseUrl?: string }, options: Pick<RuntimeOptions, 'waitForEndpoint' | 'backfill'>): Promise<Runtime> {
  return openRuntime({ ...storage, model: 'remote-hash', modelDir: undefined, endpoint: { url: endpoint.server.url }, ...options });
}

/** Resolves once no memory waits for its vector (or after `ms`); the caller checks which. */
async function drained(runtime: Runtime, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await runtime.store.countPendingVectors()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe.each(endpoint.backends)('storing with the embedding endpoint down on %s', (_name, storage) => {
  let runtime: Runtime;
  const open = async (): Promise<Runtime> => {
    // The loop's own rounds are put off (an hour): the tests run rounds themselves, one at a time.
    const opened = await endpointRuntime(storage(), { backfill: { idleMs: 3_600_000, backoffMs: 3_600_000 } });
    await opened.modelReady;
    return opened;
  };
  const service = () => runtime.service;
  const get = (id: string) => service().get(LOCAL_CALLER, id);
  /** Stores `text` pending (the endpoint down), then starts a backfill round whose call takes `ms` (running when this resolves). */
  const pendingThenSlowRound = async (userId: string, text: string, ms: number) => {
    down();
    const stored = await service().store(LOCAL_CALLER, { userId, text });
    expect(stored.result.vectorPending).toBe(true);
    endpoint.server.fail({ kind: 'slow', ms }, 1);
    const round = runtime.backfill!.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { stored, round };
  };

  beforeAll(async () => {
    up();
    runtime = await open();
    // Its calibration fitted first (self-calibration.ts), so that no fit is running while the endpoint is down.
    await expect(runtime.calibrated).resolves.toBe('fitted');
  });
  afterAll(async () => {
    up();
    await runtime.close();
  });

  it('stores a pending memory found by its words, then by its meaning once the endpoint is back and the backfill ran', async () => {
    await service().store(LOCAL_CALLER, { userId: 'u1', text: 'Mia was born in 2019.' });
    const kept = await service().store(LOCAL_CALLER, { userId: 'u1', text: 'The team meets on Mondays.' });
    expect(kept.result.vectorPending).toBeUndefined();

    down();
    const stored = await service().store(LOCAL_CALLER, { userId: 'u1', text: 'Anna works at a bakery in Berlin.' });
    expect(stored.result).toMatchObject({ duplicate: false, vectorPending: true });
    expect((await get(stored.result.id)).vectorPending).toBe(true);
    // A text changed while down is pending too (its old vector is gone with its old text).
    const updated = await service().update(LOCAL_CALLER, kept.result.id, { text: 'The team meets on Tuesdays at the bakery.' });
    expect(updated.vectorPending).toBe(true);
    expect((await service().health()).embeddingBacklog).toBe(2);

    // Found by its words at once; its score is the words' (no cosine, path "words"), and it says it is pending.
    const words = await service().recall(LOCAL_CALLER, { userId: 'u1', query: 'Where does Anna work, at the bakery?', minScore: 0, explain: true });
    const anna = words.memories.find((m) => m.id === stored.result.id);
    expect(anna).toMatchObject({ vectorPending: true, explain: { path: 'words', cosine: 0 } });

    // A round while the endpoint is still down fails, stores nothing and gives its claims back.
    await expect(runtime.backfill!.runOnce()).rejects.toThrow(MemoryError);
    expect(await runtime.store.countPendingVectors()).toBe(2);

    up();
    expect(await runtime.backfill!.runOnce()).toEqual({ claimed: 2, filled: 2 });
    expect((await service().health()).embeddingBacklog).toBeUndefined();
    expect((await get(stored.result.id)).vectorPending).toBeUndefined();
    const meaning = await service().recall(LOCAL_CALLER, { userId: 'u1', query: 'Where does Anna work, at the bakery?', minScore: 0, explain: true });
    // (Its path may still be "words": the calibration fitted for the hash model decides which languages it reads.)
    expect(meaning.memories[0]?.id).toBe(stored.result.id);
    expect(meaning.memories[0]?.explain?.cosine).toBeGreaterThan(0);
    expect(meaning.memories.every((m) => m.vectorPending === undefined)).toBe(true);
  }, 60_000);

  it('refuses as before when the endpoint refuses the key (401) or answers another dimension, storing nothing', async () => {
    const before = await runtime.store.countMemories();
    endpoint.server.fail({ kind: 'status', status: 401 }, 1);
    await expect(service().store(LOCAL_CALLER, { userId: 'u2', text: 'A refused memory.' })).rejects.toMatchObject({ code: 'unavailable' });
    endpoint.server.fail({ kind: 'wrong-dimension' }, 1);
    await expect(service().store(LOCAL_CALLER, { userId: 'u2', text: 'A memory of the wrong size.' })).rejects.toMatchObject({ code: 'unavailable' });
    endpoint.server.fail({ kind: 'status', status: 403 }, 1);
    await expect(service().putByKey(LOCAL_CALLER, 'k', { userId: 'u2', text: 'A refused keyed memory.' })).rejects.toMatchObject({ code: 'unavailable' });
    expect(await runtime.store.countMemories()).toBe(before);
    expect(await runtime.store.countPendingVectors()).toBe(0);
  });

  it('keeps the new text when an update lands while the backfill embeds the old one', async () => {
    // The backfill's call is slow; the update's (endpoint up) is not, and lands first.
    const { stored, round } = await pendingThenSlowRound('u3', 'The old address is Elm Street 4.', 1_500);
    const updated = await service().update(LOCAL_CALLER, stored.result.id, { text: 'The new address is Oak Avenue 9.' });
    expect(updated.vectorPending).toBeUndefined();
    expect(await round).toEqual({ claimed: 1, filled: 0 });
    // The vector is the new text's: recalled by its meaning, not the old one's.
    const found = await service().recall(LOCAL_CALLER, { userId: 'u3', query: 'Oak Avenue 9', minScore: 0, explain: true });
    expect(found.memories[0]?.explain?.cosine).toBeGreaterThan(0.5);

    // While down, an update of a memory being backfilled stays pending, for its own vector.
    down();
    const other = await service().store(LOCAL_CALLER, { userId: 'u3', text: 'The meeting is in room 12.' });
    const claimed = await runtime.store.claimPendingVectors(10, 60_000);
    expect(claimed.map((m) => m.text)).toEqual(['The meeting is in room 12.']);
    expect((await service().update(LOCAL_CALLER, other.result.id, { text: 'The meeting is in room 14.' })).vectorPending).toBe(true);
    up();
    // The stale vector (of "room 12") is not written; the next round embeds "room 14".
    const [stale] = await runtime.service.embeddings.embed(['The meeting is in room 12.'], 'document');
    expect(await runtime.store.fillPendingVectors(claimed.map((m) => ({ ...m, embedding: stale! })))).toBe(0);
    const asked = endpoint.server.requests.length;
    expect(await runtime.backfill!.runOnce()).toEqual({ claimed: 1, filled: 1 });
    expect(endpoint.server.requests.slice(asked).flatMap((r) => r.input)).toEqual(['The meeting is in room 14.']);
  }, 60_000);

  it('fills the backlog while the endpoint flaps, backing off between failed rounds', async () => {
    down();
    const ids: string[] = [];
    for (const text of ['Flap one is stored.', 'Flap two is stored.', 'Flap three is stored.']) {
      ids.push((await service().store(LOCAL_CALLER, { userId: 'u4', text })).result.id);
    }
    // Down for one whole call (4 attempts) and half of the next: the second round's retry gets through.
    endpoint.server.fail({ kind: 'status', status: 502 }, 6);
    const loop = new VectorBackfill({ store: runtime.store, embeddings: runtime.service.embeddings, batchSize: 2, idleMs: 50, backoffMs: 50, maxBackoffMs: 200 });
    loop.start();
    await drained(runtime, 30_000);
    await loop.stop();
    expect(await runtime.store.countPendingVectors()).toBe(0);
    for (const id of ids) expect((await get(id)).vectorPending).toBeUndefined();
  }, 60_000);

  it('stores pending on a node started while the endpoint is down (a database of this model), and embeds once it answers', async () => {
    down();
    const started = Date.now();
    const late = await endpointRuntime(storage(), { waitForEndpoint: true, backfill: { idleMs: 60_000 } });
    try {
      // Waits for the first probe's retries (about 3.5 s), not for the model's 30 s.
      const stored = await late.service.store(LOCAL_CALLER, { userId: 'u6', text: 'Stored before the endpoint ever answered.' });
      expect(stored.result.vectorPending).toBe(true);
      expect(Date.now() - started).toBeLessThan(20_000);
      const words = await late.service.recall(LOCAL_CALLER, { userId: 'u6', query: 'before the endpoint answered', minScore: 0 });
      expect(words.memories.map((m) => m.id)).toContain(stored.result.id);
      up();
      await late.modelReady;
      // The backfill's first round runs once the model is ready.
      await drained(late);
      expect((await late.service.get(LOCAL_CALLER, stored.result.id)).vectorPending).toBeUndefined();
    } finally {
      up();
      await late.close();
    }
  }, 60_000);

  it('gives its claims back when the node shuts down mid-batch, and another start embeds them', async () => {
    const { stored, round } = await pendingThenSlowRound('u5', 'Stored just before a shutdown.', 5_000);
    await runtime.close();
    // Closing the embedder ended the call in flight; the claim went back before the store closed.
    await expect(round).rejects.toThrow();

    up();
    runtime = await open();
    // The new start's first round (once the model is ready) takes the memory at once.
    await drained(runtime);
    expect((await get(stored.result.id)).vectorPending).toBeUndefined();
  }, 60_000);
});

describe('a new database while the endpoint has never answered', () => {
  it('refuses a store with 503 (no model, so no dimension, is known yet) and stores nothing', async () => {
    down();
    const fresh = await endpointRuntime({ dbPath: endpoint.file('fresh.db') }, { waitForEndpoint: true, backfill: true });
    try {
      await expect(fresh.service.store(LOCAL_CALLER, { userId: 'u', text: 'Nowhere to keep it yet.' })).rejects.toMatchObject({ code: 'unavailable' });
      expect(await fresh.store.countMemories()).toBe(0);
    } finally {
      up();
      await fresh.close();
    }
  }, 60_000);
});
