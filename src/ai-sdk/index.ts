/**
 * `agent-memory/ai-sdk`: memory for agents built with the Vercel AI SDK (`ai` 6 or 7, an optional peer
 * dependency): `memoryTools` for the model to recall, store, update and forget, and `memoryMiddleware` to recall
 * before every call of any model. Over a `MemoryClient` (agent-memory/client), or an in-process `MemoryService`
 * through `serviceBackend`; only this entry loads `ai`.
 */
export { memoryTools, type MemoryTools, type MemoryToolsOptions } from './tools.js';
export { DEFAULT_RECALL_TIMEOUT_MS, keptText, memoryMiddleware, type MemoryKeep, type MemoryLogger, type MemoryMiddlewareOptions } from './middleware.js';
export { statementsOf } from '../core/text/statements.js';
export type { MemoryBackend, MemoryScope, ToolErrorResult } from './scope.js';
export { serviceBackend } from './service.js';
