import { afterEach, describe, expect, it } from 'vitest';
import { FairQueue } from '../../src/embeddings/fair-queue.js';
import { WorkerEmbedder } from '../../src/embeddings/worker-embedder.js';
import { scriptedSpawner } from './fixtures/scripted-worker.js';

const take = (q: FairQueue<string>, maxItems = 32, maxPaddedLength = 1_000) =>
  q.take({ maxItems, maxPaddedLength, length: (s) => s.length, skip: (s) => s.startsWith('x') });

describe('FairQueue', () => {
  it('serves queries before documents, callers in turn within each kind, a caller new to the queue first', () => {
    const q = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3']) q.push('a', 'document', item);
    for (const item of ['b1', 'b2']) q.push('b', 'query', item);
    q.push('c', 'query', 'c1');
    q.push('a', 'query', 'a9');
    expect(take(q, 4)).toEqual(['a9', 'c1', 'b1', 'b2']);
    expect(take(q, 4)).toEqual(['a1', 'a2', 'a3']);
    expect(q.size).toBe(0);
  });

  it('bounds a batch by its padded length: a long text goes alone, the next caller\u2019s short one comes next', () => {
    const q = new FairQueue<string>();
    const long = 'L'.repeat(900);
    for (let i = 0; i < 3; i++) q.push('greedy', 'query', `${long}${i}`);
    expect(take(q).map((s) => s.slice(-1))).toEqual(['0']);
    q.push('other', 'query', 'short');
    expect(take(q)).toEqual(['short']);
    expect(take(q).map((s) => s.slice(-1))).toEqual(['1']);
  });

  it('drops skipped items without losing the caller\u2019s turn, and drains what is left', () => {
    const q = new FairQueue<string>();
    for (const item of ['x1', 'a1', 'a2']) q.push('a', 'query', item);
    q.push('b', 'query', 'b1');
    expect(take(q, 2)).toEqual(['b1', 'a1']);
    expect(q.drain()).toEqual(['a2']);
    expect(q.size).toBe(0);
  });
});

const open: WorkerEmbedder[] = [];
/** These tests are about the queue: each long text stays one item (chunking has tests of its own). */
const UNCHUNKED = 16_000;
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

describe('WorkerEmbedder shares the model fairly between callers', () => {
  it('one caller\u2019s 24 long queries do not stall another caller\u2019s short one', async () => {
    const e = new WorkerEmbedder({ model: 'scripted', provider: 'transformers', spawn: scriptedSpawner().spawn, maxChunkChars: UNCHUNKED });
    open.push(e);
    await e.ready();
    const long = (i: number) => `heavy:${i}${' '.repeat(16_000)}`;
    let greedyDone = 0;
    const greedy = Array.from({ length: 24 }, (_, i) => e.embed([long(i)], 'query', 'key_greedy').then((v) => (greedyDone++, v)));
    await new Promise((r) => setTimeout(r, 20)); // the first batch is in the worker
    const other = await e.embed(['7'], 'query', 'key_other');
    expect(other[0]?.[0]).toBe(7);
    // In arrival order the 24 long texts went in one batch (2.4 s here, 11 s with the real model); now the short
    // query waits for at most one long text ahead of it. Counted in texts served, not milliseconds, so that a
    // loaded machine (every text slower) cannot fail it and an unfair queue (all 24 first) always does.
    expect(greedyDone).toBeLessThanOrEqual(2);
    const done = await Promise.all(greedy);
    expect(done.map((v) => v[0]?.[0])).toEqual(Array.from({ length: 24 }, (_, i) => i));
  });

  it('a caller\u2019s bulk documents do not hold up a query', async () => {
    const e = new WorkerEmbedder({ model: 'scripted', provider: 'transformers', spawn: scriptedSpawner().spawn, maxChunkChars: UNCHUNKED });
    open.push(e);
    await e.ready();
    let bulkDone = false;
    const bulk = e.embed(Array.from({ length: 10 }, (_, i) => `heavy:${i}${' '.repeat(4_000)}`), 'document', 'import').then(() => {
      bulkDone = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    await e.embed(['5'], 'query', 'key_reader');
    // Four such documents fill a batch (400 ms here); the query takes the next one instead of waiting for all ten
    // (three batches): it is served while the bulk is still being embedded, however slow the machine.
    expect(bulkDone).toBe(false);
    await bulk;
  });
});
