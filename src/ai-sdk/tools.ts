/**
 * `memoryTools(...)`: the memory tools for the Vercel AI SDK (`generateText({ tools })`), one user's (and app's)
 * memories over a `MemoryClient`. Same names, descriptions and argument schemas as the MCP tools (core/tool-texts.ts,
 * core/tool-schemas.ts), without `userId`/`appId`: the program fixes the scope, the model cannot name another user.
 */
import { tool, type Tool } from 'ai';
import { z } from 'zod';
import {
  listFields,
  oneExpiry,
  orderedWindow,
  recallFields,
  storeFields,
  type DeleteResult,
  type ListResult,
  type MemoryView,
  type RecallInput,
  type RecallItem,
  type StoreResult,
} from '../core/schemas.js';
import { forgetMemoryInput, recallFormatField, updateMemoryInput } from '../core/tool-schemas.js';
import { NOTHING_RECALLED, TOOL_TEXTS } from '../core/tool-texts.js';
import { asToolResult, inScope, type MemoryBackend, type MemoryScope, type ToolErrorResult } from './scope.js';

export interface MemoryToolsOptions extends MemoryScope {
  client: MemoryBackend;
}

// The API's own fields, less the scope (fixed by the program) and what a model has no use for (explain, a
// backdated createdAt). Strict: a model that adds `userId` is refused, not silently scoped to the configured user.
const { userId: _su, appId: _sa, createdAt: _sc, ...storeArgs } = storeFields;
const { userId: _ru, appId: _ra, explain: _re, ...recallArgs } = recallFields;
const { userId: _lu, appId: _la, ...listArgs } = listFields;

const storeInput = z.strictObject(storeArgs).superRefine(oneExpiry);
const recallInput = z.strictObject({ ...recallArgs, format: recallFormatField }).superRefine(orderedWindow);
const listInput = z.strictObject(listArgs).superRefine(orderedWindow);

type Result<T> = T | ToolErrorResult;

/**
 * The tool set's type, spelled out with `ai`'s own `Tool` so that the published declarations name only `ai` (an
 * inferred type would name `@ai-sdk/provider-utils`, which a strict package manager does not let the program see).
 */
// A type alias, not an interface: `generateText({ tools })` takes a ToolSet, an index signature interfaces lack.
export type MemoryTools = {
  recall_memories: Tool<z.output<typeof recallInput>, Result<{ context: string } | { memories: RecallItem[] }>>;
  store_memory: Tool<z.output<typeof storeInput>, Result<StoreResult>>;
  list_memories: Tool<z.output<typeof listInput>, Result<ListResult>>;
  update_memory: Tool<z.output<typeof updateMemoryInput>, Result<MemoryView>>;
  forget_memory: Tool<z.output<typeof forgetMemoryInput>, Result<DeleteResult>>;
};

/** `appId` only when the scope names one, so the client's own default still applies otherwise. */
function scoped<T extends object>(scope: MemoryScope, input: T): T & { userId: string; appId?: string } {
  return { ...input, userId: scope.userId, ...(scope.appId === undefined ? {} : { appId: scope.appId }) };
}

/**
 * The tools, keyed by the names the model sees: `recall_memories`, `store_memory`, `list_memories`,
 * `update_memory`, `forget_memory`. Every failure (a bad argument, an unknown id, the server out of reach) comes
 * back as `{ error: { code, message } }` for the model to read; no tool throws.
 */
export function memoryTools(options: MemoryToolsOptions): MemoryTools {
  const { client } = options;
  const scope: MemoryScope = { userId: options.userId, appId: options.appId };
  return {
    recall_memories: tool({
      description: TOOL_TEXTS.recall_memories.description,
      inputSchema: recallInput,
      execute: ({ format, ...args }) =>
        asToolResult(async () => {
          const input: RecallInput = scoped(scope, args);
          if (format === 'raw') return { memories: await client.recallRaw(input) };
          return { context: (await client.recall(input)) || NOTHING_RECALLED };
        }),
    }),
    store_memory: tool({
      description: TOOL_TEXTS.store_memory.description,
      inputSchema: storeInput,
      execute: (args) => asToolResult(() => client.store(scoped(scope, args))),
    }),
    list_memories: tool({
      description: TOOL_TEXTS.list_memories.description,
      inputSchema: listInput,
      execute: (args) => asToolResult(() => client.list(scoped(scope, args))),
    }),
    update_memory: tool({
      description: TOOL_TEXTS.update_memory.description,
      inputSchema: updateMemoryInput,
      execute: ({ id, ...patch }) =>
        asToolResult(async () => {
          if (!(await inScope(client, scope, id))) {
            return { error: { code: 'not_found', message: `No memory ${id} of this user: find ids with recall_memories (format "raw").` } };
          }
          return client.update(id, patch);
        }),
    }),
    forget_memory: tool({
      description: TOOL_TEXTS.forget_memory.description,
      inputSchema: forgetMemoryInput,
      execute: ({ id, ids }) =>
        asToolResult(async () => {
          const wanted = ids ?? (id === undefined ? [] : [id]);
          const checks = await Promise.all(wanted.map((one) => inScope(client, scope, one)));
          const mine = wanted.filter((_, i) => checks[i]);
          // Ids of other users count as unknown: deleted says how many of this user's memories went.
          if (mine.length === 0) return { deleted: 0 };
          return mine.length === 1 && mine[0] !== undefined ? client.forget(mine[0]) : client.forgetMany(mine);
        }),
    }),
  };
}
