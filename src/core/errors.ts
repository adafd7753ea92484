/**
 * The one error type of the domain. Every failure that a client may see is a MemoryError with a code from the
 * contract; REST maps the code to a status, MCP puts it in an `isError` tool result, the client library rebuilds it.
 */

export const ERROR_STATUS = {
  invalid_json: 400,
  auth_error: 401,
  forbidden: 403,
  not_found: 404,
  idempotency_conflict: 409,
  /** An update would give a memory the text of another live memory of the same user and app. */
  duplicate_memory: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  rate_limit: 429,
  server_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** One field problem of a validation error: `path` is dotted (`metadata.tags.0`), empty for the whole input. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** The wire shape of every error body, on every route. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

export class MemoryError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** Seconds a client should wait before retrying (rate_limit, unavailable). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MemoryError';
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details && this.details.length > 0 ? { details: this.details } : {}),
      },
    };
  }
}

export function isMemoryError(value: unknown): value is MemoryError {
  return value instanceof MemoryError;
}

/** Anything that is not a MemoryError becomes a server_error whose message says nothing internal. */
export function toMemoryError(value: unknown): MemoryError {
  if (value instanceof MemoryError) return value;
  return new MemoryError('server_error', 'The server failed to handle this request.', { cause: value });
}
