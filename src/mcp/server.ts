import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ProtocolErrorCode, Server as ModernServer, type CallToolResult as ModernResult, type Tool as ModernTool } from '@modelcontextprotocol/server';
import { silentLogger, type Logger } from '../core/logger.js';
import type { MemoryService } from '../core/service.js';
import type { Caller } from '../core/types.js';
import { callTool, listedTools, MAX_TOOL_INPUT_ELEMENTS, memoryTools, type ToolCallListener, type ToolContext, type ToolDefaults } from './tools.js';
import { registerV1Tools } from './validated-tools.js';

export interface McpServerOptions {
  service: MemoryService;
  /** Every tool call acts as this caller: LOCAL_CALLER over stdio, the session's API key over HTTP. */
  caller: Caller;
  /** Fill in `userId` / `appId` when a call leaves them out. */
  defaults?: ToolDefaults;
  /** Where unexpected tool failures are logged (stderr in the CLI); never stdout. */
  logger?: Logger;
  /** Reported to clients in `serverInfo`. */
  version?: string;
  /** Told of every tool call and its outcome (metrics). */
  onToolCall?: ToolCallListener | undefined;
}

const INSTRUCTIONS =
  'Long-term memory about the user. Call recall_memories before answering anything that may depend on what the ' +
  'user told you before; call store_memory when you learn a durable fact (one self-contained fact per call); ' +
  'call forget_memory when the user asks you to forget something.';

function toolContext(options: McpServerOptions): ToolContext {
  return {
    service: options.service,
    caller: options.caller,
    defaults: options.defaults ?? {},
    logger: options.logger ?? silentLogger,
    onToolCall: options.onToolCall,
  };
}

const serverInfo = (options: McpServerOptions) => ({ name: 'agent-memory', version: options.version ?? '0.0.0' });

/**
 * Builds one MCP server for the 2025 revisions (the v1 SDK) over the memory service. A factory with no side
 * effects: stdio builds one per process, HTTP one per session, tests one per client.
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer(serverInfo(options), { instructions: INSTRUCTIONS, maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS });
  const context = toolContext(options);
  registerV1Tools(server, memoryTools(context), context);
  return server;
}

/**
 * Builds one MCP server for the stateless revision 2026-07-28 (the v2 SDK's low-level server): the same tool table,
 * listing and call path as createMcpServer, so that both revisions answer a call with the same result. The SDK's
 * serving entries (createMcpHandler over HTTP, serveStdio) build one per request or connection.
 */
export function createModernMcpServer(options: McpServerOptions): ModernServer {
  const server = new ModernServer(serverInfo(options), { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const context = toolContext(options);
  const tools = memoryTools(context);
  // The same JSON on both revisions; the v2 types only spell JSON Schema values more narrowly.
  const listed = listedTools(tools) as ModernTool[];
  server.setRequestHandler('tools/list', () => ({ tools: listed }));
  server.setRequestHandler('tools/call', async (request) => {
    const entry = tools.find((candidate) => candidate.name === request.params.name);
    // The v1 SDK's answer to an unknown tool, word for word: a tool error result, not a JSON-RPC error.
    if (!entry) {
      const text = `MCP error ${ProtocolErrorCode.InvalidParams}: Tool ${request.params.name} not found`;
      return { isError: true, content: [{ type: 'text', text }] };
    }
    return (await callTool(entry, request.params.arguments, context)) as ModernResult;
  });
  return server;
}
