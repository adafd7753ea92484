import type { RequestHandler } from 'express';
import type { Logger } from '../../core/logger.js';
import { locals } from '../locals.js';

/** One line per request, written when the response is done. The path is logged without its query string. */
export function accessLog(logger: Logger): RequestHandler {
  return function accessLogMiddleware(req, res, next) {
    const started = process.hrtime.bigint();
    // Read now: by the time the response is done, a mounted router has cut its mount path (`POST /` for a store).
    const path = req.originalUrl.split('?')[0] ?? req.originalUrl;
    res.on('finish', () => {
      logger.info('request', {
        requestId: locals(res).requestId,
        method: req.method,
        path,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        keyId: locals(res).caller?.keyId ?? undefined,
      });
    });
    next();
  };
}
