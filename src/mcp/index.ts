/** The MCP adapter: one tool table over the memory service, served as MCP 2025 (SDK v1) and 2026-07-28 (SDK v2) over stdio and streamable HTTP. */
export { createMcpServer, createModernMcpServer, type McpServerOptions } from './server.js';
export { serveStdio, type StdioOptions, type StdioSession } from './stdio.js';
export { createMcpHttpHandler, type McpHttpHandler, type McpHttpOptions } from './http.js';
export { loopbackHostnames } from './host-guard.js';
export { ERROR_META_KEY } from './errors.js';
export type { ToolDefaults } from './tools.js';
