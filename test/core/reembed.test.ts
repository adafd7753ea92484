/**
 * The reembed driver (core/reembed.ts) on both backends, with deterministic stand-in models: vectors from a hash of
 * the text, 16 dimensions for the old model and 8 for the new one, so that no model has to load.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reembed, type ReembedProgress } from '../../src/core/reembed.js';
import type { EmbeddingSwap, MemoryStore, ModelRecord, NewMemory } from '../../src/core/store.js';
import type { Embedder } from '../../src/core/embedder.js';
import { openPgStore } from '../../src/storage/postgres/index.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { hashVector as vectorOf, newMemory } from '../helpers/memories.js';
import { useTestDatabase } from '../helpers/postgres.js';

const OLD: ModelRecord = { model: 'old-hash', dimension: 16 };
const NEW: ModelRecord = { model: 'new-hash', dimension: 8 };
const COUNT = 150;

function hashVector(text: string, model: ModelRecord): Float32Array {
  return vectorOf(text, model.dimension, model.model);
}

type FakeEmbedder = Pick<Embedder, 'ready' | 'embed'> & { calls: number };

function fakeEmbedder(model: ModelRecord, options: { failOnCall?: number; beforeCall?: (call: number) => Promise<void> } = {}): FakeEmbedder {
  const embedder: FakeEmbedder = {
    calls: 0,
    ready: () => Promise.resolve(model),
    async embed(texts) {
      embedder.calls++;
      await options.beforeCall?.(embedder.calls);
      if (embedder.calls === options.failOnCall) throw new Error('model crashed');
      return texts.map((t) => hashVector(t, model));
    },
  };
  return embedder;
}

const pg = useTestDatabase();

describe.each(['sqlite', 'postgres'] as const)('reembed on %s', (kind) => {
  let dir: string;
  let store: MemoryStore;
  let appId: string;

  function memory(userId: string, text: string, minute: number): NewMemory {
    return newMemory({ userId, appId, text, minute, metadata: { minute }, embedding: hashVector(text, OLD) });
  }

  /** Every memory's text with whether its vector is the `model`'s. */
  async function vectorsOf(model: ModelRecord): Promise<Map<string, boolean>> {
    const out = new Map<string, boolean>();
    let after: string | null = null;
    do {
      const page = await store.exportMemories(after, 100);
      for (const m of page.memories) out.set(m.text, Array.from(m.embedding!).join() === Array.from(hashVector(m.text, model)).join());
      after = page.next;
    } while (after !== null);
    return out;
  }

  async function nearest(userId: string, text: string, model: ModelRecord): Promise<{ text: string; cosine: number } | undefined> {
    const found = await store.recallCandidates({
      userId,
      scope: { appId: null },
      embedding: hashVector(text, model),
      vectorK: 5,
      alsoIds: [],
    });
    const best = found.sort((a, b) => b.cosine - a.cosine)[0];
    return best && { text: best.memory.text, cosine: best.cosine };
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-memory-reembed-'));
    store = kind === 'sqlite' ? SqliteStore.open({ path: join(dir, 'm.db') }) : await openPgStore(pg().url, { schema: pg().newSchema() });
    await store.useModel(OLD);
    appId = (await store.ensureApp('default')).id;
    await store.insertMemories(Array.from({ length: COUNT }, (_, i) => memory(`u${i % 3}`, `memory number ${i}`, i)));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rebuilds every vector with the new model and dimension, and recall works afterwards', async () => {
    const progress: ReembedProgress[] = [];
    const embedder = fakeEmbedder(NEW);
    const result = await reembed(store, embedder, { batchSize: 32, onProgress: (p) => progress.push(p) });
    expect(result).toEqual({ from: OLD.model, to: NEW.model, dimension: NEW.dimension, memories: COUNT, late: 0 });
    // Five calls of 32 (the last one 22); the second pass finds nothing new and embeds nothing.
    expect(embedder.calls).toBe(5);
    expect(progress.at(-1)).toEqual({ done: COUNT, total: COUNT });
    expect(await store.getModel()).toEqual(NEW);
    await expect(store.useModel(OLD)).rejects.toThrow(/reembed/);
    expect([...(await vectorsOf(NEW)).values()].every(Boolean)).toBe(true);
    expect(await nearest('u1', 'memory number 43', NEW)).toEqual({ text: 'memory number 43', cosine: expect.closeTo(1, 5) as unknown });
    // Stores and recalls go on with the new model.
    await store.insertMemory({ ...memory('u1', 'a new fact', 999), embedding: hashVector('a new fact', NEW) });
    expect((await nearest('u1', 'a new fact', NEW))?.text).toBe('a new fact');
  });

  it('embeds memories stored meanwhile: by a second pass, and the last ones inside the swap', async () => {
    const duringPass = memory('u0', 'stored during the first pass', 500);
    const beforeSwap = memory('u2', 'stored just before the swap', 501);
    const embedder = fakeEmbedder(NEW, {
      beforeCall: async (call) => {
        if (call === 2) await store.insertMemory(duringPass);
      },
    });
    // What a writer does between the last pass and the swap.
    const racing = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'replaceEmbeddings') {
          return async (swap: EmbeddingSwap) => {
            await target.insertMemory(beforeSwap);
            return target.replaceEmbeddings(swap);
          };
        }
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const result = await reembed(racing, embedder, { batchSize: 32 });
    expect(result).toMatchObject({ memories: COUNT + 2, late: 1 });
    const vectors = await vectorsOf(NEW);
    expect(vectors.size).toBe(COUNT + 2);
    expect([...vectors.values()].every(Boolean)).toBe(true);
    expect((await nearest('u2', 'stored just before the swap', NEW))?.cosine).toBeCloseTo(1, 5);
  });

  it('leaves the old model and its vectors intact when the model fails mid-way, and can run again', async () => {
    await expect(reembed(store, fakeEmbedder(NEW, { failOnCall: 3 }), { batchSize: 32 })).rejects.toThrow('model crashed');
    expect(await store.getModel()).toEqual(OLD);
    expect([...(await vectorsOf(OLD)).values()].every(Boolean)).toBe(true);
    expect(await nearest('u0', 'memory number 9', OLD)).toEqual({ text: 'memory number 9', cosine: expect.closeTo(1, 5) as unknown });
    await store.insertMemory(memory('u0', 'still writable', 700));

    expect(await reembed(store, fakeEmbedder(NEW))).toMatchObject({ memories: COUNT + 1, late: 0 });
    expect(await store.getModel()).toEqual(NEW);
  });

  it('refuses vectors of the wrong dimension before anything changes', async () => {
    const liar: FakeEmbedder = { ...fakeEmbedder(NEW), embed: (texts) => Promise.resolve(texts.map((t) => hashVector(t, OLD))) };
    await expect(reembed(store, liar)).rejects.toThrow(/returned no vector of 8 dimensions/);
    expect(await store.getModel()).toEqual(OLD);
  });
});
