/** The library entry: the core service and its parts, for embedding agent-memory in another Node program. */
export { MemoryService } from './core/service.js';
export type { HealthReport, StoreOutcome } from './core/service.js';
export { MemoryError, ERROR_STATUS } from './core/errors.js';
export type { ErrorCode, ErrorBody, ErrorDetail } from './core/errors.js';
export * from './core/schemas.js';
export { LIMITS } from './core/limits.js';
export type { Caller, MemoryRecord, App, ApiKeyRecord } from './core/types.js';
export { LOCAL_CALLER } from './core/types.js';
export type { MemoryStore } from './core/store.js';
export { SqliteStore } from './storage/sqlite/sqlite-store.js';
export { createApp } from './rest/app.js';
export { startServer } from './cli/commands/serve.js';
export { openRuntime } from './cli/runtime.js';
