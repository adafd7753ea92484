import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSocket } from '../reliability/support/http.js';
import { startTestServer, TEST_KEY, type ErrorJson, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
});
afterAll(async () => {
  await server.stop();
});

describe('errors and routing', () => {
  it.each([
    ['GET', '/nope'],
    ['GET', '/v1/nope'],
    ['PUT', '/v1/memories'],
    ['PUT', '/v1/memories/mem_000000000000'],
    ['PATCH', '/v1/memories/by-id/mem_000000000000'],
    ['POST', '/v1/memories/someone'],
  ])('%s %s is a JSON 404', async (method, path) => {
    const res = await server.call(path, { method });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await res.json()) as ErrorJson).error.code).toBe('not_found');
  });

  it('echoes a sane request id and replaces an unsafe one', async () => {
    const mine = await server.call('/v1/memories/x', { headers: { 'X-Request-Id': 'abc-123' } });
    expect(mine.headers.get('x-request-id')).toBe('abc-123');
    const unsafe = await server.call('/v1/memories/x', { headers: { 'X-Request-Id': 'a b\tc' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never answers with HTML or a stack trace', async () => {
    const res = await server.call('/v1/memories', { method: 'POST', body: '\u0000\u0001', headers: { 'Content-Type': 'application/json' } });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text).not.toMatch(/<html|at \w+ \(/i);
  });
});

describe('bodies that are not valid UTF-8', () => {
  it.each([
    ['a 0xff byte', Buffer.from([0xff])],
    ['a 0xfe byte', Buffer.from([0xfe])],
    ['a truncated sequence', Buffer.from([0xc3])],
  ])('a userId with %s is 422, never silently replaced by U+FFFD', async (_name, bad) => {
    const body = Buffer.concat([Buffer.from('{"userId":"bob'), bad, Buffer.from('","text":"Bob likes tea."}')]);
    const res = await server.call('/v1/memories', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(422);
    const json = (await res.json()) as ErrorJson;
    expect(json.error.code).toBe('validation_error');
    expect(json.error.message).toMatch(/UTF-8/);
    const list = await server.call('/v1/memories?userId=bob%EF%BF%BD');
    expect(((await list.json()) as { total: number }).total).toBe(0);
  });
});

describe('answers outside the routes keep the contract\u2019s shape', () => {
  it('a request without a Host header is a JSON 400, not a bare one', async () => {
    const res = await rawSocket(server.url, `GET /v1/memories?userId=a HTTP/1.1\r\nAuthorization: Bearer ${TEST_KEY}\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(JSON.parse(res.text)).toEqual({ error: { code: 'invalid_json', message: 'The request has no Host header, which HTTP/1.1 requires.' } });
  });

  it.each(['/v1/memories', '/healthz', '/mcp', '/nope'])('OPTIONS %s is the JSON 404, not a plain-text list of methods', async (path) => {
    const res = await server.call(path, { method: 'OPTIONS' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await res.json()) as ErrorJson).error).toEqual({ code: 'not_found', message: `No route for OPTIONS ${path}.` });
  });
});
