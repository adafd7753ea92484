import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, DEFAULT_EMBEDDING_MODEL, type Embedder } from '../../src/embeddings/index.js';
import { dot, isUnitVector } from '../../src/core/vector.js';

// The real default model, loaded offline from node_modules in a worker thread (started through tsx from the sources).

const PARAPHRASES: [string, string][] = [
  ['The user prefers dark mode in the editor.', 'In the editor, the user likes a dark theme.'],
  ['The meeting was moved to Thursday afternoon.', 'We rescheduled the meeting for Thursday after lunch.'],
  ['Deploy the server with the staging database.', 'Use the staging database when deploying the server.'],
];
const UNRELATED: [string, string][] = [
  ['The user prefers dark mode in the editor.', 'Penguins live in the southern hemisphere.'],
  ['The meeting was moved to Thursday afternoon.', 'Add two cups of flour to the batter.'],
  ['Deploy the server with the staging database.', 'The cat slept on the warm windowsill.'],
];

describe('USE-lite embedder', () => {
  let embedder: Embedder;
  beforeAll(() => {
    embedder = createEmbedder({});
  });
  afterAll(async () => {
    await embedder.close();
  });

  it('is the default and loads offline with 512 dimensions', async () => {
    expect(embedder.model).toBe(DEFAULT_EMBEDDING_MODEL);
    expect(embedder.model).toBe('use-lite');
    await expect(embedder.ready()).resolves.toEqual({ model: 'use-lite', dimension: 512 });
  });

  it('returns one 512-dimensional unit Float32Array per text', async () => {
    const vectors = await embedder.embed(['hello world', 'The quick brown fox jumps over the lazy dog.', 'x'], 'document');
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
      expect(isUnitVector(v)).toBe(true);
    }
  });

  it('scores paraphrases clearly above unrelated pairs', async () => {
    const score = async ([a, b]: [string, string]) => {
      const [va, vb] = await embedder.embed([a, b], 'document');
      return dot(va!, vb!);
    };
    const paraphrase = await Promise.all(PARAPHRASES.map(score));
    const unrelated = await Promise.all(UNRELATED.map(score));
    expect(Math.min(...paraphrase)).toBeGreaterThan(0.5);
    expect(Math.max(...unrelated)).toBeLessThan(0.3);
    expect(Math.min(...paraphrase) - Math.max(...unrelated)).toBeGreaterThan(0.3);
  });

  it('gives concurrent callers the same vectors, in order, as sequential calls', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `Memory number ${i}: the agent noted fact ${i * 7} about project ${i % 5}.`);
    const sequential: Float32Array[] = [];
    for (const text of texts.slice(0, 12)) sequential.push(...(await embedder.embed([text], 'document')));
    // Mixed call sizes and kinds, all at once: they are batched together and must come back to the right caller.
    const concurrent = await Promise.all([
      ...texts.slice(0, 12).map((t, i) => embedder.embed([t], i % 2 ? 'query' : 'document')),
      embedder.embed(texts.slice(12, 40), 'document'),
    ]);
    concurrent.slice(0, 12).forEach(([v], i) => {
      // Batching pads nothing in USE-lite, but float summation order may differ slightly between batch shapes.
      expect(dot(v!, sequential[i]!)).toBeGreaterThan(0.9999);
    });
    const batchOf28 = concurrent[12]!;
    expect(batchOf28).toHaveLength(28);
    const [alone] = await embedder.embed([texts[39]!], 'document');
    expect(dot(batchOf28[27]!, alone!)).toBeGreaterThan(0.9999);
  });

  it('close() rejects pending calls and later calls', async () => {
    const local = createEmbedder({ model: 'use-lite' });
    await local.ready();
    const pending = (n: number) =>
      Array.from({ length: 5 }, (_, i) =>
        expect(local.embed([`pending text ${n} ${i}`], 'document')).rejects.toThrow(/closed/),
      );
    const inFlight = pending(1);
    await new Promise((resolve) => setImmediate(resolve)); // the first five are now being embedded in the worker
    const queued = pending(2);
    await local.close();
    await Promise.all(inFlight);
    await Promise.all(queued);
    await expect(local.embed(['after close'], 'document')).rejects.toThrow(/closed/);
  });
});
