/**
 * When and how long to wait before trying again. Pure functions (time and randomness are arguments), so each rule
 * is unit-tested without a clock or a server.
 */

/** Why an attempt failed, as far as retrying is concerned. */
export type AttemptFailure =
  | { kind: 'connection' }
  | { kind: 'timeout' }
  | { kind: 'status'; status: number; retryAfterMs: number | undefined };

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff ceiling; doubles each retry. */
  baseDelayMs: number;
  /** Backoff never waits longer than this. */
  maxDelayMs: number;
  /** A Retry-After above this is not waited for: the error is thrown at once so the caller can decide. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
});

/**
 * Whether the failure is worth another attempt at all. Every method is safe to repeat (reads, deletes, and stores
 * carry one Idempotency-Key across attempts), so the question is only whether trying again can help:
 * - no answer (connection refused or reset, timeout): the next attempt may get through;
 * - 429 and 5xx: the server is overloaded, starting or restarting; 501 is excluded, it will not start working;
 * - any other 4xx, 409 in particular: the same request gets the same answer.
 */
export function isRetryable(failure: AttemptFailure): boolean {
  if (failure.kind !== 'status') return true;
  if (failure.status === 429) return true;
  return failure.status >= 500 && failure.status !== 501;
}

/** Whether to try again after `retriesDone` retries have already failed. */
export function shouldRetry(failure: AttemptFailure, retriesDone: number, policy: RetryPolicy): boolean {
  if (retriesDone >= policy.maxRetries || !isRetryable(failure)) return false;
  // Waiting longer than the ceiling would hold the caller hostage; better to hand over the error and retryAfter.
  if (failure.kind === 'status' && failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxRetryAfterMs) {
    return false;
  }
  return true;
}

/**
 * Capped exponential backoff with full jitter: uniform in [0, min(max, base * 2^retries)). Full jitter spreads
 * the retries of many clients that failed together, instead of having them all come back at the same instant.
 */
export function backoffDelayMs(retriesDone: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retriesDone);
  return Math.floor(random() * ceiling);
}

/** The wait before the next attempt: the server's Retry-After when it gave one (it knows best), else backoff. */
export function retryDelayMs(
  failure: AttemptFailure,
  retriesDone: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  if (failure.kind === 'status' && failure.retryAfterMs !== undefined) return failure.retryAfterMs;
  return backoffDelayMs(retriesDone, policy, random);
}

/**
 * A Retry-After header in milliseconds: delay-seconds (decimals tolerated) or an HTTP date (a past date is 0).
 * Anything else is undefined, so the caller falls back to backoff instead of trusting a garbled value.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date always names a weekday and GMT ("Wed, 21 Oct 2015 07:28:00 GMT"); a bare number is not a date.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
