/**
 * The package's entry points load what they promise and nothing more: each is imported in a fresh Node process,
 * which then lists every module file it loaded (ESM through a resolve hook, CommonJS from the require cache).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sqliteDriverFor } from '../src/storage/sqlite/driver.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The hook runs on the loader thread and reports each resolved URL over the port it is given. */
const HOOK = `let port; export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }`;

/** Every module file (ESM or CommonJS) that importing `entry` loads, as paths relative to the repository. */
async function modulesLoadedBy(entry: string): Promise<string[]> {
  const script = `
    import { register, createRequire } from 'node:module';
    import { MessageChannel } from 'node:worker_threads';
    const { port1, port2 } = new MessageChannel();
    const seen = new Set();
    port1.on('message', (url) => seen.add(url));
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}), { data: { port: port2 }, transferList: [port2] });
    await import(${JSON.stringify(new URL(entry, `file://${ROOT}`).href)});
    await new Promise((resolve) => setTimeout(resolve, 200));
    port1.close();
    for (const file of Object.keys(createRequire(import.meta.url).cache)) seen.add('file://' + file);
    process.stdout.write(JSON.stringify([...seen]));`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, timeout: 30_000 });
  return (JSON.parse(stdout) as string[])
    .filter((url) => url.startsWith('file://'))
    .map((url) => fileURLToPath(url).slice(ROOT.length));
}

/** The npm packages among `files`, without tsx and esbuild (the child runs the TypeScript sources through them). */
const packagesIn = (files: string[]): string[] =>
  [...new Set(files.flatMap((file) => /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? []))]
    .filter((name) => name !== 'tsx' && name !== 'esbuild')
    .sort();

const SERVER_SIDE = ['better-sqlite3', 'better-sqlite3-v13', 'pg', 'express', '@modelcontextprotocol/sdk', '@energetic-ai/core', '@huggingface/transformers', 'prom-client'];
/** The agent frameworks' packages (optional peers): only their own entries (agent-memory/ai-sdk, /langgraph) may load them. */
const isFramework = (name: string): boolean => name === 'ai' || /^@(ai-sdk|langchain)\//.test(name);

describe('the package entry points', () => {
  it('agent-memory (library): the service, its interfaces and schemas, with no database driver, HTTP framework or model', async () => {
    const files = await modulesLoadedBy('src/index.ts');
    expect(files).toContain('src/core/service.ts');
    expect(packagesIn(files).filter((name) => SERVER_SIDE.includes(name) || isFramework(name))).toEqual([]);
    expect(files.filter((file) => /^src\/(storage|rest|mcp|cli|embeddings|ai-sdk|langgraph)\//.test(file))).toEqual([]);
  });

  it('agent-memory/client: the client and the shared schemas, nothing of the server side', async () => {
    const files = await modulesLoadedBy('src/client/index.ts');
    expect(packagesIn(files)).toEqual(['zod']);
    expect(files.filter((file) => file.startsWith('src/') && !/^src\/(client|core)\//.test(file))).toEqual([]);
    expect(files).not.toContain('src/core/service.ts');
  });

  it('agent-memory/ai-sdk: the AI SDK (an optional peer) over the client, nothing of the server side', async () => {
    const files = await modulesLoadedBy('src/ai-sdk/index.ts');
    const packages = packagesIn(files);
    expect(packages).toContain('ai');
    expect(packages).toContain('zod');
    expect(packages.filter((name) => SERVER_SIDE.includes(name))).toEqual([]);
    expect(files.filter((file) => file.startsWith('src/') && !/^src\/(ai-sdk|client|core)\//.test(file))).toEqual([]);
    expect(files).not.toContain('src/core/service.ts');
  });

  it('agent-memory/langgraph: the store over the client, with LangGraph\u2019s checkpoint package and nothing of the server side', async () => {
    const files = await modulesLoadedBy('src/langgraph/index.ts');
    const packages = packagesIn(files);
    expect(packages).toContain('@langchain/langgraph-checkpoint');
    expect(packages.filter((name) => SERVER_SIDE.includes(name))).toEqual([]);
    expect(files.filter((file) => file.startsWith('src/') && !/^src\/(client|core|langgraph)\//.test(file))).toEqual([]);
    expect(files).not.toContain('src/core/service.ts');
  });

  it('agent-memory/server: the wiring, which does load the drivers and express (so the checks above can see them)', async () => {
    const packages = packagesIn(await modulesLoadedBy('src/server.ts'));
    // better-sqlite3 12 on Node 20, 13 (the better-sqlite3-v13 alias) on Node 22 and later: connection.ts's sqliteDriverFor.
    expect(packages).toEqual(expect.arrayContaining([sqliteDriverFor(NODE_MAJOR), 'pg', 'express', '@modelcontextprotocol/sdk']));
    expect(packages).not.toContain(sqliteDriverFor(NODE_MAJOR) === 'better-sqlite3' ? 'better-sqlite3-v13' : 'better-sqlite3');
    // Models stay lazy even here: they load in the embedding worker, and only the one chosen.
    expect(packages).not.toContain('@huggingface/transformers');
    expect(packages).not.toContain('@energetic-ai/core');
  });
});
