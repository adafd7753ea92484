import type { ErrorRequestHandler, RequestHandler } from 'express';
import { MemoryError, toMemoryError, type ErrorCode } from '../../core/errors.js';
import { errorFields, type Logger } from '../../core/logger.js';
import { LIMITS } from '../../core/limits.js';
import { locals } from '../locals.js';

/** Errors raised by express and body-parser before our code runs, by their `type`. */
const PARSER_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  'entity.parse.failed': { code: 'invalid_json', message: 'The request body is not valid JSON.' },
  'entity.too.large': {
    code: 'payload_too_large',
    message: `The request body is larger than ${LIMITS.bodyMaxBytes} bytes.`,
  },
  'encoding.unsupported': { code: 'unsupported_media_type', message: 'The request body has an unsupported content encoding.' },
  'charset.unsupported': { code: 'unsupported_media_type', message: 'The request body must be UTF-8 JSON.' },
  'request.aborted': { code: 'invalid_json', message: 'The request body was cut off.' },
  'request.size.invalid': { code: 'invalid_json', message: 'The request body does not match its Content-Length.' },
  // json-body.ts refuses bytes that are not UTF-8 instead of letting them become U+FFFD.
  'entity.verify.failed': {
    code: 'validation_error',
    message: 'The request body is not valid UTF-8: every string must be UTF-8 encoded.',
  },
};

function fromFramework(error: unknown): MemoryError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, status } = error as { type?: unknown; status?: unknown };
  if (typeof type === 'string' && PARSER_ERRORS[type]) {
    const mapped = PARSER_ERRORS[type];
    return new MemoryError(mapped.code, mapped.message, { cause: error });
  }
  // Express fails to decode a malformed percent-encoded path parameter with a 400 URIError.
  if (error instanceof URIError) {
    return new MemoryError('validation_error', 'The request path is not valid percent-encoding.', {
      details: [{ path: 'path', message: 'Malformed percent-encoding.' }],
      cause: error,
    });
  }
  // Any other 400 from the body parser is a body that could not be read: a gzip, deflate or br body that does not
  // decompress (it used to be answered as a malformed path).
  if (status === 400) return new MemoryError('invalid_json', 'The request body could not be read or decoded.', { cause: error });
  return undefined;
}

/**
 * HTTP/1.1 requires a Host header. Node answered a request without one with a bare 400 before any of our code ran
 * (the server now lets it through: see serve.ts); it gets the contract's error body here.
 */
export function refuseHostless(): RequestHandler {
  return function refuseHostlessMiddleware(req, _res, next) {
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      next(new MemoryError('invalid_json', 'The request has no Host header, which HTTP/1.1 requires.'));
      return;
    }
    next();
  };
}

/**
 * No route takes OPTIONS (no CORS: browsers are not clients of this API; only the OAuth endpoints answer their
 * preflights, oauth/cors.ts, mounted before this). Express would answer it itself
 * with a plain-text list of methods; it is the contract's JSON 404, like any other method a route does not take.
 */
export function refuseOptions(): RequestHandler {
  return function refuseOptionsMiddleware(req, _res, next) {
    if (req.method === 'OPTIONS') {
      next(new MemoryError('not_found', `No route for ${req.method} ${req.path}.`));
      return;
    }
    next();
  };
}

/** Unknown routes and methods answer the contract's JSON 404, never express's HTML page. */
export function notFound(): RequestHandler {
  return function notFoundHandler(req, _res, next) {
    next(new MemoryError('not_found', `No route for ${req.method} ${req.path}.`));
  };
}

/**
 * The last middleware: every failure becomes the contract's error body. Anything unexpected is logged with the
 * request id and answered with a bare 500 `server_error`: no stack, no SQL, no internal message.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return function errorHandlerMiddleware(error: unknown, _req, res, next) {
    if (res.headersSent) {
      next(error);
      return;
    }
    const mapped = error instanceof MemoryError ? error : (fromFramework(error) ?? toMemoryError(error));
    if (mapped.code === 'server_error') {
      logger.error('unhandled error', { requestId: locals(res).requestId, ...errorFields(error) });
    }
    const challenge = locals(res).challenge?.(mapped);
    if (challenge !== undefined) res.setHeader('WWW-Authenticate', challenge);
    else if (mapped.code === 'auth_error') res.setHeader('WWW-Authenticate', 'Bearer');
    if (mapped.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(mapped.retryAfterSeconds));
    res.status(mapped.status).json(mapped.toBody());
  };
}
