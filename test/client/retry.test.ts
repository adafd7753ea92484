import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_POLICY,
  backoffDelayMs,
  isRetryable,
  parseRetryAfter,
  retryDelayMs,
  shouldRetry,
  type AttemptFailure,
} from '../../src/client/retry.js';

const policy = DEFAULT_RETRY_POLICY;
const status = (code: number, retryAfterMs?: number): AttemptFailure => ({ kind: 'status', status: code, retryAfterMs });

describe('shouldRetry', () => {
  it.each([
    ['a connection error', { kind: 'connection' } as AttemptFailure],
    ['a timeout', { kind: 'timeout' } as AttemptFailure],
    ['429', status(429)],
    ['500', status(500)],
    ['502', status(502)],
    ['503', status(503)],
    ['504', status(504)],
  ])('retries %s', (_name, failure) => {
    expect(isRetryable(failure)).toBe(true);
    expect(shouldRetry(failure, 0, policy)).toBe(true);
  });

  it.each([400, 401, 403, 404, 408, 409, 413, 415, 422, 501, 200])('never retries %i', (code) => {
    expect(isRetryable(status(code))).toBe(false);
    expect(shouldRetry(status(code), 0, policy)).toBe(false);
  });

  it('stops after maxRetries retries', () => {
    const failure = status(503);
    expect(shouldRetry(failure, 0, { ...policy, maxRetries: 2 })).toBe(true);
    expect(shouldRetry(failure, 1, { ...policy, maxRetries: 2 })).toBe(true);
    expect(shouldRetry(failure, 2, { ...policy, maxRetries: 2 })).toBe(false);
    expect(shouldRetry({ kind: 'connection' }, 0, { ...policy, maxRetries: 0 })).toBe(false);
  });

  it('waits for a Retry-After up to the ceiling, and gives up at once beyond it', () => {
    expect(shouldRetry(status(429, policy.maxRetryAfterMs), 0, policy)).toBe(true);
    expect(shouldRetry(status(429, policy.maxRetryAfterMs + 1), 0, policy)).toBe(false);
    expect(shouldRetry(status(503, 120_000), 0, policy)).toBe(false);
  });
});

describe('backoff', () => {
  it('doubles its ceiling each retry, up to maxDelayMs', () => {
    const top = () => 0.999_999;
    const ceilings = [0, 1, 2, 3, 4, 5, 10].map((n) => backoffDelayMs(n, policy, top) + 1);
    expect(ceilings).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('is full jitter: anywhere from 0 to the ceiling', () => {
    expect(backoffDelayMs(3, policy, () => 0)).toBe(0);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(2000);
    for (let i = 0; i < 200; i++) {
      const delay = backoffDelayMs(2, policy);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(2000);
    }
  });

  it('uses the Retry-After when the server gave one, backoff otherwise', () => {
    expect(retryDelayMs(status(429, 7000), 0, policy, () => 0.5)).toBe(7000);
    expect(retryDelayMs(status(503, 0), 1, policy, () => 0.5)).toBe(0);
    expect(retryDelayMs(status(503), 1, policy, () => 0.5)).toBe(500);
    expect(retryDelayMs({ kind: 'timeout' }, 0, policy, () => 0.5)).toBe(250);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T10:00:00.000Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('12', now)).toBe(12_000);
    expect(parseRetryAfter(' 3 ', now)).toBe(3_000);
    expect(parseRetryAfter('1.5', now)).toBe(1_500);
  });

  it('reads an HTTP date, and a past date means now', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it.each([null, undefined, '', '-5', 'soon', '1e3', 'Tomorrow 10:00'])('ignores %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
