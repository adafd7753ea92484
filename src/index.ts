/**
 * The library entry (`agent-memory`): the core service, the interfaces it is built from (the store, the embedder)
 * and the types and schemas of the API, for embedding agent-memory in another Node program. Importing it loads no
 * database driver, no HTTP framework and no model (test/entry-points.test.ts checks it); the implementations and
 * the wiring are in `agent-memory/server`, the HTTP client in `agent-memory/client`.
 */
export { MemoryService } from './core/service.js';
export type { HealthReport, StoreOutcome } from './core/service.js';
export { MemoryError, ERROR_STATUS } from './core/errors.js';
export type { ErrorCode, ErrorBody, ErrorDetail } from './core/errors.js';
export * from './core/schemas.js';
export { LIMITS } from './core/limits.js';
export type { Caller, MemoryRecord, App, ApiKeyRecord } from './core/types.js';
export { LOCAL_CALLER } from './core/types.js';
export type { MemoryStore, AppStore, MemoryRecordStore, IdempotencyStore, KeyStore, ModelStore, StoreConnection } from './core/store.js';
export type { Embedder, EmbedderInfo, EmbedKind } from './core/embedder.js';
