import type { Request } from 'express';

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Query strings carry text; the contract's schemas expect numbers for page, pageSize, limit and minScore. Only a
 * well-formed number is converted, so "abc", "" or a repeated parameter (an array) still fail validation with the
 * field's own message instead of being coerced or silently clamped.
 */
export function queryInput(req: Request, numericFields: readonly string[], booleanFields: readonly string[] = []): Record<string, unknown> {
  const input: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
  for (const field of numericFields) {
    const value = input[field];
    if (typeof value === 'string' && NUMERIC.test(value)) input[field] = Number(value);
  }
  // Only the words true and false: "1", "yes" or "" still fail with the field's own message.
  for (const field of booleanFields) {
    const value = input[field];
    if (value === 'true' || value === 'false') input[field] = value === 'true';
  }
  // The metadata filter travels as JSON (`metadata={"topic":"music"}`), which keeps its values' types. Text that
  // is not JSON stays text, and the schema refuses it with the field's own message.
  const metadata = input.metadata;
  if (typeof metadata === 'string') {
    try {
      input.metadata = JSON.parse(metadata) as unknown;
    } catch {
      // left as the string
    }
  }
  return input;
}
