/**
 * `agent-memory/client`: a typed client for the agent-memory REST API. Only the global `fetch` and the server's
 * own zod schemas at run time.
 */
export { MemoryClient, type ForgetAllOptions, type KeyScope, type StoreOptions } from './client.js';
export { DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type FetchLike, type MemoryClientOptions } from './options.js';
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  MemoryApiError,
  MemoryClientError,
  MemoryValidationError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  UnprocessableEntityError,
  type ClientErrorCode,
} from './errors.js';
export type { ErrorCode, ErrorDetail } from '../core/errors.js';
export type {
  DeleteResult,
  ListInput,
  ListItem,
  ListResult,
  ListUsersInput,
  ListUsersResult,
  MemoryView,
  PutByKeyInput,
  RecallInput,
  RecallItem,
  StoreInput,
  StoreResult,
  UserSummary,
  UpdateInput,
} from '../core/schemas.js';
