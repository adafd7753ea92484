import express, { type RequestHandler } from 'express';
import { MemoryError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const parseJson = express.json({ limit: LIMITS.bodyMaxBytes, strict: false, type: () => true });

/**
 * Reads a JSON body. A body that is not `application/json` is 415 (never silently read as `{}`); a missing body
 * is `{}`, so that validation names each missing field. Parser failures are mapped by the error handler.
 */
export function jsonBody(): RequestHandler {
  return function jsonBodyMiddleware(req, res, next) {
    if (!hasBody(req.headers)) {
      req.body = {};
      next();
      return;
    }
    if (!req.is('application/json')) {
      next(new MemoryError('unsupported_media_type', 'The request body must be JSON sent with "Content-Type: application/json".'));
      return;
    }
    parseJson(req, res, next);
  };
}
