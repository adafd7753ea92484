/**
 * The endpoint embedder against a real OpenAI-compatible server on loopback (tools/shared/embeddings-server.ts) with
 * the hash model behind it: the happy path, and each way an endpoint fails.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EndpointEmbedder, EndpointError, batches, retryAfterMs } from '../../src/embeddings/endpoint.js';
import { prefixesFor } from '../../src/embeddings/endpoint-prefixes.js';
import { HashingEmbedder, hashEmbedding } from '../../src/embeddings/hashing.js';
import { startEmbeddingsServer, type EmbeddingsServer } from '../../tools/shared/embeddings-server.js';

const KEY = 'sk-test-secret-key-123';
let server: EmbeddingsServer | undefined;
let embedder: EndpointEmbedder | undefined;

afterEach(async () => {
  await embedder?.close();
  await server?.close();
  server = undefined;
  embedder = undefined;
});

async function setup(options: Partial<ConstructorParameters<typeof EndpointEmbedder>[0]> = {}, apiKey?: string) {
  server = await startEmbeddingsServer({ embedder: new HashingEmbedder(), apiKey });
  embedder = new EndpointEmbedder({ url: server.url, model: 'hash-remote', backoffMs: 10, timeoutMs: 2_000, ...options });
  return { server, embedder };
}

describe('endpoint embedder', () => {
  it('probes the dimension, and returns the served model\'s unit vectors in order, batched by count and characters', async () => {
    const { server, embedder } = await setup({ maxBatchTexts: 3, maxBatchChars: 40, apiKey: KEY }, KEY);
    await expect(embedder.ready()).resolves.toEqual({ model: 'hash-remote', dimension: 256 });
    const texts = Array.from({ length: 10 }, (_, i) => `memory number ${i} about peanuts`);
    const vectors = await embedder.embed(texts, 'document');
    expect(vectors).toHaveLength(10);
    vectors.forEach((vector, i) => expect(Array.from(vector)).toEqual(Array.from(hashEmbedding(texts[i] ?? ''))));
    const sizes = server.requests.slice(1).map((request) => request.input.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    for (const request of server.requests.slice(1)) expect(request.input.join('').length <= 40 || request.input.length === 1).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10);
    expect(server.requests.every((request) => request.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it('a 401 at start fails at once (no retry), naming the URL and the status, never the key', async () => {
    const { server, embedder } = await setup({ apiKey: 'sk-wrong-key-456' }, KEY);
    const error = await embedder.ready().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EndpointError);
    expect((error as EndpointError).unauthorized).toBe(true);
    expect((error as Error).message).toContain(server.url);
    expect((error as Error).message).toContain('401');
    expect((error as Error).message).not.toContain('sk-wrong-key-456');
    expect(server.requests).toHaveLength(1);
  });

  it('403 is a refusal too', async () => {
    const { server, embedder } = await setup();
    server.fail({ kind: 'status', status: 403 });
    await expect(embedder.ready()).rejects.toMatchObject({ status: 403, fatal: true });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 429 after the time its Retry-After asks for, then succeeds', async () => {
    const { server, embedder } = await setup({ backoffMs: 1 });
    await embedder.ready();
    server.fail({ kind: 'status', status: 429, retryAfter: '1' }, 1);
    const started = Date.now();
    await expect(embedder.embed(['a text'], 'query')).resolves.toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(3);
  });

  it('retries 500s, and gives up after its retries with the status in the message', async () => {
    const { server, embedder } = await setup({ retries: 2 });
    await embedder.ready();
    server.fail({ kind: 'status', status: 500 }, 2);
    await expect(embedder.embed(['x'], 'document')).resolves.toHaveLength(1);
    server.fail({ kind: 'status', status: 503 });
    const before = server.requests.length;
    await expect(embedder.embed(['x'], 'document')).rejects.toThrow(/answered 503/);
    expect(server.requests.length - before).toBe(3);
  });

  it('a slow answer times out and is retried; one that is always slow fails', async () => {
    const { server, embedder } = await setup({ timeoutMs: 200, retries: 1 });
    await embedder.ready();
    server.fail({ kind: 'slow', ms: 600 }, 1);
    await expect(embedder.embed(['x'], 'document')).resolves.toHaveLength(1);
    server.fail({ kind: 'slow', ms: 600 });
    await expect(embedder.embed(['x'], 'document')).rejects.toThrow(/no answer within 0.2 s/);
  });

  it('an endpoint that is down fails with the URL, and the next ready() probes again once it is back', async () => {
    const { server } = await setup();
    const url = server.url;
    await server.close();
    const down = new EndpointEmbedder({ url, model: 'hash-remote', retries: 1, backoffMs: 5 });
    embedder = down;
    await expect(down.ready()).rejects.toThrow(url);
  });

  it('a server\'s embedder waits for an endpoint that is down at start, and is ready once it answers', async () => {
    const { server } = await setup();
    server.fail({ kind: 'status', status: 503 });
    const waits: string[] = [];
    const waiting = new EndpointEmbedder({ url: server.url, model: 'hash-remote', retries: 1, backoffMs: 5, maxBackoffMs: 40, keepProbing: { onWaiting: (e) => waits.push(e.message) } });
    embedder = waiting;
    let settled = false;
    const ready = waiting.ready().finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    expect(waits.length).toBeGreaterThan(1);
    expect(waits[0]).toMatch(/answered 503/);
    server.fail({ kind: 'ok' }, 0);
    await expect(ready).resolves.toEqual({ model: 'hash-remote', dimension: 256 });
  });

  it('a server\'s embedder still gives up at once on a refusal (401), and closing ends the wait', async () => {
    const { server } = await setup();
    server.fail({ kind: 'status', status: 401 });
    const refused = new EndpointEmbedder({ url: server.url, model: 'm', backoffMs: 5, keepProbing: {} });
    await expect(refused.ready()).rejects.toMatchObject({ status: 401 });
    server.fail({ kind: 'status', status: 500 });
    const closing = new EndpointEmbedder({ url: server.url, model: 'm', retries: 0, backoffMs: 5, keepProbing: {} });
    const ready = closing.ready();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await closing.close();
    await expect(ready).rejects.toThrow(/closed/);
  });

  it.each([
    ['wrong-count', /1 vectors for 2 texts/],
    ['nan', /not a finite number/],
    ['wrong-dimension', /257 dimensions, not 256/],
  ] as const)('a malformed answer (%s) fails that call at once, without retrying', async (kind, message) => {
    const { server, embedder } = await setup();
    await embedder.ready();
    server.fail({ kind }, 1);
    const before = server.requests.length;
    await expect(embedder.embed(['one', 'two'], 'document')).rejects.toThrow(message);
    expect(server.requests.length - before).toBe(1);
    await expect(embedder.embed(['one', 'two'], 'document')).resolves.toHaveLength(2);
  });

  it('holds at most `concurrency` requests in flight', async () => {
    const { server, embedder } = await setup({ concurrency: 2, maxBatchTexts: 1 });
    await embedder.ready();
    server.fail({ kind: 'slow', ms: 100 });
    const started = Date.now();
    await embedder.embed(['a', 'b', 'c', 'd'], 'document');
    // Four one-text batches, two at a time, 100 ms each: at least two rounds.
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('adds the model family\'s prefixes, and the overrides win', async () => {
    const { server, embedder } = await setup({ model: 'intfloat/multilingual-e5-small' });
    await embedder.ready();
    await embedder.embed(['where does Anna work'], 'query');
    await embedder.embed(['Anna works at a bakery'], 'document');
    expect(server.requests.slice(1).map((request) => request.input[0])).toEqual(['query: where does Anna work', 'passage: Anna works at a bakery']);
    expect(prefixesFor('nomic-embed-text:latest')).toEqual({ query: 'search_query: ', document: 'search_document: ' });
    expect(prefixesFor('bge-m3')).toEqual({ query: '', document: '' });
    expect(prefixesFor('BAAI/bge-small-en-v1.5').query).toMatch(/^Represent this sentence/);
    expect(prefixesFor('e5-large-v2', { query: '', document: 'doc: ' })).toEqual({ query: '', document: 'doc: ' });
  });
});

describe('endpoint helpers', () => {
  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('splits batches by count and by characters, a long text alone', () => {
    expect(batches(['aa', 'bb', 'cc'], 2, 100).map((b) => b.texts)).toEqual([['aa', 'bb'], ['cc']]);
    expect(batches(['aaaa', 'b', 'cccccccc', 'd'], 10, 5).map((b) => [b.start, b.texts])).toEqual([
      [0, ['aaaa', 'b']],
      [2, ['cccccccc']],
      [3, ['d']],
    ]);
  });
});
