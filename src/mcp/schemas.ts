/**
 * The tools' input and output schemas, built from the core's field shapes so that a limit or a message is defined
 * once. Only what MCP changes is added here: `userId` becomes optional (the server's configured user fills it in),
 * recall gets `format` (core/tool-schemas.ts, with update and forget by id, which the AI SDK tools share).
 */
import { z } from 'zod';
import {
  deleteResultSchema,
  keyRefFields,
  listFields,
  listResultSchema,
  memoryRefSchema,
  memorySchema,
  oneExpiry,
  orderedWindow,
  recallFields,
  recallResultSchema,
  storeFields,
  storeResultSchema,
} from '../core/schemas.js';
import { exactlyOne, forgetByIdFields, recallFormatField } from '../core/tool-schemas.js';

const optionalUserId = storeFields.userId
  .optional()
  .describe('Whose memories these are: your identifier for the end user. Omit it to use the user this server is configured for.');

const storeAppId = storeFields.appId.describe(
  'Application the memory belongs to: an app slug (created on first store) or an app UUID. Omit it to use the ' +
    'app this server is configured for, else the API key\'s app, else "default".',
);

const readAppId = listFields.appId.describe(
  'Only this application (slug or UUID). Omit it to use the app this server is configured for, else every app ' +
    'you can see.',
);

// Strict objects: a misspelt field (`user_id`) must be refused, not ignored while the default user is used instead.
export const storeMemoryInput = z
  .strictObject({
    ...storeFields,
    userId: optionalUserId,
    appId: storeAppId,
  })
  .superRefine(oneExpiry);

export { RECALL_FORMATS, type RecallFormat } from '../core/tool-schemas.js';

export const recallMemoriesInput = z.strictObject({
  ...recallFields,
  userId: optionalUserId,
  appId: readAppId,
  format: recallFormatField,
}).superRefine(orderedWindow);

export const listMemoriesInput = z
  .strictObject({
    ...listFields,
    userId: optionalUserId,
    appId: readAppId,
  })
  .superRefine(orderedWindow);

/** A memory named by the caller's key: the key, with the user and app it lives in (the server's defaults apply). */
const byKeyFields = {
  key: keyRefFields.key.optional().describe('Instead of an id: the key the memory was stored under (store_memory with key).'),
  userId: optionalUserId.describe('With key: whose key it is. Omit it to use the user this server is configured for.'),
  appId: keyRefFields.appId.describe(
    'With key: the app the key is in. Omit it to use the app this server is configured for, else the API key\u2019s app, else "default".',
  ),
};

/** userId and appId only say where a key lives: next to an id they would be ignored, so they are refused. */
function scopeOnlyWithKey(value: { key?: unknown; userId?: unknown; appId?: unknown }, ctx: z.core.$RefinementCtx): void {
  if (value.key !== undefined) return;
  for (const field of ['userId', 'appId'] as const) {
    if (value[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: `${field} goes with key only: an id names one memory.` });
  }
}

export const getMemoryInput = z
  .strictObject({
    id: memoryRefSchema.optional().describe('The memory\u2019s id ("mem_..." or its UUID).'),
    ...byKeyFields,
  })
  .superRefine(exactlyOne(['id', 'key'], 'Pass either id or key.'))
  .superRefine(scopeOnlyWithKey);

export { updateMemoryInput } from '../core/tool-schemas.js';

/** Forget by id or ids (as every tool surface), or, over MCP, by the key a memory was stored under. */
export const forgetMemoryInput = z
  .strictObject({ ...forgetByIdFields, ...byKeyFields })
  .superRefine(exactlyOne(['id', 'ids', 'key'], 'Pass one of id (one memory), ids (several memories) or key (the memory stored under it).'))
  .superRefine(scopeOnlyWithKey);

export type ForgetMemoryArgs = z.output<typeof forgetMemoryInput>;

export type StoreMemoryArgs = z.output<typeof storeMemoryInput>;
export type RecallMemoriesArgs = z.output<typeof recallMemoriesInput>;
export type ListMemoriesArgs = z.output<typeof listMemoriesInput>;

export const storeMemoryOutput = storeResultSchema;
export const recallMemoriesOutput = recallResultSchema;
export const listMemoriesOutput = listResultSchema;
export const forgetMemoryOutput = deleteResultSchema;
export const getMemoryOutput = memorySchema;
export const updateMemoryOutput = memorySchema;
