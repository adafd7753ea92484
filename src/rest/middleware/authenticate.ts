import type { RequestHandler } from 'express';
import type { Authenticator } from '../../core/auth.js';
import { isMemoryError } from '../../core/errors.js';
import type { RateLimiter } from '../../core/rate-limit.js';
import { locals } from '../locals.js';
import { applyDecision } from './rate-limit.js';

/**
 * Resolves the Bearer key into a Caller on `res.locals`, or fails the request with 401 `auth_error`. A refusal is
 * charged to the client's address (there is no key to charge), so that it carries the RateLimit-* headers like
 * every other answer and guessing keys at speed ends in 429.
 */
export function authenticate(authenticator: Authenticator, limiter: RateLimiter): RequestHandler {
  return async function authenticateMiddleware(req, res, next) {
    try {
      locals(res).caller = await authenticator.authenticate(req.get('Authorization'));
    } catch (error) {
      if (isMemoryError(error) && error.code === 'auth_error') applyDecision(res, await limiter.take(`address:${req.ip ?? 'unknown'}`));
      throw error;
    }
    next();
  };
}
