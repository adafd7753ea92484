import type { ErrorDetail } from './errors.js';

const MAX_REPORTED = 10;

/**
 * What a parsed JSON input holds that cannot be stored exactly as it was sent, one detail per place (at most 10):
 * - a `__proto__` key: JSON.parse keeps it as an own property, but rebuilding the object (validation does) turns it
 *   into a prototype assignment and drops it, and any consumer that merges metadata into an object is exposed to
 *   prototype pollution;
 * - a number that is not finite: `1e400` parses as Infinity, which JSON turns back into `null`;
 * - an integer beyond ±(2^53 - 1): JSON.parse has already rounded `12345678901234567890`, so digits are lost
 *   (large values belong in strings). Every double of that size is an integer, so `1e20` is refused as well.
 * Walked without recursion, so that no nesting overflows the stack.
 */
export function inexactJson(input: unknown): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const stack: Array<{ value: unknown; path: string }> = [{ value: input, path: '' }];
  for (let item = stack.pop(); item !== undefined && problems.length < MAX_REPORTED; item = stack.pop()) {
    const { value, path } = item;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) {
        problems.push({ path, message: `${path || 'The input'} is a number too large to store (it is not finite).` });
      } else if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
        problems.push({
          path,
          message: `${path || 'The input'} is an integer beyond ±9007199254740991 (2^53 - 1), whose digits JSON numbers cannot keep; send it as a string.`,
        });
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((v, i) => [String(i), v])
      : Object.keys(value).map((k) => [k, (value as Record<string, unknown>)[k]]);
    for (const [key, child] of entries) {
      const childPath = path === '' ? key : `${path}.${key}`;
      if (key === '__proto__' && !Array.isArray(value)) {
        problems.push({ path: childPath, message: 'The key "__proto__" is not allowed.' });
        continue;
      }
      stack.push({ value: child, path: childPath });
    }
  }
  return problems;
}
