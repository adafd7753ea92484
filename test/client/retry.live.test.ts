import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  InternalServerError,
  MemoryClient,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  type FetchLike,
  type MemoryClientOptions,
} from '../../src/client/index.js';
import { createApiKey } from '../../src/core/key-admin.js';
import { TEST_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { closedPortUrl, startFaultProxy, startSilentServer, type FaultProxy } from './support/fault-proxy.js';

/**
 * Retries against a live server. Faults come from the server itself (its rate limiter) or from a loopback proxy in
 * front of it; the waits are recorded by an injected sleep instead of being slept.
 */
let server: TestServer;
let limited: TestServer;
let proxy: FaultProxy;
beforeAll(async () => {
  [server, limited] = await Promise.all([startTestServer(), startTestServer({ rateLimit: 1 })]);
  proxy = await startFaultProxy(server.url);
});
afterAll(async () => {
  await proxy.close();
  await Promise.all([server.stop(), limited.stop()]);
});
afterEach(() => {
  proxy.requests.length = 0;
  proxy.upstream.length = 0;
});

function client(options: MemoryClientOptions = {}) {
  const waits: number[] = [];
  let attempts = 0;
  const counting: FetchLike = (url, init) => {
    attempts++;
    return fetch(url, init);
  };
  const instance = new MemoryClient({
    apiKey: TEST_KEY,
    baseUrl: proxy.url,
    fetch: counting,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...options,
  });
  return { client: instance, waits, attempts: () => attempts };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

const rateLimited = (retryAfter: string) =>
  ({
    kind: 'respond',
    status: 429,
    headers: { 'Content-Type': 'application/json', 'Retry-After': retryAfter },
    body: JSON.stringify({ error: { code: 'rate_limit', message: 'Too many requests.' } }),
  }) as const;

describe('429', () => {
  it('honours the live server\u2019s Retry-After, retries maxRetries times, then throws RateLimitError', async () => {
    // A fresh key has a fresh bucket: 1 request a minute, burst 1.
    const { key } = await createApiKey(limited.runtime.store, { label: 'retry test' });
    const { client: c, waits, attempts } = client({ apiKey: key, baseUrl: limited.url });
    expect((await c.list({ userId: 'u' })).total).toBe(0);
    const error = await failure(c.list({ userId: 'u' }));
    expect(error).toBeInstanceOf(RateLimitError);
    const limitedError = error as RateLimitError;
    expect(limitedError.code).toBe('rate_limit');
    expect(limitedError.retryAfter).toBeGreaterThan(50);
    expect(limitedError.retryAfter).toBeLessThanOrEqual(60);
    expect(attempts()).toBe(4);
    expect(waits).toHaveLength(2);
    for (const wait of waits) expect(wait).toBe((limitedError.retryAfter ?? 0) * 1000);
  });

  it('waits Retry-After, then succeeds', async () => {
    proxy.enqueue(rateLimited('2'));
    const { client: c, waits } = client();
    expect(await c.list({ userId: 'u' })).toMatchObject({ total: 0, page: 0 });
    expect(waits).toEqual([2000]);
    expect(proxy.requests).toHaveLength(2);
  });

  it('does not wait a Retry-After beyond the 60 s ceiling: throws at once with retryAfter', async () => {
    proxy.enqueue(rateLimited('3600'));
    const { client: c, waits } = client();
    const error = await failure(c.recall({ userId: 'u', query: 'q' }));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(3600);
    expect(waits).toEqual([]);
    expect(proxy.requests).toHaveLength(1);
  });

  it('backs off with jitter when there is no Retry-After', async () => {
    proxy.enqueue({ kind: 'respond', status: 429 }, { kind: 'respond', status: 429 });
    const { client: c, waits } = client();
    await c.forgetAll('nobody');
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeLessThan(500);
    expect(waits[1]).toBeLessThan(1000);
  });
});

describe('5xx', () => {
  it('retries a 503 after its Retry-After (an HTTP date), then succeeds', async () => {
    const at = new Date(Date.now() + 3_000).toUTCString();
    proxy.enqueue({ kind: 'respond', status: 503, headers: { 'Retry-After': at } });
    const { client: c, waits } = client();
    expect(await c.forget('mem_AAAAAAAAAAAA')).toEqual({ deleted: 0 });
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(1_000);
    expect(waits[0]).toBeLessThanOrEqual(3_000);
  });

  it('retries 500 and 502, and gives up after maxRetries with the last error', async () => {
    proxy.enqueue({ kind: 'respond', status: 500 }, { kind: 'respond', status: 502 }, { kind: 'respond', status: 503 });
    const { client: c, attempts } = client({ maxRetries: 2 });
    const error = await failure(c.forgetMany(['mem_AAAAAAAAAAAA']));
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(attempts()).toBe(3);
  });

  it('maxRetries 0 turns retries off', async () => {
    proxy.enqueue({ kind: 'respond', status: 500 });
    const { client: c, attempts } = client({ maxRetries: 0 });
    expect(await failure(c.list({ userId: 'u' }))).toBeInstanceOf(InternalServerError);
    expect(attempts()).toBe(1);
  });
});

describe('stores are not duplicated by retries', () => {
  it('an answer lost on the way back: the retry replays the first store', async () => {
    proxy.enqueue({ kind: 'forward-then-drop' });
    const { client: c, waits } = client();
    const stored = await c.store({ userId: 'lost-answer', text: 'Keeps bees on the roof.' });
    expect(waits).toHaveLength(1);
    expect(proxy.requests).toHaveLength(2);
    const keys = proxy.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(proxy.upstream.map((a) => a.status)).toEqual([201, 201]);
    expect(proxy.upstream[1]?.headers.get('idempotent-replayed')).toBe('true');
    expect(stored.id).toBe((JSON.parse(proxy.upstream[0]?.body ?? '{}') as { id: string }).id);
    const page = await new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url }).list({ userId: 'lost-answer' });
    expect(page.total).toBe(1);
  });

  it('a 503 after the server stored it: the retries replay, with the caller\u2019s key', async () => {
    proxy.enqueue({ kind: 'forward-then-respond', status: 503 }, { kind: 'forward-then-respond', status: 502 });
    const { client: c } = client();
    const stored = await c.store({ userId: 'flaky', text: 'Drinks oat milk.' }, { idempotencyKey: 'caller-key-1' });
    expect(proxy.requests.map((r) => r.headers['idempotency-key'])).toEqual(['caller-key-1', 'caller-key-1', 'caller-key-1']);
    expect(proxy.upstream.map((a) => a.headers.get('idempotent-replayed'))).toEqual([null, 'true', 'true']);
    const page = await new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url }).list({ userId: 'flaky' });
    expect(page.total).toBe(1);
    expect(page.memories[0]?.id).toBe(stored.id);
  });

  it('each store call gets its own key: the second of two same texts is a duplicate, not a replay', async () => {
    const { client: c } = client();
    const first = await c.store({ userId: 'twice', text: 'Same words.' });
    const second = await c.store({ userId: 'twice', text: 'Same words.' });
    const [a, b] = proxy.requests.map((r) => r.headers['idempotency-key']);
    expect(a).not.toBe(b);
    // A replay of the first key would answer duplicate: false; the server's duplicate check answers true.
    expect(second).toEqual({ ...first, duplicate: true });
    expect((await c.list({ userId: 'twice' })).total).toBe(1);
  });
});

describe('no answer', () => {
  it('times out each attempt after timeoutMs, retries, then throws TimeoutError', async () => {
    const silent = await startSilentServer('no-answer');
    try {
      const { client: c, waits } = client({ baseUrl: silent.url, timeoutMs: 200, maxRetries: 1 });
      const started = Date.now();
      const error = await failure(c.list({ userId: 'u' }));
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as TimeoutError).code).toBe('timeout');
      expect((error as TimeoutError).status).toBeUndefined();
      expect((error as TimeoutError).message).toContain('200 ms');
      expect(silent.hits()).toBe(2);
      expect(waits).toHaveLength(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await silent.close();
    }
  });

  it('the timeout covers the body too: headers then silence is a timeout', async () => {
    const silent = await startSilentServer('stall-body');
    try {
      const { client: c } = client({ baseUrl: silent.url, timeoutMs: 200, maxRetries: 0 });
      expect(await failure(c.list({ userId: 'u' }))).toBeInstanceOf(TimeoutError);
    } finally {
      await silent.close();
    }
  });

  it('a refused connection is a ConnectionError, retried, with the cause', async () => {
    const { client: c, waits, attempts } = client({ baseUrl: await closedPortUrl() });
    const error = await failure(c.forget('mem_AAAAAAAAAAAA'));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    const refused = error as ConnectionError;
    expect(refused.code).toBe('connection_error');
    expect(refused.status).toBeUndefined();
    expect(refused.message).toContain('ECONNREFUSED');
    expect(refused.cause).toBeInstanceOf(Error);
    expect(attempts()).toBe(3);
    expect(waits).toHaveLength(2);
  });
});
