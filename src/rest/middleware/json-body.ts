import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { MemoryError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * body-parser decodes with replacement: `bob\xff` and `bob\xfe` would both read as `bob\uFFFD`, one user. A body
 * that is not valid UTF-8 (after any content decoding) is refused before it is decoded: body-parser reports it as
 * `entity.verify.failed`, which the error handler answers with 422.
 */
function refuseInvalidUtf8(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw new Error('The request body is not valid UTF-8.');
}

const parseJson = express.json({ limit: LIMITS.bodyMaxBytes, strict: false, type: () => true, verify: refuseInvalidUtf8 });

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
