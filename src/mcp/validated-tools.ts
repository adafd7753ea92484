import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { ListToolsRequestSchema, type CallToolResult, type Tool, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { toMemoryError } from '../core/errors.js';
import { parseInput } from '../core/validation.js';

/** Told of every tool call: the tool's name and its outcome, `ok` or the contract error code it failed with. */
export type ToolCallListener = (tool: string, outcome: string) => void;

/** What the SDK checks arguments against: anything that is an object. The real check is ours (see below). */
const ANY_ARGUMENTS = z.looseObject({});

export interface ToolConfig<I extends z.ZodType, O extends z.ZodObject> {
  title: string;
  description: string;
  inputSchema: I;
  outputSchema: O;
  annotations: ToolAnnotations;
}

/**
 * Registers tools whose arguments are validated by our handler with the core's `parseInput`, as REST validates a
 * body, instead of by the SDK: a bad argument is then the contract's `validation_error` (code, message, details),
 * the same answer REST gives for the same mistake, where the SDK answered with its own `-32602` text. The SDK is
 * given a schema that accepts any object, so `tools/list` is served here, declaring each tool's real input schema
 * converted exactly as the SDK converts it.
 */
export class ValidatedTools {
  readonly #server: McpServer;
  readonly #fail: (error: unknown) => CallToolResult;
  readonly #onCall: ToolCallListener | undefined;
  readonly #tools: Array<{ name: string; tool: RegisteredTool; inputSchema: z.ZodType; outputSchema: z.ZodObject }> = [];

  /** `fail` turns any failure (a validation error included) into the tool's error result. */
  constructor(server: McpServer, fail: (error: unknown) => CallToolResult, onCall?: ToolCallListener) {
    this.#server = server;
    this.#fail = fail;
    this.#onCall = onCall;
  }

  register<I extends z.ZodType, O extends z.ZodObject>(
    name: string,
    config: ToolConfig<I, O>,
    handler: (args: z.output<I>) => Promise<CallToolResult>,
  ): void {
    const tool = this.#server.registerTool(
      name,
      { title: config.title, description: config.description, inputSchema: ANY_ARGUMENTS, outputSchema: config.outputSchema, annotations: config.annotations },
      async (raw: Record<string, unknown>) => {
        try {
          const result = await handler(parseInput(config.inputSchema, raw));
          this.#onCall?.(name, 'ok');
          return result;
        } catch (error) {
          this.#onCall?.(name, toMemoryError(error).code);
          return this.#fail(error);
        }
      },
    );
    this.#tools.push({ name, tool, inputSchema: config.inputSchema, outputSchema: config.outputSchema });
    this.#listRealSchemas();
  }

  /** Replaces the SDK's tools/list (it would list the permissive schema) with the same list and the real schemas. */
  #listRealSchemas(): void {
    this.#server.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.#tools
        .filter(({ tool }) => tool.enabled)
        .map(
          ({ name, tool, inputSchema, outputSchema }): Tool => ({
            name,
            ...(tool.title === undefined ? {} : { title: tool.title }),
            ...(tool.description === undefined ? {} : { description: tool.description }),
            inputSchema: toJsonSchemaCompat(inputSchema, { strictUnions: true, pipeStrategy: 'input' }) as Tool['inputSchema'],
            outputSchema: toJsonSchemaCompat(outputSchema, { strictUnions: true, pipeStrategy: 'output' }) as Tool['outputSchema'],
            ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
            ...(tool._meta === undefined ? {} : { _meta: tool._meta }),
          }),
        ),
    }));
  }
}
