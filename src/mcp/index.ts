/** The MCP adapter: one server factory over the memory service, served over stdio and streamable HTTP. */
export { createMcpServer, type McpServerOptions } from './server.js';
export { serveStdio, type StdioOptions, type StdioSession } from './stdio.js';
export { createMcpHttpHandler, type McpHttpHandler, type McpHttpOptions } from './http.js';
export { loopbackHostnames } from './host-guard.js';
export { ERROR_META_KEY } from './errors.js';
export type { ToolDefaults } from './tools.js';
