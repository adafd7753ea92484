import type { z } from 'zod';
import { MemoryError, type ErrorDetail } from './errors.js';
import { inexactJson } from './exact-json.js';

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

/**
 * Parses with a contract schema; any problem is a 422 validation_error listing every field at fault. A valid input
 * that holds something storage could not keep exactly (see inexactJson) is refused the same way.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  // Only a valid input is checked for what it would lose (a number or key the schema accepted but storage would
  // change): the schema's own messages come first.
  const details = result.success ? inexactJson(input) : issuesToDetails(result.error.issues);
  if (result.success && details.length === 0) return result.data;
  // A problem with the request as a whole (give id or ids, not both) is what to fix first: it leads, and it is the
  // message, instead of "The request has 3 invalid fields: id, ids.0, (body)".
  const whole = details.findIndex((d) => d.path === '');
  if (whole > 0) details.unshift(...details.splice(whole, 1));
  const first = details[0];
  const fields = [...new Set(details.map((d) => d.path || '(body)'))];
  const named = fields.length > MAX_DETAILS ? `${fields.slice(0, MAX_DETAILS).join(', ')} and ${fields.length - MAX_DETAILS} more` : fields.join(', ');
  const message = (fields.length === 1 || whole >= 0) && first ? first.message : `The request has ${fields.length} invalid fields: ${named}.`;
  // 1,000 bad ids made a 108 KB error body: the first few problems say what is wrong, the message says how many.
  throw new MemoryError('validation_error', message, { details: details.slice(0, MAX_DETAILS) });
}

/** Field problems listed in one error; the message counts the rest. */
export const MAX_DETAILS = 20;
