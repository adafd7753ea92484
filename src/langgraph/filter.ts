/**
 * LangGraph's search filter on agent-memory's metadata filter. LangGraph documents `{ field: value }` and the
 * operators `$eq, $ne, $gt, $gte, $lt, $lte`; agent-memory filters by exact equality on top-level scalar metadata
 * (indexed on both backends), so `value` and `{ $eq: value }` map onto it, and the other operators are refused with
 * an error that says so, rather than answered by filtering one page after the fact (which would break limit and
 * offset).
 */
const SCALAR_TYPES = new Set(['string', 'number', 'boolean']);
const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte']);

export class UnsupportedFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedFilterError';
  }
}

function scalar(field: string, value: unknown): string | number | boolean | null {
  if (value === null || SCALAR_TYPES.has(typeof value)) return value as string | number | boolean | null;
  throw new UnsupportedFilterError(
    `The filter on "${field}" compares with ${Array.isArray(value) ? 'an array' : 'an object'}: agent-memory filters by equality to a string, number, boolean or null.`,
  );
}

/** The metadata filter for a LangGraph filter; undefined when it names nothing. */
export function metadataFilter(filter: Record<string, unknown> | undefined): Record<string, string | number | boolean | null> | undefined {
  if (filter === undefined) return undefined;
  const out: Record<string, string | number | boolean | null> = {};
  for (const [field, condition] of Object.entries(filter)) {
    if (field === 'text') {
      throw new UnsupportedFilterError('The filter names "text": the text is searched with query, the filter applies to the other fields (metadata).');
    }
    if (condition !== null && typeof condition === 'object' && !Array.isArray(condition)) {
      const entries = Object.entries(condition);
      const ops = entries.filter(([op]) => op.startsWith('$'));
      if (ops.length === entries.length && ops.length > 0) {
        for (const [op, operand] of ops) {
          if (op !== '$eq') {
            throw new UnsupportedFilterError(
              OPERATORS.has(op)
                ? `The filter operator ${op} (on "${field}") is not supported: agent-memory filters metadata by equality ($eq, or a plain value).`
                : `Unknown filter operator ${op} (on "${field}").`,
            );
          }
          out[field] = scalar(field, operand);
        }
        continue;
      }
    }
    out[field] = scalar(field, condition);
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
