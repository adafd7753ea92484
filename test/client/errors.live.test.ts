import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConflictError,
  InternalServerError,
  MemoryApiError,
  MemoryClient,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  ServiceUnavailableError,
  UnprocessableEntityError,
  type FetchLike,
  type MemoryClientOptions,
} from '../../src/client/index.js';
import { createApiKey } from '../../src/core/key-admin.js';
import { LIMITS } from '../../src/core/limits.js';
import { TEST_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';

/** Each error kind as the live server really answers it; the proxy is only used for bodies no server of ours sends. */
let server: TestServer;
let proxy: FaultProxy;
beforeAll(async () => {
  server = await startTestServer();
  proxy = await startFaultProxy(server.url);
});
afterAll(async () => {
  await proxy.close();
  await server.stop();
});

const instant = (): Promise<void> => Promise.resolve();

/** A client on the live server whose fetch counts attempts (and may rewrite them). */
function countingClient(options: MemoryClientOptions = {}, rewrite?: (init: RequestInit) => RequestInit) {
  const attempts: string[] = [];
  const fetchImpl: FetchLike = (url, init) => {
    attempts.push(`${init.method ?? 'GET'} ${url}`);
    return fetch(url, rewrite ? rewrite(init) : init);
  };
  const client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url, sleep: instant, fetch: fetchImpl, ...options });
  return { client, attempts };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

describe('errors from a live server', () => {
  it('401 with a bad key: AuthenticationError, request id, headers, not retried', async () => {
    const { client, attempts } = countingClient({ apiKey: `amk_${'x'.repeat(40)}` });
    const error = await failure(client.list({ userId: 'u' }));
    expect(error).toBeInstanceOf(AuthenticationError);
    const auth = error as AuthenticationError;
    expect(auth.status).toBe(401);
    expect(auth.code).toBe('auth_error');
    expect(auth.message).toBe('Invalid API key.');
    expect(auth.requestId).toMatch(/.+/);
    expect(auth.headers.get('www-authenticate')).toBe('Bearer');
    expect(attempts).toHaveLength(1);
  });

  it('403 when a key bound to one app names another', async () => {
    const { key } = await createApiKey(server.runtime.store, { app: 'bound-app', label: 'client test' });
    const { client, attempts } = countingClient({ apiKey: key });
    expect((await client.store({ userId: 'u', text: 'Stored in the key\u2019s app.' })).appId).toBe('bound-app');
    const error = await failure(client.store({ userId: 'u', text: 'Elsewhere.', appId: 'other-app' }));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).code).toBe('forbidden');
    expect((error as PermissionDeniedError).status).toBe(403);
    expect(attempts).toHaveLength(2);
  });

  it('404 when the baseUrl points at the wrong path', async () => {
    const { client } = countingClient({ baseUrl: `${server.url}/not-the-api/` });
    const error = await failure(client.list({ userId: 'u' }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe('not_found');
  });

  it('409 when an idempotency key is reused with another body, never retried', async () => {
    const { client, attempts } = countingClient();
    const first = await client.store({ userId: 'idem', text: 'One.' }, { idempotencyKey: 'client-409' });
    expect(await client.store({ userId: 'idem', text: 'One.' }, { idempotencyKey: 'client-409' })).toEqual(first);
    const error = await failure(client.store({ userId: 'idem', text: 'Two.' }, { idempotencyKey: 'client-409' }));
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).code).toBe('idempotency_conflict');
    expect(attempts).toHaveLength(3);
    expect((await client.list({ userId: 'idem' })).total).toBe(1);
  });

  it('422 from the server for what only the server can judge: an unknown app UUID', async () => {
    const { client, attempts } = countingClient();
    const error = await failure(client.store({ userId: 'u', text: 'x', appId: '3f1c2a9e-0000-4000-8000-000000000000' }));
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    const invalid = error as UnprocessableEntityError;
    expect(invalid.code).toBe('validation_error');
    expect(invalid.details.map((d) => d.path)).toEqual(['appId']);
    expect(attempts).toHaveLength(1);
  });

  it('422 from the server when client-side validation is bypassed on the wire', async () => {
    const stripUser = (init: RequestInit): RequestInit => {
      const { userId: _dropped, ...rest } = JSON.parse(String(init.body)) as Record<string, unknown>;
      return { ...init, body: JSON.stringify(rest) };
    };
    const { client } = countingClient({}, stripUser);
    const error = await failure(client.store({ userId: 'u', text: 'x' }));
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).details).toEqual([{ path: 'userId', message: 'userId is required.' }]);
  });

  it('413 for a body over the server\u2019s limit (padded on the wire, past client validation)', async () => {
    const pad = (init: RequestInit): RequestInit => {
      const body = JSON.parse(String(init.body)) as Record<string, unknown>;
      return { ...init, body: JSON.stringify({ ...body, metadata: { pad: 'z'.repeat(LIMITS.bodyMaxBytes) } }) };
    };
    const { client, attempts } = countingClient({}, pad);
    const error = await failure(client.store({ userId: 'u', text: 'x' }));
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect((error as PayloadTooLargeError).code).toBe('payload_too_large');
    expect(attempts).toHaveLength(1);
  });

  it('a non-JSON error page (a proxy\u2019s 502) still gives a proper error', async () => {
    proxy.enqueue({ kind: 'respond', status: 502, headers: { 'Content-Type': 'text/html' }, body: '<html><body>Bad gateway</body></html>' });
    const client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: proxy.url, maxRetries: 0 });
    const error = await failure(client.list({ userId: 'u' }));
    expect(error).toBeInstanceOf(InternalServerError);
    const bad = error as InternalServerError;
    expect(bad.status).toBe(502);
    expect(bad.code).toBe('server_error');
    expect(bad.message).toMatch(/GET \/v1\/memories failed with HTTP 502.*Bad gateway/);
  });

  it('an empty 503 is a ServiceUnavailableError', async () => {
    proxy.enqueue({ kind: 'respond', status: 503 });
    const client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: proxy.url, maxRetries: 0 });
    const error = await failure(client.forget('mem_AAAAAAAAAAAA'));
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).code).toBe('unavailable');
  });

  it('a 200 that is not the API\u2019s answer is an invalid_response error, not a wrongly typed value', async () => {
    proxy.enqueue(
      { kind: 'respond', status: 200, headers: { 'Content-Type': 'text/html' }, body: '<html>Login</html>' },
      { kind: 'respond', status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"deleted":"many"}' },
    );
    const client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: proxy.url });
    const html = await failure(client.forget('mem_AAAAAAAAAAAA'));
    expect(html).toBeInstanceOf(MemoryApiError);
    expect((html as MemoryApiError).code).toBe('invalid_response');
    expect((html as MemoryApiError).message).toContain('is not JSON');
    const shape = await failure(client.forget('mem_AAAAAAAAAAAA'));
    expect((shape as MemoryApiError).code).toBe('invalid_response');
    expect((shape as MemoryApiError).message).toContain('deleted');
    expect(proxy.requests).toHaveLength(4);
  });
});
