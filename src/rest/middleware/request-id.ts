import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { locals } from '../locals.js';

const HEADER = 'X-Request-Id';
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries a request id (the caller's, if sane, else a new one) that also tags the log line. */
export function requestId(): RequestHandler {
  return function requestIdMiddleware(req, res, next) {
    const incoming = req.get(HEADER);
    const id = incoming !== undefined && SAFE_ID.test(incoming) ? incoming : randomUUID();
    locals(res).requestId = id;
    res.setHeader(HEADER, id);
    next();
  };
}
