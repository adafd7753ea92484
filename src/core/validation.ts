import type { z } from 'zod';
import { MemoryError, type ErrorDetail } from './errors.js';

/** zod issues as the contract's `details`: one entry per field problem, with a dotted path. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[]): ErrorDetail[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return { path, message: `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.` };
    }
    // Only a parse with `reportInput` says what the input was; without it, `input` is absent for every issue, and
    // reading that as "missing" told a client who sent `"page": 1e400` or `"userId": 42` that the field was required.
    if (issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined) {
      return { path, message: `${path || 'The input'} is required.` };
    }
    return { path, message: issue.message };
  });
}

/** Parses with a contract schema; any problem is a 422 validation_error listing every field at fault. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const details = issuesToDetails(result.error.issues);
  const first = details[0];
  const fields = [...new Set(details.map((d) => d.path || '(body)'))];
  const message =
    fields.length === 1 && first
      ? first.message
      : `The request has ${fields.length} invalid fields: ${fields.join(', ')}.`;
  throw new MemoryError('validation_error', message, { details });
}
