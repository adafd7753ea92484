/**
 * Everything the client throws is a MemoryClientError with a `code` and a `status` (undefined when no HTTP answer
 * was involved). Modelled on stripe-node and openai-node: one class per way a caller would branch, picked from the
 * HTTP status by `apiErrorFromResponse`, so `instanceof RateLimitError` works without comparing strings.
 */
import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../core/errors.js';
import { parseRetryAfter } from './retry.js';

/**
 * The server's codes (`ErrorCode`) plus the client's own: `connection_error`, `timeout`, `invalid_response`, and
 * `http_error` for a non-JSON answer whose status has no code. Kept open (`string & {}`) so that a code added by a
 * newer server is passed through, not lost, while editors still suggest the known ones.
 */
export type ClientErrorCode =
  | ErrorCode
  | 'connection_error'
  | 'timeout'
  | 'invalid_response'
  | 'http_error'
  | (string & Record<never, never>);

/** Base of every error the client throws. */
export class MemoryClientError extends Error {
  override readonly name: string = 'MemoryClientError';
  readonly code: ClientErrorCode;
  /** The HTTP status of the answer that caused it; undefined when there was no answer (or no request). */
  readonly status: number | undefined;

  constructor(message: string, options: { code: ClientErrorCode; status?: number | undefined; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.status = options.status;
  }
}

/** Bad input, found before any request was sent: nothing reached the server. */
export class MemoryValidationError extends MemoryClientError {
  override readonly name: string = 'MemoryValidationError';
  declare readonly code: 'validation_error';
  declare readonly status: undefined;
  /** One entry per field at fault, as the server would have listed them. */
  readonly details: ErrorDetail[];

  constructor(message: string, details: ErrorDetail[]) {
    super(message, { code: 'validation_error' });
    this.details = details;
  }
}

export interface ApiErrorInit {
  status: number;
  code: ClientErrorCode;
  message: string;
  details?: ErrorDetail[] | undefined;
  headers: Headers;
}

/** The server answered with an error status (or with a body that is not the API's). */
export class MemoryApiError extends MemoryClientError {
  override readonly name: string = 'MemoryApiError';
  declare readonly status: number;
  readonly details: ErrorDetail[];
  /** The server's `X-Request-Id`: quote it when reporting a problem, the server's log line carries the same id. */
  readonly requestId: string | undefined;
  readonly headers: Headers;

  constructor(init: ApiErrorInit) {
    super(init.message, { code: init.code, status: init.status });
    this.details = init.details ?? [];
    this.requestId = init.headers.get('x-request-id') ?? undefined;
    this.headers = init.headers;
  }
}

/** 400: the server could not read the body (the client always sends JSON, so this points at a proxy). */
export class BadRequestError extends MemoryApiError {
  override readonly name: string = 'BadRequestError';
}
/** 401 `auth_error`: missing, unknown or revoked API key. */
export class AuthenticationError extends MemoryApiError {
  override readonly name: string = 'AuthenticationError';
}
/** 403 `forbidden`: the key is bound to one app and the call named another. */
export class PermissionDeniedError extends MemoryApiError {
  override readonly name: string = 'PermissionDeniedError';
}
/** 404 `not_found`: no such memory (unknown, expired or in another app), or no such route (a wrong `baseUrl`). */
export class NotFoundError extends MemoryApiError {
  override readonly name: string = 'NotFoundError';
}
/**
 * 409 `idempotency_conflict` (the Idempotency-Key was already used with another body) or `duplicate_memory` (an
 * update would give a memory the text another one of the same user and app holds). Never retried.
 */
export class ConflictError extends MemoryApiError {
  override readonly name: string = 'ConflictError';
}
/** 413 `payload_too_large`: the body is over the server's limit. */
export class PayloadTooLargeError extends MemoryApiError {
  override readonly name: string = 'PayloadTooLargeError';
}
/** 422 `validation_error` raised by the server: input the client cannot judge, e.g. an unknown app UUID. */
export class UnprocessableEntityError extends MemoryApiError {
  override readonly name: string = 'UnprocessableEntityError';
}

/** Seconds from a Retry-After header (integer seconds or an HTTP date), rounded up. */
function retryAfterSeconds(headers: Headers): number | undefined {
  const ms = parseRetryAfter(headers.get('retry-after'), Date.now());
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

/** 429 `rate_limit`: retried automatically; thrown when retries ran out or the wait was too long. */
export class RateLimitError extends MemoryApiError {
  override readonly name: string = 'RateLimitError';
  /** Seconds the server asked to wait (Retry-After), if it said. */
  readonly retryAfter: number | undefined;

  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfter = retryAfterSeconds(init.headers);
  }
}

/** Any 5xx. Retried automatically; thrown when retries ran out. */
export class InternalServerError extends MemoryApiError {
  override readonly name: string = 'InternalServerError';
}

/** 503 `unavailable`: the server cannot serve yet (model loading or failed); an InternalServerError too. */
export class ServiceUnavailableError extends InternalServerError {
  override readonly name: string = 'ServiceUnavailableError';
  /** Seconds the server asked to wait (Retry-After), if it said. */
  readonly retryAfter: number | undefined;

  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfter = retryAfterSeconds(init.headers);
  }
}

/** No HTTP answer: refused connection, DNS failure, reset socket. Retried automatically. */
export class ConnectionError extends MemoryClientError {
  override readonly name: string = 'ConnectionError';
  declare readonly status: undefined;

  constructor(message: string, options: { cause?: unknown; code?: 'connection_error' | 'timeout' } = {}) {
    super(message, { code: options.code ?? 'connection_error', cause: options.cause });
  }
}

/** No complete answer within `timeoutMs` (per attempt). Retried automatically; a ConnectionError too. */
export class TimeoutError extends ConnectionError {
  override readonly name: string = 'TimeoutError';

  constructor(message: string) {
    super(message, { code: 'timeout' });
  }
}

/** The error class for a status; statuses without their own class get the base (4xx) or InternalServerError (5xx). */
function classFor(status: number): new (init: ApiErrorInit) => MemoryApiError {
  switch (status) {
    case 400:
      return BadRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return PermissionDeniedError;
    case 404:
      return NotFoundError;
    case 409:
      return ConflictError;
    case 413:
      return PayloadTooLargeError;
    case 422:
      return UnprocessableEntityError;
    case 429:
      return RateLimitError;
    case 503:
      return ServiceUnavailableError;
    default:
      return status >= 500 ? InternalServerError : MemoryApiError;
  }
}

/** A code for an answer that carried none (a proxy's HTML page): the contract's code for that status, if any. */
function codeForStatus(status: number): ClientErrorCode {
  const known = (Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>).find(([, s]) => s === status);
  if (known) return known[0];
  return status >= 500 ? 'server_error' : 'http_error';
}

function isDetail(value: unknown): value is ErrorDetail {
  if (typeof value !== 'object' || value === null) return false;
  const { path, message } = value as Record<string, unknown>;
  return typeof path === 'string' && typeof message === 'string';
}

/** The contract's `{error: {code, message, details?}}`, read leniently: anything else yields undefined. */
function readErrorBody(text: string): { code: string; message: string; details: ErrorDetail[] } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const error = (parsed as Record<string, unknown>).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, details } = error as Record<string, unknown>;
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return { code, message, details: Array.isArray(details) ? details.filter(isDetail) : [] };
}

/**
 * The error for a non-2xx answer. A body that is not the contract's error JSON (a proxy's HTML 502, an empty 503)
 * still gives the right class and a message naming the status and the start of the body.
 */
export function apiErrorFromResponse(
  status: number,
  statusText: string,
  headers: Headers,
  bodyText: string,
  what: string,
): MemoryApiError {
  const Class = classFor(status);
  const body = readErrorBody(bodyText);
  if (body) return new Class({ status, code: body.code, message: body.message, details: body.details, headers });
  const snippet = bodyText.trim().replace(/\s+/g, ' ').slice(0, 200);
  const message =
    `${what} failed with HTTP ${status}${statusText ? ` ${statusText}` : ''}` +
    (snippet ? ` and a body that is not the API's error JSON: "${snippet}"` : ' and an empty body') +
    '.';
  return new Class({ status, code: codeForStatus(status), message, headers });
}
