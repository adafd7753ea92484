import { describe, expect, it } from 'vitest';
import { HASH_DIMENSION, HASH_MODEL, HashingEmbedder, hashEmbedding, words } from '../../src/embeddings/hashing.js';
import { createEmbedder } from '../../src/embeddings/index.js';
import { dot, isUnitVector } from '../../src/core/vector.js';

const similarity = (a: string, b: string): number => dot(hashEmbedding(a), hashEmbedding(b));

describe('the hash model', () => {
  it('gives the same unit vector for the same text, every time', () => {
    const a = hashEmbedding('Alice is allergic to peanuts.');
    const b = hashEmbedding('Alice is allergic to peanuts.');
    expect(a).toEqual(b);
    expect(a).toHaveLength(HASH_DIMENSION);
    expect(isUnitVector(a)).toBe(true);
  });

  it('ignores case, punctuation and Unicode compatibility forms', () => {
    expect(similarity('ALICE, is allergic!', 'alice is allergic')).toBeCloseTo(1, 6);
    expect(similarity('ﬁle', 'file')).toBeCloseTo(1, 6);
  });

  it('puts texts sharing words closer than texts sharing none', () => {
    const query = 'what is alice allergic to';
    const related = similarity(query, 'Alice is allergic to peanuts.');
    const unrelated = similarity(query, 'The quarterly budget meeting moved to Thursday.');
    expect(related).toBeGreaterThan(0.5);
    expect(Math.abs(unrelated)).toBeLessThan(0.25);
  });

  it('puts words sharing a stem closer than unrelated words', () => {
    expect(similarity('allergy', 'allergic')).toBeGreaterThan(similarity('allergy', 'budget') + 0.2);
    expect(similarity('running shoes', 'runner shoe')).toBeGreaterThan(similarity('running shoes', 'tax forms') + 0.2);
  });

  it('gives a text without words one fixed direction, not a zero vector', () => {
    expect(isUnitVector(hashEmbedding(''))).toBe(true);
    expect(hashEmbedding('...')).toEqual(hashEmbedding(''));
    expect(words('  —!? ')).toEqual([]);
  });

  it('reads words in any script', () => {
    expect(words('Ünïcode 東京 2024')).toEqual(['ünïcode', '東京', '2024']);
    expect(similarity('東京に住んでいる', '東京に住んでいる')).toBeCloseTo(1, 6);
  });
});

describe('HashingEmbedder', () => {
  it('is what createEmbedder gives for the model name "hash", ready at once', async () => {
    const embedder = createEmbedder({ model: HASH_MODEL });
    expect(embedder).toBeInstanceOf(HashingEmbedder);
    await expect(embedder.ready()).resolves.toEqual({ model: 'hash', dimension: HASH_DIMENSION });
    const [query, document] = await embedder.embed(['peanut allergy', 'peanut allergy'], 'query');
    expect(query).toEqual(document);
    await embedder.close();
  });

  it('embeds queries and documents alike, one vector per text in order', async () => {
    const embedder = new HashingEmbedder(64);
    const texts = ['one', 'two', 'three'];
    const asQueries = await embedder.embed(texts, 'query');
    const asDocuments = await embedder.embed(texts, 'document');
    expect(asQueries).toEqual(asDocuments);
    expect(asQueries.map((v) => v.length)).toEqual([64, 64, 64]);
    expect(asQueries[1]).toEqual(hashEmbedding('two', 64));
  });

  it('rejects after close, like every embedder', async () => {
    const embedder = new HashingEmbedder();
    await embedder.close();
    await expect(embedder.embed(['x'], 'document')).rejects.toThrow('The embedder for model "hash" is closed');
    await expect(embedder.ready()).rejects.toThrow('is closed');
  });
});
