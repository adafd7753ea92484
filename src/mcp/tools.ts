/**
 * The memory tools, as ONE table that every MCP server registers from (the v1 SDK's server for the 2025 revisions,
 * the v2 SDK's for 2026-07-28): what a model reads to decide when to call them, their schemas and annotations, and
 * handlers that only translate between tool arguments and MemoryService calls. The listing (`listedTools`) and the
 * call path (`callTool`: our validation, metrics, errors) are defined here too, so both revisions answer alike.
 */
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { MemoryError, toMemoryError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { MemoryService } from '../core/service.js';
import { BY_KEY_TEXTS, NOTHING_RECALLED, TOOL_TEXTS } from '../core/tool-texts.js';
import type { Caller } from '../core/types.js';
import { toolError } from './errors.js';
import { parseInput } from '../core/validation.js';
import {
  forgetMemoryInput,
  forgetMemoryOutput,
  getMemoryInput,
  getMemoryOutput,
  listMemoriesInput,
  listMemoriesOutput,
  recallMemoriesInput,
  recallMemoriesOutput,
  storeMemoryInput,
  storeMemoryOutput,
  updateMemoryInput,
  updateMemoryOutput,
} from './schemas.js';

/** Told of every tool call: the tool's name and its outcome, `ok` or the contract error code it failed with. */
export type ToolCallListener = (tool: string, outcome: string) => void;

/** Values that stand in for `userId` and `appId` when a call leaves them out. */
export interface ToolDefaults {
  userId?: string | undefined;
  appId?: string | undefined;
}

export interface ToolContext {
  service: MemoryService;
  /** Who every call of this server acts as: the API key of an HTTP session, or LOCAL_CALLER over stdio. */
  caller: Caller;
  defaults: ToolDefaults;
  logger: Logger;
  /** Told of every tool call and its outcome (metrics). */
  onToolCall?: ToolCallListener | undefined;
}

const NO_USER_MESSAGE =
  'userId is required: pass userId, or configure a default user for this server (agent-memory mcp --user-id ID, env MEMORY_USER_ID).';

/**
 * Fills in the configured user and app; a call that still names no user is refused like any invalid input. The
 * server's default app is for callers that may choose: a key bound to an app keeps its own app (the default would
 * otherwise name another app and make every call of that key `forbidden`).
 */
function scoped<T extends { userId?: string | undefined; appId?: string | undefined }>(
  args: T,
  defaults: ToolDefaults,
  caller: Caller,
): T & { userId: string } {
  const userId = args.userId ?? defaults.userId;
  if (userId === undefined) {
    throw new MemoryError('validation_error', NO_USER_MESSAGE, { details: [{ path: 'userId', message: NO_USER_MESSAGE }] });
  }
  const appId = args.appId ?? (caller.boundApp === null ? defaults.appId : undefined);
  return { ...args, userId, ...(appId === undefined ? {} : { appId }) };
}

/** A success: the JSON as text for clients that only show text, and the same object as structured content. */
function structured(value: Record<string, unknown>, text = JSON.stringify(value)): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: value };
}

/** One tool of the table: everything a server lists, and the handler it runs once the arguments are valid. */
export interface MemoryTool {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodType;
  outputSchema: z.ZodObject;
  annotations: ToolAnnotations;
  /** Takes the arguments as `inputSchema` parsed them; throws a MemoryError (or anything) on failure. */
  run(args: unknown): Promise<CallToolResult>;
}

/** A table row, typed by its schemas where it is written, erased for the table. */
function tool<I extends z.ZodType, O extends z.ZodObject>(
  name: string,
  config: { title: string; description: string; inputSchema: I; outputSchema: O; annotations: ToolAnnotations },
  run: (args: z.output<I>) => Promise<CallToolResult>,
): MemoryTool {
  return { name, ...config, run: (args) => run(args as z.output<I>) };
}

/** The six memory tools, acting as `context.caller`. */
export function memoryTools(context: ToolContext): MemoryTool[] {
  const { service, caller, defaults } = context;
  return [
    tool(
      'store_memory',
      {
        ...TOOL_TEXTS.store_memory,
        inputSchema: storeMemoryInput,
        outputSchema: storeMemoryOutput,
        // Adds a new memory each call: neither read-only, nor destructive, nor idempotent.
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      async (args) => {
        const { result } = await service.store(caller, scoped(args, defaults, caller));
        return structured(result);
      },
    ),
    tool(
      'recall_memories',
      {
        ...TOOL_TEXTS.recall_memories,
        inputSchema: recallMemoriesInput,
        outputSchema: recallMemoriesOutput,
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      async ({ format, ...args }) => {
        const result = await service.recall(caller, scoped(args, defaults, caller));
        const text =
          format === 'raw'
            ? JSON.stringify(result.memories)
            : // An empty string reads as a broken tool to a model; say plainly that nothing matched.
              result.context || NOTHING_RECALLED;
        return structured(result, text);
      },
    ),
    tool(
      'list_memories',
      {
        ...TOOL_TEXTS.list_memories,
        inputSchema: listMemoriesInput,
        outputSchema: listMemoriesOutput,
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      async (args) => structured(await service.list(caller, scoped(args, defaults, caller))),
    ),
    tool(
      'get_memory',
      {
        title: TOOL_TEXTS.get_memory.title,
        description: TOOL_TEXTS.get_memory.description + BY_KEY_TEXTS.get_memory,
        inputSchema: getMemoryInput,
        outputSchema: getMemoryOutput,
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      async ({ id, ...byKey }) =>
        structured(id === undefined ? await service.getByKey(caller, scoped(byKey, defaults, caller)) : await service.get(caller, id)),
    ),
    tool(
      'update_memory',
      {
        ...TOOL_TEXTS.update_memory,
        inputSchema: updateMemoryInput,
        outputSchema: updateMemoryOutput,
        // Overwrites the previous text or metadata (destructive); the same update twice leaves the same memory
        // (idempotent, but for updatedAt and a ttlSeconds counted from each call).
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      },
      async ({ id, ...patch }) => structured(await service.update(caller, id, patch)),
    ),
    tool(
      'forget_memory',
      {
        title: TOOL_TEXTS.forget_memory.title,
        description: TOOL_TEXTS.forget_memory.description + BY_KEY_TEXTS.forget_memory,
        inputSchema: forgetMemoryInput,
        outputSchema: forgetMemoryOutput,
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      },
      async ({ id, ids, ...byKey }) => {
        if (byKey.key !== undefined) return structured(await service.forgetByKey(caller, scoped(byKey, defaults, caller)));
        const result = ids === undefined ? await service.forget(caller, id) : await service.forgetMany(caller, { ids });
        return structured(result);
      },
    ),
  ];
}

/**
 * The tools as `tools/list` declares them, on every revision: each input schema converted exactly as the v1 SDK
 * converts a registered tool's (the SDK itself is handed a permissive schema: see callTool).
 */
export function listedTools(tools: readonly MemoryTool[]): Tool[] {
  return tools.map((entry) => ({
    name: entry.name,
    title: entry.title,
    description: entry.description,
    inputSchema: toJsonSchemaCompat(entry.inputSchema, { strictUnions: true, pipeStrategy: 'input' }) as Tool['inputSchema'],
    outputSchema: toJsonSchemaCompat(entry.outputSchema, { strictUnions: true, pipeStrategy: 'output' }) as Tool['outputSchema'],
    annotations: entry.annotations,
  }));
}

/**
 * The most array items and object keys one call's arguments may hold, counted through every level: it caps the work
 * of validating one call; real calls stay far below it (1,000 ids at most). The v1 SDK is given the same bound.
 */
export const MAX_TOOL_INPUT_ELEMENTS = 10_000;

/** Array items and object keys in `value`, counting stopped once past `max`. */
function elementCount(value: unknown, max: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (++count > max) return count;
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return count;
}

/**
 * Runs one call: the arguments are validated by the core's `parseInput`, as REST validates a body, so a bad argument
 * is the contract's `validation_error` (code, message, details), the same answer REST gives for the same mistake.
 * Never throws: every failure becomes the `isError` result of `toolError`.
 */
export async function callTool(entry: MemoryTool, raw: unknown, context: ToolContext): Promise<CallToolResult> {
  if (elementCount(raw, MAX_TOOL_INPUT_ELEMENTS) > MAX_TOOL_INPUT_ELEMENTS) {
    // The v1 SDK's own answer (it checks before our handler runs), given by the 2026-07-28 server too.
    const text = `MCP error -32602: Invalid arguments for tool ${entry.name}: arguments contain more than the maximum of ${MAX_TOOL_INPUT_ELEMENTS} elements`;
    return { isError: true, content: [{ type: 'text', text }] };
  }
  try {
    const result = await entry.run(parseInput(entry.inputSchema, raw ?? {}));
    context.onToolCall?.(entry.name, 'ok');
    return result;
  } catch (error) {
    context.onToolCall?.(entry.name, toMemoryError(error).code);
    return toolError(error, context.logger);
  }
}
