import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { callTool, listedTools, type MemoryTool, type ToolContext } from './tools.js';

/** What the SDK checks arguments against: anything that is an object. The real check is ours (callTool). */
const ANY_ARGUMENTS = z.looseObject({});

/**
 * Registers the tool table on a v1 SDK server (the 2025 revisions). The SDK is given a schema that accepts any
 * object, so that our handler validates (callTool): a bad argument is then the contract's `validation_error`, where
 * the SDK answered with its own `-32602` text. `tools/list` is therefore served here, declaring each tool's real
 * schemas (listedTools, the same list the 2026-07-28 server serves).
 */
export function registerV1Tools(server: McpServer, tools: readonly MemoryTool[], context: ToolContext): void {
  for (const entry of tools) {
    server.registerTool(
      entry.name,
      { title: entry.title, description: entry.description, inputSchema: ANY_ARGUMENTS, outputSchema: entry.outputSchema, annotations: entry.annotations },
      (raw: Record<string, unknown>) => callTool(entry, raw, context),
    );
  }
  const listed = listedTools(tools);
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
}
