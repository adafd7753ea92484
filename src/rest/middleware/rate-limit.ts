import type { Response, RequestHandler } from 'express';
import { MemoryError } from '../../core/errors.js';
import type { RateDecision, RateLimiter } from '../../core/rate-limit.js';
import { callerOf } from '../locals.js';

/** The key a caller is limited under (the local caller of a test or stdio has none). */
export function limitKey(res: Response): string {
  return callerOf(res).keyId ?? 'local';
}

/** Sets the RateLimit-* headers of a decision; a refusal becomes the 429 `rate_limit` error. */
export function applyDecision(res: Response, decision: RateDecision | null): void {
  if (!decision) return;
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
  if (!decision.allowed) {
    throw new MemoryError('rate_limit', `Too many requests for this API key; retry in ${decision.retryAfterSeconds} s.`, {
      retryAfterSeconds: decision.retryAfterSeconds,
    });
  }
}

/** Token bucket per API key; every limited response carries the RateLimit-* headers, a refusal is 429. */
export function rateLimit(limiter: RateLimiter): RequestHandler {
  return async function rateLimitMiddleware(_req, res, next) {
    applyDecision(res, await limiter.take(limitKey(res)));
    next();
  };
}
