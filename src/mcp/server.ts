import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { MemoryService } from '../core/service.js';
import type { Caller } from '../core/types.js';
import { registerMemoryTools, type ToolDefaults } from './tools.js';
import type { ToolCallListener } from './validated-tools.js';

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

/**
 * Builds one MCP server over the memory service. A factory with no side effects: stdio builds one per process,
 * HTTP one per session, tests one per client.
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'agent-memory', version: options.version ?? '0.0.0' },
    // The element bound caps the work of validating one call; real calls stay far below it (1,000 ids at most).
    { instructions: INSTRUCTIONS, maxToolInputElements: 10_000 },
  );
  registerMemoryTools(server, {
    service: options.service,
    caller: options.caller,
    defaults: options.defaults ?? {},
    logger: options.logger ?? silentLogger,
    onToolCall: options.onToolCall,
  });
  return server;
}
