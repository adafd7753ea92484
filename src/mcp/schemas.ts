/**
 * The tools' input and output schemas, built from the core's field shapes so that a limit or a message is defined
 * once. Only what MCP changes is added here: `userId` becomes optional (the server's configured user fills it in),
 * recall gets `format`, and forget takes `id` or `ids`.
 */
import { z } from 'zod';
import {
  deleteResultSchema,
  forgetManyInputSchema,
  listFields,
  listResultSchema,
  memoryRefSchema,
  memorySchema,
  oneExpiry,
  orderedWindow,
  recallFields,
  recallResultSchema,
  someUpdate,
  storeFields,
  storeResultSchema,
  updateFields,
} from '../core/schemas.js';

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

export const RECALL_FORMATS = ['context', 'raw'] as const;
export type RecallFormat = (typeof RECALL_FORMATS)[number];

export const recallMemoriesInput = z.strictObject({
  ...recallFields,
  userId: optionalUserId,
  appId: readAppId,
  format: z
    .enum(RECALL_FORMATS, { error: 'format must be "context" or "raw".' })
    .default('context')
    .describe(
      '"context" (default): the matching memories as lines "- [YYYY-MM-DD] <text>" (the date it was last stated). ' +
        '"raw": the items with id, score, createdAt, updatedAt and metadata.',
    ),
}).superRefine(orderedWindow);

export const listMemoriesInput = z
  .strictObject({
    ...listFields,
    userId: optionalUserId,
    appId: readAppId,
  })
  .superRefine(orderedWindow);

export const getMemoryInput = z.strictObject({ id: memoryRefSchema.describe('The memory\u2019s id ("mem_..." or its UUID).') });

export const updateMemoryInput = z
  .strictObject({
    id: memoryRefSchema.describe('The memory to change ("mem_..." or its UUID), as recall_memories (format "raw") or list_memories show it.'),
    ...updateFields,
  })
  .superRefine((value, ctx) => someUpdate(value, ctx));

export const forgetMemoryInput = z
  .strictObject({
    id: memoryRefSchema.optional().describe('The id of one memory to delete ("mem_..." or its UUID).'),
    ids: forgetManyInputSchema.shape.ids.optional().describe('Ids of several memories to delete together (all or nothing).'),
  })
  .refine((v) => (v.id === undefined) !== (v.ids === undefined), {
    message: 'Pass either id (one memory) or ids (several memories), not both and not neither.',
  });

export type StoreMemoryArgs = z.output<typeof storeMemoryInput>;
export type RecallMemoriesArgs = z.output<typeof recallMemoriesInput>;
export type ListMemoriesArgs = z.output<typeof listMemoriesInput>;
export type ForgetMemoryArgs = z.output<typeof forgetMemoryInput>;

export const storeMemoryOutput = storeResultSchema;
export const recallMemoriesOutput = recallResultSchema;
export const listMemoriesOutput = listResultSchema;
export const forgetMemoryOutput = deleteResultSchema;
export const getMemoryOutput = memorySchema;
export const updateMemoryOutput = memorySchema;
