/**
 * The memory tools: what a model reads to decide when to call them, their schemas and annotations, and
 * handlers that only translate between tool arguments and MemoryService calls.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MemoryError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { MemoryService } from '../core/service.js';
import type { Caller } from '../core/types.js';
import { toolError } from './errors.js';
import { ValidatedTools, type ToolCallListener } from './validated-tools.js';
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

export function registerMemoryTools(server: McpServer, context: ToolContext): void {
  const { service, caller, defaults, logger } = context;
  // Handlers never throw: every failure, a bad argument included, becomes an `isError` result.
  const tools = new ValidatedTools(server, (error) => toolError(error, logger), context.onToolCall);

  tools.register(
    'store_memory',
    {
      title: 'Store a memory',
      description:
        'Save one durable fact about the user so that it can be recalled in later conversations. Call it after ' +
        'learning something likely to matter again: a preference, a personal detail, a relationship, a plan or ' +
        'decision, or a correction of something stored before. Store one self-contained fact per call, written ' +
        'to make sense on its own months later: in the third person or with names instead of "I"/"you", pronouns ' +
        'and relative dates resolved ("Alice\'s daughter Mia starts school in September 2026", not "she starts ' +
        'next month"). Do not store small talk, one-off requests, or secrets such as passwords. A fact that only ' +
        'holds for a while can carry expiresAt or ttlSeconds. Returns the new memory\'s id; if the same text is ' +
        'already stored for this user and app, nothing is added and duplicate is true (use update_memory to change it).',
      inputSchema: storeMemoryInput,
      outputSchema: storeMemoryOutput,
      // Adds a new memory each call: neither read-only, nor destructive, nor idempotent.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const { result } = await service.store(caller, scoped(args, defaults, caller));
      return structured(result);
    },
  );

  tools.register(
    'recall_memories',
    {
      title: 'Recall memories',
      description:
        "Search the user's memories by meaning. Call it BEFORE answering anything that may depend on the user's " +
        'history: their preferences, people, plans, past decisions, or something they told you in an earlier ' +
        'conversation. Phrase the query as the question you need answered. By default it returns the relevant ' +
        'memories as lines "- [YYYY-MM-DD] <text>", dated when each was last stated: when two disagree, trust the ' +
        'newer. Format "raw" returns the items with their ids and scores (use it to find ids before ' +
        'update_memory or forget_memory). metadata, since and until narrow the search. Nothing relevant is a ' +
        'normal answer; lower minScore (e.g. 0.4) to cast a wider net.',
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
            result.context || 'No memories matched this query.';
      return structured(result, text);
    },
  );

  tools.register(
    'list_memories',
    {
      title: 'List memories',
      description:
        "List the user's stored memories, newest first, one page at a time (total tells how many there are). Use " +
        'it to review everything stored, e.g. when the user asks what you remember about them, or to find ids to ' +
        'forget. To answer a question, prefer recall_memories.',
      inputSchema: listMemoriesInput,
      outputSchema: listMemoriesOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => structured(await service.list(caller, scoped(args, defaults, caller))),
  );

  tools.register(
    'get_memory',
    {
      title: 'Read a memory',
      description:
        'Read one memory by id, whole: its text, metadata, and when it was created, last updated and expires. Use ' +
        'it to check a memory before updating or forgetting it; an unknown or expired id is not_found.',
      inputSchema: getMemoryInput,
      outputSchema: getMemoryOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ id }) => structured(await service.get(caller, id)),
  );

  tools.register(
    'update_memory',
    {
      title: 'Update a memory',
      description:
        'Correct or refresh one stored memory in place, keeping its id and creation time: a new text (replaces ' +
        'the old one, e.g. when a fact changed: "Maria moved to Lisbon" over "Maria lives in Seattle"), new ' +
        'metadata (replaces it whole), or a new expiry (expiresAt, null to keep it for good, or ttlSeconds). Find ' +
        'the id with recall_memories (format "raw") or list_memories. Returns the memory as it now is.',
      inputSchema: updateMemoryInput,
      outputSchema: updateMemoryOutput,
      // Overwrites the previous text or metadata (destructive); the same update twice leaves the same memory
      // (idempotent, but for updatedAt and a ttlSeconds counted from each call).
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ id, ...patch }) => structured(await service.update(caller, id, patch)),
  );

  tools.register(
    'forget_memory',
    {
      title: 'Forget memories',
      description:
        'Permanently delete memories by id. Call it when the user asks you to forget something, or when a stored ' +
        'fact turned out wrong or outdated (then store the corrected fact). Find ids with recall_memories ' +
        '(format "raw") or list_memories. Pass id for one memory or ids for several. An id that is unknown or ' +
        'already deleted is not an error: deleted counts the memories actually removed.',
      inputSchema: forgetMemoryInput,
      outputSchema: forgetMemoryOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ id, ids }) => {
      const result = ids === undefined ? await service.forget(caller, id) : await service.forgetMany(caller, { ids });
      return structured(result);
    },
  );
}
