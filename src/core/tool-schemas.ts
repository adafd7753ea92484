/**
 * Inputs that the model-facing tools share, whichever protocol carries them (MCP, AI SDK): the recall tool's
 * `format`, and update and forget by id. Built from the API's own field shapes, so a limit or a message is
 * defined once.
 */
import { z } from 'zod';
import { forgetManyInputSchema, memoryRefSchema, someUpdate, updateFields } from './schemas.js';

/**
 * A refinement for inputs that take exactly one of several fields (forget by id, ids or key): none given says what to
 * pass; several given says just that ("Give id or ids, not both."), and parseInput puts this whole-request problem
 * ahead of whatever is wrong inside the fields, so one sentence says what to fix.
 */
export function exactlyOne<K extends string>(fields: readonly K[], whenNone: string) {
  return (value: Partial<Record<K, unknown>>, ctx: z.core.$RefinementCtx): void => {
    const given = fields.filter((field) => value[field] !== undefined);
    if (given.length === 1) return;
    const message =
      given.length === 0 ? whenNone : given.length === 2 ? `Give ${given[0]} or ${given[1]}, not both.` : `Give only one of ${given.join(', ')}.`;
    ctx.addIssue({ code: 'custom', message, path: [] });
  };
}

export const RECALL_FORMATS = ['context', 'raw'] as const;
export type RecallFormat = (typeof RECALL_FORMATS)[number];

export const recallFormatField = z
  .enum(RECALL_FORMATS, { error: 'format must be "context" or "raw".' })
  .default('context')
  .describe(
    '"context" (default): the matching memories as lines "- [YYYY-MM-DD] <text>" (the date it was last stated). ' +
      '"raw": the items with id, score, createdAt, updatedAt and metadata.',
  );

export const updateMemoryInput = z
  .strictObject({
    id: memoryRefSchema.describe('The memory to change ("mem_..." or its UUID), as recall_memories (format "raw") or list_memories show it.'),
    ...updateFields,
  })
  .superRefine((value, ctx) => someUpdate(value, ctx));

/** Forget by id: one (`id`) or several (`ids`). MCP adds forgetting by key (mcp/schemas.ts). */
export const forgetByIdFields = {
  id: memoryRefSchema.optional().describe('The id of one memory to delete ("mem_..." or its UUID).'),
  ids: forgetManyInputSchema.shape.ids.optional().describe('Ids of several memories to delete together (all or nothing).'),
};

export const forgetMemoryInput = z
  .strictObject(forgetByIdFields)
  .superRefine(exactlyOne(['id', 'ids'], 'Pass either id (one memory) or ids (several memories).'));

export type ForgetMemoryArgs = z.output<typeof forgetMemoryInput>;
