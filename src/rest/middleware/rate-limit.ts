import type { RequestHandler } from 'express';
import { MemoryError } from '../../core/errors.js';
import type { RateLimiter } from '../../core/rate-limit.js';
import { callerOf } from '../locals.js';

/** Token bucket per API key; every limited response carries the RateLimit-* headers, a refusal is 429. */
export function rateLimit(limiter: RateLimiter): RequestHandler {
  return async function rateLimitMiddleware(_req, res, next) {
    const caller = callerOf(res);
    const decision = await limiter.take(caller.keyId ?? 'local');
    if (decision) {
      res.setHeader('RateLimit-Limit', String(decision.limit));
      res.setHeader('RateLimit-Remaining', String(decision.remaining));
      res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
      if (!decision.allowed) {
        throw new MemoryError('rate_limit', `Too many requests for this API key; retry in ${decision.retryAfterSeconds} s.`, {
          retryAfterSeconds: decision.retryAfterSeconds,
        });
      }
    }
    next();
  };
}
