import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  MemoryApiError,
  MemoryClientError,
  MemoryValidationError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  UnprocessableEntityError,
} from '../../src/client/index.js';
import { apiErrorFromResponse } from '../../src/client/errors.js';
import { MemoryError, type ErrorCode } from '../../src/core/errors.js';

/** The body the server would send for this code, built by the server's own error type. */
function serverBody(code: ErrorCode, message = `a ${code} happened`): string {
  return JSON.stringify(new MemoryError(code, message, code === 'validation_error' ? { details: [{ path: 'userId', message: 'userId is required.' }] } : {}).toBody());
}

describe('apiErrorFromResponse', () => {
  it.each([
    [400, 'invalid_json', BadRequestError],
    [401, 'auth_error', AuthenticationError],
    [403, 'forbidden', PermissionDeniedError],
    [404, 'not_found', NotFoundError],
    [409, 'idempotency_conflict', ConflictError],
    [413, 'payload_too_large', PayloadTooLargeError],
    [415, 'unsupported_media_type', MemoryApiError],
    [422, 'validation_error', UnprocessableEntityError],
    [429, 'rate_limit', RateLimitError],
    [500, 'server_error', InternalServerError],
    [503, 'unavailable', ServiceUnavailableError],
  ] as const)('maps %i %s to %o', (status, code, Class) => {
    const headers = new Headers({ 'X-Request-Id': 'req-1' });
    const error = apiErrorFromResponse(status, '', headers, serverBody(code), 'GET /v1/x');
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(MemoryApiError);
    expect(error).toBeInstanceOf(MemoryClientError);
    expect(error).toBeInstanceOf(Error);
    expect(error.constructor).toBe(Class);
    expect(error.name).toBe(Class.name);
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.message).toBe(`a ${code} happened`);
    expect(error.requestId).toBe('req-1');
    expect(error.headers.get('x-request-id')).toBe('req-1');
  });

  it('keeps the details of a validation error', () => {
    const error = apiErrorFromResponse(422, '', new Headers(), serverBody('validation_error'), 'POST /v1/memories');
    expect(error.details).toEqual([{ path: 'userId', message: 'userId is required.' }]);
  });

  it('gives every 5xx an InternalServerError, and 503 its own subclass of it', () => {
    expect(apiErrorFromResponse(502, '', new Headers(), '', 'x')).toBeInstanceOf(InternalServerError);
    expect(apiErrorFromResponse(504, '', new Headers(), '', 'x')).toBeInstanceOf(InternalServerError);
    const unavailable = apiErrorFromResponse(503, '', new Headers(), '', 'x');
    expect(unavailable).toBeInstanceOf(ServiceUnavailableError);
    expect(unavailable).toBeInstanceOf(InternalServerError);
  });

  it('reads Retry-After into retryAfter (seconds) on 429 and 503', () => {
    const limited = apiErrorFromResponse(429, '', new Headers({ 'Retry-After': '17' }), serverBody('rate_limit'), 'x');
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfter).toBe(17);
    const at = new Date(Date.now() + 42_000).toUTCString();
    const unavailable = apiErrorFromResponse(503, '', new Headers({ 'Retry-After': at }), '', 'x') as ServiceUnavailableError;
    expect(unavailable.retryAfter).toBeGreaterThanOrEqual(40);
    expect(unavailable.retryAfter).toBeLessThanOrEqual(42);
    expect((apiErrorFromResponse(429, '', new Headers(), '', 'x') as RateLimitError).retryAfter).toBeUndefined();
  });

  it('still gives a proper error for a body that is not the contract\u2019s JSON', () => {
    const html = apiErrorFromResponse(502, 'Bad Gateway', new Headers(), '<html>\n  <h1>Bad gateway</h1>\n</html>', 'GET /v1/memories');
    expect(html).toBeInstanceOf(InternalServerError);
    expect(html.code).toBe('server_error');
    expect(html.status).toBe(502);
    expect(html.message).toContain('GET /v1/memories failed with HTTP 502 Bad Gateway');
    expect(html.message).toContain('<html> <h1>Bad gateway</h1> </html>');
    expect(html.details).toEqual([]);

    const empty = apiErrorFromResponse(401, '', new Headers(), '', 'x');
    expect(empty).toBeInstanceOf(AuthenticationError);
    expect(empty.code).toBe('auth_error');
    expect(empty.message).toContain('empty body');

    expect(apiErrorFromResponse(418, '', new Headers(), '{"error": "teapot"}', 'x').code).toBe('http_error');
    expect(apiErrorFromResponse(400, '', new Headers(), '[1]', 'x').code).toBe('invalid_json');
    expect(apiErrorFromResponse(599, '', new Headers(), 'null', 'x').code).toBe('server_error');
  });

  it('truncates a long non-JSON body', () => {
    const error = apiErrorFromResponse(500, '', new Headers(), 'x'.repeat(10_000), 'x');
    expect(error.message.length).toBeLessThan(400);
  });
});

describe('client-side errors', () => {
  it('MemoryValidationError has no status, code validation_error and details', () => {
    const error = new MemoryValidationError('text must not be empty.', [{ path: 'text', message: 'text must not be empty.' }]);
    expect(error).toBeInstanceOf(MemoryClientError);
    expect(error).not.toBeInstanceOf(MemoryApiError);
    expect(error.status).toBeUndefined();
    expect(error.code).toBe('validation_error');
    expect(error.name).toBe('MemoryValidationError');
  });

  it('TimeoutError is a ConnectionError; neither has a status', () => {
    const timeout = new TimeoutError('slow');
    expect(timeout).toBeInstanceOf(ConnectionError);
    expect(timeout.code).toBe('timeout');
    expect(timeout.status).toBeUndefined();
    const refused = new ConnectionError('refused', { cause: new Error('ECONNREFUSED') });
    expect(refused.code).toBe('connection_error');
    expect(refused.cause).toBeInstanceOf(Error);
  });
});
