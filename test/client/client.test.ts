import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryClient, MemoryValidationError, type FetchLike } from '../../src/client/index.js';
import { LIMITS } from '../../src/core/limits.js';

const KEY = `amk_${'K'.repeat(40)}`;

/** A fetch that must never be called: input problems are caught before any request. */
function forbiddenFetch(): FetchLike & { calls: number } {
  const fn = Object.assign(
    async (): Promise<Response> => {
      fn.calls++;
      throw new Error('fetch must not be called');
    },
    { calls: 0 },
  );
  return fn;
}

/** A fetch that records the request and answers with `body`. */
function recordingFetch(status: number, body: unknown): FetchLike & { requests: Array<{ url: string; init: RequestInit }> } {
  const requests: Array<{ url: string; init: RequestInit }> = [];
  const fn = async (url: string, init: RequestInit): Promise<Response> => {
    requests.push({ url, init });
    return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  };
  return Object.assign(fn, { requests });
}

async function validationError(promise: Promise<unknown>): Promise<MemoryValidationError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryValidationError);
  return error as MemoryValidationError;
}

describe('options', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('takes the key and address from the environment when not given', () => {
    vi.stubEnv('MEMORY_API_KEY', KEY);
    vi.stubEnv('MEMORY_BASE_URL', 'http://memory.internal:9000/');
    expect(new MemoryClient().baseUrl).toBe('http://memory.internal:9000');
  });

  it('prefers options over the environment, and tolerates trailing slashes', () => {
    vi.stubEnv('MEMORY_BASE_URL', 'http://ignored:1');
    const client = new MemoryClient({ apiKey: KEY, baseUrl: 'https://api.example.com/memory//' });
    expect(client.baseUrl).toBe('https://api.example.com/memory');
  });

  it('defaults to the local server', () => {
    vi.stubEnv('MEMORY_BASE_URL', '');
    expect(new MemoryClient({ apiKey: KEY }).baseUrl).toBe('http://127.0.0.1:8787');
  });

  it('says clearly when there is no API key at all', () => {
    vi.stubEnv('MEMORY_API_KEY', '');
    expect(() => new MemoryClient()).toThrow(MemoryValidationError);
    expect(() => new MemoryClient()).toThrow(/MEMORY_API_KEY/);
  });

  it('works where there is no process (browsers, edge runtimes)', () => {
    const saved = globalThis.process;
    let baseUrl: string | undefined;
    let missingKey: unknown;
    try {
      // @ts-expect-error -- simulating a runtime without `process`; restored right below.
      delete globalThis.process;
      baseUrl = new MemoryClient({ apiKey: KEY }).baseUrl;
      try {
        new MemoryClient();
      } catch (error) {
        missingKey = error;
      }
    } finally {
      globalThis.process = saved;
    }
    expect(baseUrl).toBe('http://127.0.0.1:8787');
    expect(missingKey).toBeInstanceOf(MemoryValidationError);
  });

  it.each([
    [{ apiKey: 'has space' }, 'apiKey'],
    [{ apiKey: KEY, baseUrl: 'ftp://x' }, 'baseUrl'],
    [{ apiKey: KEY, baseUrl: 'not a url' }, 'baseUrl'],
    [{ apiKey: KEY, baseUrl: 'http://x/?a=1' }, 'baseUrl'],
    [{ apiKey: KEY, appId: 'Not A Slug' }, 'appId'],
    [{ apiKey: KEY, timeoutMs: 0 }, 'timeoutMs'],
    [{ apiKey: KEY, timeoutMs: 2 ** 31 }, 'timeoutMs'],
    [{ apiKey: KEY, maxRetries: -1 }, 'maxRetries'],
    [{ apiKey: KEY, maxRetries: 1.5 }, 'maxRetries'],
  ])('rejects %j', (options, path) => {
    try {
      new MemoryClient(options);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(MemoryValidationError);
      expect((error as MemoryValidationError).details.map((d) => d.path)).toEqual([path]);
    }
  });
});

describe('validation before any request', () => {
  const fetch = forbiddenFetch();
  const client = new MemoryClient({ apiKey: KEY, fetch });
  afterEach(() => {
    expect(fetch.calls).toBe(0);
  });

  it.each([
    ['missing userId', { text: 'x' }, 'userId'],
    ['empty text', { userId: 'u', text: '' }, 'text'],
    ['blank text', { userId: 'u', text: ' \n ' }, 'text'],
    ['text too long', { userId: 'u', text: 'x'.repeat(LIMITS.textMaxLength + 1) }, 'text'],
    ['bad appId', { userId: 'u', text: 'x', appId: 'Bad App' }, 'appId'],
    ['array metadata', { userId: 'u', text: 'x', metadata: [1] }, 'metadata'],
    ['metadata too big', { userId: 'u', text: 'x', metadata: { pad: 'z'.repeat(LIMITS.metadataMaxBytes) } }, 'metadata'],
    ['future createdAt', { userId: 'u', text: 'x', createdAt: '2999-01-01T00:00:00Z' }, 'createdAt'],
    ['unknown field', { userId: 'u', text: 'x', user_id: 'typo' }, ''],
  ])('store: %s', async (_name, input, path) => {
    // Cast: the point is what a JavaScript caller (or a widened type) can still pass at run time.
    const error = await validationError(client.store(input as Parameters<MemoryClient['store']>[0]));
    expect(error.code).toBe('validation_error');
    expect(error.status).toBeUndefined();
    expect(error.details.map((d) => d.path)).toContain(path);
  });

  it('store: the server\u2019s messages, not new ones', async () => {
    const error = await validationError(client.store({ userId: 'u', text: 'x'.repeat(LIMITS.textMaxLength + 1) }));
    expect(error.message).toBe(`text must be at most ${LIMITS.textMaxLength} characters.`);
    const both = await validationError(client.store({} as Parameters<MemoryClient['store']>[0]));
    expect(both.details).toEqual([
      { path: 'userId', message: 'userId is required.' },
      { path: 'text', message: 'text is required.' },
    ]);
  });

  it('store: a bad idempotency key', async () => {
    const error = await validationError(client.store({ userId: 'u', text: 'x' }, { idempotencyKey: 'x'.repeat(LIMITS.idempotencyKeyMaxLength + 1) }));
    expect(error.details[0]?.path).toBe('idempotencyKey');
  });

  it('list: page and pageSize out of range', async () => {
    expect((await validationError(client.list({ userId: 'u', page: -1 }))).details[0]?.path).toBe('page');
    expect((await validationError(client.list({ userId: 'u', pageSize: LIMITS.pageSizeMax + 1 }))).details[0]?.path).toBe('pageSize');
    expect((await validationError(client.list({ userId: '' }))).details[0]?.path).toBe('userId');
  });

  it('recall: limit and minScore out of range, empty query', async () => {
    expect((await validationError(client.recall({ userId: 'u', query: 'q', limit: 0 }))).details[0]?.path).toBe('limit');
    expect((await validationError(client.recallRaw({ userId: 'u', query: 'q', limit: LIMITS.recallLimitMax + 1 }))).details[0]?.path).toBe('limit');
    expect((await validationError(client.recall({ userId: 'u', query: 'q', minScore: 1.5 }))).details[0]?.path).toBe('minScore');
    expect((await validationError(client.recallRaw({ userId: 'u', query: '   ' }))).details[0]?.path).toBe('query');
  });

  it('forget, forgetMany, forgetAll: bad ids and users', async () => {
    expect((await validationError(client.forget('42'))).details[0]?.path).toBe('id');
    expect((await validationError(client.forget('mem_short'))).details[0]?.path).toBe('id');
    expect((await validationError(client.forgetMany([]))).details[0]?.path).toBe('ids');
    expect((await validationError(client.forgetMany(['mem_AAAAAAAAAAAA', 'nope']))).details[0]?.path).toBe('ids.1');
    const tooMany = Array.from({ length: LIMITS.batchDeleteMaxIds + 1 }, () => 'mem_AAAAAAAAAAAA');
    expect((await validationError(client.forgetMany(tooMany))).details[0]?.path).toBe('ids');
    expect((await validationError(client.forgetAll(''))).details[0]?.path).toBe('userId');
    expect((await validationError(client.forgetAll('u', { appId: 'Bad' }))).details[0]?.path).toBe('appId');
  });
});

describe('requests', () => {
  it('sends the key, JSON, one idempotency key, and the client appId as the store fallback', async () => {
    const fetch = recordingFetch(201, { id: 'mem_AAAAAAAAAAAA', userId: 'u', appId: 'chat', createdAt: '2026-01-01T00:00:00.000Z', duplicate: false });
    const client = new MemoryClient({ apiKey: KEY, baseUrl: 'http://h:1/', appId: 'chat', fetch });
    await client.store({ userId: 'u', text: 'x' });
    await client.store({ userId: 'u', text: 'y', appId: 'other' }, { idempotencyKey: 'mine' });
    const [first, second] = fetch.requests;
    expect(first?.url).toBe('http://h:1/v1/memories');
    const headers = new Headers(first?.init.headers);
    expect(headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(String(first?.init.body))).toEqual({ userId: 'u', text: 'x', appId: 'chat' });
    expect(new Headers(second?.init.headers).get('idempotency-key')).toBe('mine');
    expect(JSON.parse(String(second?.init.body))).toEqual({ userId: 'u', text: 'y', appId: 'other' });
  });

  it('percent-encodes ids in paths and user ids in query strings', async () => {
    const fetch = recordingFetch(200, { deleted: 0 });
    const client = new MemoryClient({ apiKey: KEY, baseUrl: 'http://h:1', fetch });
    await client.forget('3F1C2A9E-0000-4000-8000-000000000000');
    await client.forgetAll('a/b c?&d=e', { appId: 'chat' });
    expect(fetch.requests[0]?.url).toBe('http://h:1/v1/memories/3F1C2A9E-0000-4000-8000-000000000000');
    const url = new URL(fetch.requests[1]?.url ?? '');
    expect(url.pathname).toBe('/v1/memories');
    expect(url.searchParams.get('userId')).toBe('a/b c?&d=e');
    expect(url.searchParams.get('appId')).toBe('chat');
  });
});
