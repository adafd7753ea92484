import { afterEach, describe, expect, it } from 'vitest';
import { WorkerEmbedder } from '../../src/embeddings/worker-embedder.js';
import { scriptedIds as ids, scriptedSpawner } from './fixtures/scripted-worker.js';

// The host's queue, batching and failure handling, against a scripted worker (no model): fast and deterministic.

const open: WorkerEmbedder[] = [];
function embedder(model = 'scripted', maxBatchSize?: number) {
  const spawner = scriptedSpawner();
  const e = new WorkerEmbedder({ model, provider: 'transformers', spawn: spawner.spawn, maxBatchSize });
  open.push(e);
  return { e, started: spawner.started };
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});


describe('WorkerEmbedder with a scripted worker', () => {
  it('resolves ready() with the model name and the dimension the worker reports', async () => {
    const { e } = embedder();
    await expect(e.ready()).resolves.toEqual({ model: 'scripted', dimension: 3 });
  });

  it('embed() loads on first use and returns [] for no texts', async () => {
    const { e } = embedder();
    expect(ids(await e.embed(['7', '8'], 'document'))).toEqual([7, 8]);
    await expect(e.embed([], 'query')).resolves.toEqual([]);
  });

  it('batches concurrent calls (at most 32 texts a batch) and routes every vector back to its caller in order', async () => {
    const { e } = embedder();
    await e.ready();
    const calls = Array.from({ length: 70 }, (_, i) => e.embed([String(i * 2), String(i * 2 + 1)], i % 2 ? 'query' : 'document'));
    const results = await Promise.all(calls);
    results.forEach((vectors, i) => expect(ids(vectors)).toEqual([i * 2, i * 2 + 1]));
    const batchSizes = new Set(results.flat().map((v) => v[1] ?? 0));
    const batchCount = new Set(results.flat().map((v) => v[2])).size;
    expect(Math.max(...batchSizes)).toBe(32);
    expect(batchCount).toBe(Math.ceil(140 / 32));
  });

  it('splits one call larger than a batch and reassembles it in order', async () => {
    const { e } = embedder('scripted', 4);
    const texts = Array.from({ length: 10 }, (_, i) => String(i));
    const vectors = await e.embed(texts, 'document');
    expect(ids(vectors)).toEqual(texts.map(Number));
    expect(Math.max(...vectors.map((v) => v[1] ?? 0))).toBe(4);
  });

  it('queues calls made while a batch is in the worker and sends them together', async () => {
    const { e } = embedder();
    await e.ready();
    const first = e.embed(['slow:1'], 'document');
    await new Promise((r) => setTimeout(r, 50)); // the slow batch is now in the worker
    const later = await Promise.all([e.embed(['2'], 'query'), e.embed(['3'], 'query'), e.embed(['4'], 'query')]);
    expect(ids(await first)).toEqual([1]);
    expect(later.map((v) => v[0]?.[1])).toEqual([3, 3, 3]); // one batch of three
  });

  it('fails only the calls in a failed batch; the embedder keeps working', async () => {
    const { e } = embedder();
    await e.ready();
    await expect(e.embed(['throw'], 'document')).rejects.toThrow(/scripted batch failure/);
    expect(ids(await e.embed(['5'], 'document'))).toEqual([5]);
  });

  it('rejects ready() and embed() promptly with the load error, and keeps rejecting', async () => {
    const { e, started } = embedder('fail-load');
    const pending = e.embed(['1'], 'document');
    await expect(e.ready()).rejects.toThrow('Could not load embedding model "fail-load": scripted load failure');
    await expect(pending).rejects.toThrow(/scripted load failure/);
    await expect(e.embed(['1'], 'document')).rejects.toThrow(/scripted load failure/);
    expect(started()).toBe(1);
  });

  it('treats a worker that dies while loading as a load failure', async () => {
    const { e } = embedder('die-loading');
    await expect(e.ready()).rejects.toThrow(/Could not load embedding model "die-loading": the worker stopped \(exit code 5\)/);
  });

  it('rejects (never throws) when the worker cannot even start', async () => {
    const e = new WorkerEmbedder({
      model: 'no-worker',
      provider: 'transformers',
      spawn: () => {
        throw new Error('spawn refused');
      },
    });
    open.push(e);
    await expect(e.embed(['1'], 'document')).rejects.toThrow(/the worker could not start \(spawn refused\)/);
    await expect(e.ready()).rejects.toThrow(/spawn refused/);
  });

  it('rejects pending calls when the worker crashes, then restarts it on the next call', async () => {
    const { e, started } = embedder();
    await e.ready();
    const crashing = e.embed(['crash'], 'document');
    const queuedBehind = e.embed(['9'], 'document');
    await expect(crashing).rejects.toThrow(/crashed \(exit code 3\); the next request restarts it/);
    await expect(queuedBehind).rejects.toThrow(/crashed/);
    expect(ids(await e.embed(['6'], 'document'))).toEqual([6]);
    expect(started()).toBe(2);
    await expect(e.ready()).resolves.toEqual({ model: 'scripted', dimension: 3 });
  });

  it('close() rejects pending calls (loading or queued) and later calls', async () => {
    const { e } = embedder();
    // Assertions are attached before close() so that the rejections it causes are observed at once.
    const whileLoading = expect(e.embed(['1'], 'document')).rejects.toThrow('The embedder for model "scripted" is closed');
    const ready = expect(e.ready()).rejects.toThrow(/closed/);
    await e.close();
    await whileLoading;
    await ready;
    await expect(e.embed(['1'], 'document')).rejects.toThrow(/closed/);
    await expect(e.ready()).rejects.toThrow(/closed/);
    await expect(e.close()).resolves.toBeUndefined();
  });
});
