/**
 * The tools' input and output schemas, built from the core's field shapes so that a limit or a message is defined
 * once. Only what MCP changes is added here: `userId` becomes optional (the server's configured user fills it in),
 * recall gets `format` (core/tool-schemas.ts, with update and forget by id, which the AI SDK tools share).
 */
import { z } from 'zod';
import {
  deleteResultSchema,
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
import { recallFormatField } from '../core/tool-schemas.js';

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

export const getMemoryInput = z.strictObject({ id: memoryRefSchema.describe('The memory\u2019s id ("mem_..." or its UUID).') });

export { forgetMemoryInput, updateMemoryInput, type ForgetMemoryArgs } from '../core/tool-schemas.js';

export type StoreMemoryArgs = z.output<typeof storeMemoryInput>;
export type RecallMemoriesArgs = z.output<typeof recallMemoriesInput>;
export type ListMemoriesArgs = z.output<typeof listMemoriesInput>;

export const storeMemoryOutput = storeResultSchema;
export const recallMemoriesOutput = recallResultSchema;
export const listMemoriesOutput = listResultSchema;
export const forgetMemoryOutput = deleteResultSchema;
export const getMemoryOutput = memorySchema;
export const updateMemoryOutput = memorySchema;
