/**
 * The server entry (`agent-memory/server`): the implementations and the wiring, for a program that serves memories
 * itself. Importing it loads the database drivers, express and the MCP SDK; models still load only when chosen.
 */
export { SqliteStore } from './storage/sqlite/sqlite-store.js';
export { openPgStore, PgStore } from './storage/postgres/index.js';
export { createEmbedder, DEFAULT_EMBEDDING_MODEL, type CreateEmbedderOptions } from './embeddings/index.js';
export { HashingEmbedder, HASH_MODEL } from './embeddings/hashing.js';
export { createApp, type AppDeps, type CallerHandler } from './rest/app.js';
export { createMcpServer, createModernMcpServer, createMcpHttpHandler, serveStdio } from './mcp/index.js';
export { startServer, type RunningServer, type ServeOptions } from './runtime/serve.js';
export { openRuntime, type Runtime } from './runtime/runtime.js';
