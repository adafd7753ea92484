import type { RequestHandler } from 'express';
import type { Authenticator } from '../../core/auth.js';
import { locals } from '../locals.js';

/** Resolves the Bearer key into a Caller on `res.locals`, or fails the request with 401 `auth_error`. */
export function authenticate(authenticator: Authenticator): RequestHandler {
  return async function authenticateMiddleware(req, res, next) {
    locals(res).caller = await authenticator.authenticate(req.get('Authorization'));
    next();
  };
}
