import { afterEach, describe, expect, it } from 'vitest';
import { chunkTexts, splitText } from '../../src/embeddings/chunks.js';
import { EmbedPool, type EmbedPoolOptions } from '../../src/embeddings/embed-pool.js';
import { threadsPerWorker } from '../../src/embeddings/threads.js';
import { scriptedIds as ids, scriptedSpawner } from './fixtures/scripted-worker.js';

// The pool's sharing, ordering, failures and chunking against scripted workers (no model): deterministic, and no
// assertion depends on how long anything takes.

const open: EmbedPool[] = [];
function pool(options: Partial<EmbedPoolOptions> = {}) {
  const spawner = scriptedSpawner();
  // A fixed pool (all its workers from the start) unless a test asks for fewer to start with.
  const workers = options.workers ?? 2;
  const p = new EmbedPool({ model: 'scripted', provider: 'transformers', workers, minWorkers: workers, spawn: spawner.spawn, ...options });
  open.push(p);
  return { p, started: spawner.started };
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});


describe('EmbedPool', () => {
  it('starts one worker per slot and is ready once every worker has loaded', async () => {
    const { p, started } = pool({ workers: 3 });
    await expect(p.ready()).resolves.toEqual({ model: 'scripted', dimension: 3 });
    expect(started()).toBe(3);
    expect(p.size).toBe(3);
  });

  it('starts small, grows with the queue up to its workers, and shrinks back when idle', async () => {
    const { p, started } = pool({ workers: 3, minWorkers: 1, idleMs: 100, maxBatchSize: 1 });
    await p.ready();
    expect(started()).toBe(1);
    expect(p.stats()).toMatchObject({ running: 1, loading: 0, queued: 0 });
    // Six texts of 200 ms, one per batch: one worker would need 1.2 s; texts wait, so workers are added, up to 3.
    const vectors = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => p.embed([`slow:${n}`], 'document', `c${n}`)));
    expect(vectors.map((v) => ids(v)[0])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(started()).toBe(3);
    // Idle for idleMs: stopped down to minWorkers, not below.
    const until = Date.now() + 5_000;
    while (p.stats().running > 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(p.stats()).toMatchObject({ running: 1, queued: 0, inFlight: [0, 0, 0] });
    await new Promise((r) => setTimeout(r, 250));
    expect(p.stats().running).toBe(1);
    // The one left still works, without a new start.
    expect(ids(await p.embed(['9'], 'query'))).toEqual([9]);
    expect(started()).toBe(3);
  });

  it('starts a worker for each single call left waiting, not one at a time (concurrent stores reach the workers)', async () => {
    const { p, started } = pool({ workers: 4, minWorkers: 1, idleMs: 60_000 });
    await p.ready();
    // The one worker takes the first slow text; three single calls then wait while it works.
    const first = p.embed(['slow:1'], 'document', 'c1');
    await new Promise((r) => setImmediate(r));
    const rest = [2, 3, 4].map((n) => p.embed([`slow:${n}`], 'document', `c${n}`));
    await new Promise((r) => setImmediate(r));
    // Three texts wait, so three workers start at once (a loading worker counts for one text, not a batch of 32).
    expect(started()).toBe(4);
    const vectors = await Promise.all([first, ...rest]);
    expect(vectors.map((v) => ids(v)[0])).toEqual([1, 2, 3, 4]);
  });

  it('gives each worker its share of the cores as threads: max(1, floor(cores / workers))', async () => {
    expect(threadsPerWorker(16, 1)).toBe(16);
    expect(threadsPerWorker(16, 4)).toBe(4);
    expect(threadsPerWorker(16, 5)).toBe(3);
    expect(threadsPerWorker(16, 16)).toBe(1);
    expect(threadsPerWorker(2, 8)).toBe(1);
    expect(threadsPerWorker(0, 0)).toBe(1);
    // The pool sends its workers the share (the scripted worker reports back what it was given).
    const { p } = pool({ workers: 4, cores: 16 });
    await p.ready();
    expect(p.threadsPerWorker).toBe(4);
    expect(p.reportedThreads).toBe(4);
  });

  it('shares one call between the idle workers (64 texts go as 2 x 32) and reassembles it in order', async () => {
    const { p } = pool();
    await p.ready();
    const texts = Array.from({ length: 64 }, (_, i) => String(i));
    const vectors = await p.embed(texts, 'document');
    expect(ids(vectors)).toEqual(texts.map(Number));
    // Each worker embedded one batch of 32: [n, batch size, that worker's batch number].
    expect(new Set(vectors.map((v) => v[1]))).toEqual(new Set([32]));
    expect(new Set(vectors.map((v) => v[2]))).toEqual(new Set([1]));
  });

  it('gives a query the next free worker, ahead of documents queued before it', async () => {
    const { p } = pool({ maxBatchSize: 1 });
    await p.ready();
    // Both workers busy with a slow document each; then a bulk caller queues four documents and a reader a query.
    const busy = [p.embed(['slow:1'], 'document', 'a'), p.embed(['slow:2'], 'document', 'b')];
    await new Promise((r) => setImmediate(r));
    const bulk = [3, 4, 5, 6].map((n) => p.embed([String(n)], 'document', 'bulk'));
    const query = p.embed(['7'], 'query', 'reader');
    // The query went to the first worker to free up, as that worker's next batch (its second: [n, size, batch]),
    // whatever the order in which the threads' answers then arrive on a loaded machine.
    const [vector] = await query;
    expect(Array.from(vector ?? [])).toEqual([7, 1, 2]);
    await Promise.all([...busy, ...bulk]);
  });

  it('a crash fails only the crashed worker\u2019s batch; queued calls go on; a replacement starts when work waits', async () => {
    const { p, started } = pool({ maxBatchSize: 1 });
    await p.ready();
    // A caller new to the queue goes first, so issued in reverse: worker 1 takes "slow:0", worker 2 "crash", "8" waits.
    const queued = p.embed(['8'], 'document', 'c');
    const crashing = p.embed(['crash'], 'document', 'b');
    const slow = p.embed(['slow:0'], 'document', 'a');
    await expect(crashing).rejects.toThrow(/crashed \(exit code 3\); the next request restarts it/);
    expect(ids(await slow)).toEqual([0]);
    expect(ids(await queued)).toEqual([8]);
    // "8" was left waiting behind the slow text, so a replacement was started at once (the pool grows with its queue).
    expect(started()).toBe(3);
    expect(ids(await p.embed(['6'], 'document'))).toEqual([6]);
    expect(started()).toBe(3);
    await expect(p.ready()).resolves.toEqual({ model: 'scripted', dimension: 3 });
  });

  it('a batch error fails only its calls; the pool keeps working', async () => {
    const { p } = pool();
    await p.ready();
    const [failed, fine] = await Promise.allSettled([p.embed(['throw'], 'document', 'a'), p.embed(['4'], 'document', 'b')]);
    expect(failed.status).toBe('rejected');
    expect(fine.status === 'fulfilled' && ids(fine.value)).toEqual([4]);
    expect(ids(await p.embed(['5'], 'query'))).toEqual([5]);
  });

  it('a load failure in any worker fails the pool for good', async () => {
    const { p, started } = pool({ model: 'fail-load' });
    const pending = p.embed(['1'], 'document');
    await expect(p.ready()).rejects.toThrow('Could not load embedding model "fail-load": scripted load failure');
    await expect(pending).rejects.toThrow(/scripted load failure/);
    await expect(p.embed(['1'], 'query')).rejects.toThrow(/scripted load failure/);
    expect(started()).toBe(2);
  });

  it('close() rejects queued calls and later ones', async () => {
    const { p } = pool();
    await p.ready();
    const pending = expect(p.embed(['slow:1', 'slow:2', '3'], 'document')).rejects.toThrow(/closed/);
    await p.close();
    await pending;
    await expect(p.embed(['1'], 'document')).rejects.toThrow(/closed/);
  });

  it('embeds a text longer than a chunk in pieces and returns one unit vector, their length-weighted mean', async () => {
    const { p } = pool({ workers: 1, maxChunkChars: 2 });
    const [vector] = await p.embed(['1 2 3'], 'document');
    const pieces = splitText('1 2 3', 2);
    expect(pieces).toEqual(['1 ', '2 ', '3']);
    // The scripted worker's vectors: [n, batch size 3, batch 1], weighted by each piece's length.
    const sum = [0, 0, 0];
    for (const piece of pieces) [Number(piece), 3, 1].forEach((x, d) => (sum[d] = (sum[d] ?? 0) + x * piece.length));
    const norm = Math.hypot(...sum);
    expect([...(vector ?? [])].map((x) => x.toFixed(5))).toEqual(sum.map((x) => (x / norm).toFixed(5)));
  });
});

describe('chunks', () => {
  it('keeps short texts whole and cuts long ones at a space in the second half of the window', () => {
    expect(splitText('short', 10)).toEqual(['short']);
    expect(splitText('aaaa bbbb cccc', 10)).toEqual(['aaaa bbbb', ' cccc']);
    // No space late enough: cut hard at the limit.
    expect(splitText('a bbbbbbbbbbbb', 10)).toEqual(['a bbbbbbbb', 'bbbb']);
    // Blank pieces carry nothing to embed.
    expect(splitText(`x${' '.repeat(30)}`, 10)).toEqual([`x${' '.repeat(9)}`]);
  });

  it('maps pieces back to their texts; a text of blanks still gets its one vector', () => {
    const plan = chunkTexts(['aaaa bbbb cccc', '   ', 'z'], 10);
    expect(plan.pieces).toEqual(['aaaa bbbb', ' cccc', '   ', 'z']);
    const out = plan.combine([Float32Array.of(1, 0), Float32Array.of(0, 1), Float32Array.of(0.6, 0.8), Float32Array.of(1, 0)]);
    expect(out).toHaveLength(3);
    const first = out[0] as Float32Array;
    expect(Math.hypot(...first)).toBeCloseTo(1, 5);
    expect((first[0] ?? 0) / (first[1] ?? 1)).toBeCloseTo(9 / 5, 5);
    expect([...(out[1] as Float32Array)]).toEqual([...Float32Array.of(0.6, 0.8)]);
    expect(() => plan.combine([Float32Array.of(1, 0)])).toThrow(/Fewer vectors than chunks/);
  });
});
