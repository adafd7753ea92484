import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, type Embedder } from '../../src/embeddings/index.js';
import { BGE_QUERY_INSTRUCTION, prepareTexts, queryPrefixFor, withResponseTimeout } from '../../src/embeddings/transformers.js';
import { dot, isUnitVector } from '../../src/core/vector.js';
import { writeTinyBert } from './fixtures/tiny-bert.js';
import { TRANSFORMERS_INSTALLED } from '../helpers/lane-packages.js';

// transformers.js loading, offline, on a tiny BERT-shaped model that the test writes itself (see fixtures/tiny-bert.ts).

const MODEL = 'test-org/tiny-bert';

describe.runIf(TRANSFORMERS_INSTALLED)('transformers.js embedder (tiny local model)', () => {
  let root: string;
  let embedder: Embedder;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'agent-memory-models-'));
    writeTinyBert({ root, model: MODEL, hiddenSize: 24 });
    embedder = createEmbedder({ model: MODEL, modelDir: root });
  });
  afterAll(async () => {
    await embedder.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('loads from modelDir with no network and reports the dimension from the model output', async () => {
    expect(embedder.model).toBe(MODEL);
    await expect(embedder.ready()).resolves.toEqual({ model: MODEL, dimension: 24 });
  });

  it('returns unit vectors; identical texts match and different texts differ', async () => {
    const [a, b, c, d] = await embedder.embed(
      ['The cat sat on the mat.', 'The cat sat on the mat.', 'Deploy the server tomorrow.', 'the CAT sat on the mat.'],
      'document',
    );
    for (const v of [a, b, c, d]) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(24);
      expect(isUnitVector(v!)).toBe(true);
    }
    expect(Array.from(a!)).toEqual(Array.from(b!));
    expect(dot(a!, c!)).toBeLessThan(0.999);
    // The tokenizer lowercases (BertNormalizer), so case does not matter: proof that tokenizer.json was used.
    expect(dot(a!, d!)).toBeGreaterThan(0.9999);
  });

  it('gives the same vector for a text alone and inside a padded batch', async () => {
    const [alone] = await embedder.embed(['cat'], 'document');
    const batch = await Promise.all([
      embedder.embed(['cat'], 'document'),
      embedder.embed(['a much longer sentence about the agent memory database'], 'document'),
    ]);
    // Mean pooling uses the attention mask, so padding in a batch must not change a short text's vector.
    expect(dot(alone!, batch[0][0]!)).toBeGreaterThan(0.9999);
  });

  it('rejects ready() quickly with a clear message when the model directory is missing', async () => {
    const missing = createEmbedder({ model: 'nobody/no-such-model', modelDir: join(root, 'does-not-exist') });
    const started = Date.now();
    try {
      await expect(missing.ready()).rejects.toThrow(
        /Could not load embedding model "nobody\/no-such-model": it was not found in modelDir ".*does-not-exist": missing .*config\.json/,
      );
      await expect(missing.embed(['x'], 'query')).rejects.toThrow(/was not found in modelDir/);
    } finally {
      await missing.close();
    }
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('query instructions', () => {
  it('prefixes queries, not documents, for the English BGE models only', () => {
    expect(queryPrefixFor('Xenova/bge-small-en-v1.5')).toBe(BGE_QUERY_INSTRUCTION);
    expect(queryPrefixFor('BAAI/bge-base-en-v1.5')).toBe(BGE_QUERY_INSTRUCTION);
    expect(queryPrefixFor('Xenova/bge-m3')).toBe('');
    expect(queryPrefixFor('Xenova/bge-small-zh-v1.5')).toBe('');
    expect(queryPrefixFor('Xenova/all-MiniLM-L6-v2')).toBe('');
    expect(prepareTexts('Xenova/bge-small-en-v1.5', ['q', 'd'], ['query', 'document'])).toEqual([
      'Represent this sentence for searching relevant passages: q',
      'd',
    ]);
    expect(prepareTexts('Xenova/all-MiniLM-L6-v2', ['q'], ['query'])).toEqual(['q']);
  });
});

describe('hub requests', () => {
  it('fail instead of hanging when a host accepts the connection but never answers', async () => {
    const server = createServer(() => undefined); // accepts, never responds
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const guardedFetch = withResponseTimeout((input, init) => fetch(input, init), 300);
    const started = Date.now();
    try {
      await expect(guardedFetch(`http://127.0.0.1:${port}/model/config.json`)).rejects.toThrow(`no response from 127.0.0.1:${port} within 0.3 s`);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      server.close();
    }
  });
});
