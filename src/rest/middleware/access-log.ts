import type { RequestHandler } from 'express';
import type { Logger } from '../../core/logger.js';
import { locals } from '../locals.js';

/** One line per request, written when the response is done. The path is logged without its query string. */
export function accessLog(logger: Logger): RequestHandler {
  return function accessLogMiddleware(req, res, next) {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.info('request', {
        requestId: locals(res).requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        keyId: locals(res).caller?.keyId ?? undefined,
      });
    });
    next();
  };
}
