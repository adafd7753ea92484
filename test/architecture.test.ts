/**
 * The folders are the architecture: core depends on nothing of ours, the backends and the embedders on core only,
 * the adapters (REST, MCP) on core and never on each other, the client and the browser console on core's schemas and errors only,
 * the framework adapters (ai-sdk, langgraph) on the client and core;
 * the wiring (runtime) puts them together, and the CLI is argument parsing and output over the wiring. Read from the
 * import statements of every source file (type-only imports included: they are dependencies of the design too).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const files = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => join('src', file));

/** The top folder under src/ of a source path: core, storage, embeddings, rest, mcp, client, ai-sdk, langgraph, console, runtime, cli. */
const layer = (path: string): string => path.split(/[\\/]/)[1] ?? '';

/** `from` → every layer it imports from, through relative specifiers (static, dynamic, re-exports). */
function edges(): Array<{ file: string; target: string }> {
  return files.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1] ?? '');
    return specifiers.map((specifier) => ({ file, target: normalize(join(dirname(file), specifier)) }));
  });
}

/** Which layers each layer may import (its own always). The entry files (src/index.ts, src/server.ts) are free. */
const ALLOWED: Record<string, string[]> = {
  core: [],
  storage: ['core'],
  embeddings: ['core'],
  rest: ['core'],
  mcp: ['core'],
  client: ['core'],
  // A framework adapter over the client: it may use the client and core, nothing of the server side.
  'ai-sdk': ['core', 'client'],
  langgraph: ['core', 'client'],
  console: ['core'],
  runtime: ['core', 'storage', 'embeddings', 'rest', 'mcp'],
  cli: ['core', 'runtime'],
};

describe('the source tree', () => {
  it('has only the known layers', () => {
    const layers = new Set(files.filter((f) => f.split(/[\\/]/).length > 2).map(layer));
    expect([...layers].sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  it('imports only downward: no adapter imports another adapter, core imports nothing of ours', () => {
    const wrong = edges()
      .filter(({ file, target }) => file.split(/[\\/]/).length > 2 && target.startsWith('src'))
      .filter(({ file, target }) => layer(target) !== layer(file) && !(ALLOWED[layer(file)] ?? []).includes(layer(target)))
      .map(({ file, target }) => `${file} -> ${target}`);
    expect(wrong).toEqual([]);
  });

  it('sees the imports it checks (the rule above is not vacuous)', () => {
    const all = edges();
    expect(all.some(({ file, target }) => file.startsWith('src/rest') && target.startsWith('src/core'))).toBe(true);
    expect(all.some(({ file, target }) => file.startsWith('src/runtime') && target.startsWith('src/mcp'))).toBe(true);
    expect(all.some(({ file, target }) => file.startsWith('src/cli') && target.startsWith('src/runtime'))).toBe(true);
    expect(all.some(({ file, target }) => file.startsWith('src/langgraph') && target.startsWith('src/client'))).toBe(true);
  });
});
