/**
 * Whether a parsed JSON value nests at most `max` levels of objects and arrays (a scalar is 0, `{}` is 1). Walked
 * with a stack of its own, never by recursion, so that no input overflows the call stack: JSON.parse reads 100,000
 * levels, but JSON.stringify and any recursive walk die at a few thousand ("Maximum call stack size exceeded").
 * Check this before anything recursive sees the value.
 */
export function nestingWithin(value: unknown, max: number): boolean {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { node, depth } = item;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return false;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push({ node: child, depth: depth + 1 });
  }
  return true;
}
