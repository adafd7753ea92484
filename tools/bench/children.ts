/**
 * The processes the benchmark talks to: `agent-memory serve` (HTTP), `agent-memory mcp` (stdio) and the reference
 * MCP memory server, each in its own process so that its resident memory can be read from /proc.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ChildTarget } from './backends.js';
import { newestFile } from '../shared/freshness.js';
import { announcedUrl } from '../shared/listening.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BENCH_KEY = `amk_${'B'.repeat(40)}`;

export interface CliCommand {
  args: string[];
  how: string;
}

/**
 * `node bin/agent-memory.js` when dist/ is as new as src/ (built here when stale; the build emits even when another
 * engineer's work in progress has type errors), else the sources through tsx (same code, no build).
 */
export function cliCommand(): CliCommand {
  const bin = join(ROOT, 'bin/agent-memory.js');
  const built = join(ROOT, 'dist/cli/main.js');
  const fresh = () => existsSync(built) && statSync(built).mtimeMs >= newestFile(join(ROOT, 'src'));
  if (!fresh()) {
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], {
        stdio: 'ignore',
        timeout: 180_000,
      });
    } catch {
      // Type errors elsewhere still emit; freshness is checked below.
    }
  }
  if (fresh()) return { args: [bin], how: '`node bin/agent-memory.js` (dist built from the current sources)' };
  return { args: ['--import', 'tsx', join(ROOT, 'tools/bench/cli.ts')], how: '`node --import tsx tools/bench/cli.ts` (the sources; dist/ could not be built)' };
}

/** The bench's environment without its own database settings: each child gets its set's (ChildTarget). */
function childEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  delete env.DATABASE_URL;
  delete env.MEMORY_DB_PATH;
  return { ...env, ...extra };
}

export interface Memory {
  rssBytes: number;
  peakBytes: number;
}

export function processMemory(pid: number): Memory {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
    return { rssBytes: kb('VmRSS'), peakBytes: kb('VmHWM') };
  } catch {
    return { rssBytes: Number.NaN, peakBytes: Number.NaN };
  }
}

export interface ServerChild {
  url: string;
  pid: number;
  memory(): Memory;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) resolveExit();
    else child.once('exit', () => resolveExit());
  });
}

/** `agent-memory serve` on the set, on an ephemeral port, resolved once /healthz says the model is ready. */
export async function startServerChild(cli: CliCommand, set: ChildTarget): Promise<ServerChild> {
  const child = spawn(
    process.execPath,
    [...cli.args, 'serve', ...set.args, '--port', '0', '--host', '127.0.0.1', '--rate-limit', '0', '--log-level', 'warn'],
    { env: childEnv({ ...set.env, MEMORY_API_KEY: BENCH_KEY }), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await announcedUrl(child, 120_000);
  const deadline = Date.now() + 180_000;
  for (;;) {
    const health = (await fetch(`${url}/healthz`).then((r) => r.json(), () => ({}))) as { status?: string };
    if (health.status === 'ok') break;
    if (Date.now() > deadline) throw new Error(`server not ready: ${JSON.stringify(health)}\n${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const pid = child.pid as number;
  const server: ServerChild = {
    url,
    pid,
    memory: () => processMemory(pid),
    async stop() {
      running.delete(server);
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited(child);
      clearTimeout(timer);
    },
  };
  running.add(server);
  return server;
}

/** The servers started and not yet stopped. */
const running = new Set<ServerChild>();

/** Stops every server still running: after a failed run, a server left up would keep the bench from exiting. */
export async function stopServerChildren(): Promise<void> {
  await Promise.all([...running].map((server) => server.stop()));
}

export interface McpChild {
  client: Client;
  pid: number | undefined;
  call(name: string, args: Record<string, unknown>): Promise<{ ms: number; result: unknown }>;
  close(): Promise<void>;
}

async function connectStdio(command: string, args: string[], env: Record<string, string>, name: string): Promise<McpChild> {
  const transport = new StdioClientTransport({ command, args, env: { ...getDefaultEnvironment(), ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const client = new Client({ name, version: '0.0.0' });
  try {
    await client.connect(transport);
    await client.listTools();
  } catch (error) {
    throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}\n${stderr}`);
  }
  return {
    client,
    pid: transport.pid ?? undefined,
    async call(tool, toolArgs) {
      const t = performance.now();
      const result = await client.callTool({ name: tool, arguments: toolArgs }, undefined, { timeout: 600_000 });
      const ms = performance.now() - t;
      if ((result as { isError?: boolean }).isError) {
        throw new Error(`${tool} failed: ${JSON.stringify((result as { content?: unknown }).content).slice(0, 500)}`);
      }
      return { ms, result };
    },
    close: () => client.close(),
  };
}

/** Ours: `agent-memory mcp --user-id ID` on the set, over stdio. */
export async function startOurMcp(cli: CliCommand, set: ChildTarget, userId: string): Promise<McpChild> {
  return connectStdio(process.execPath, [...cli.args, 'mcp', ...set.args, '--user-id', userId, '--log-level', 'warn'], childEnv(set.env), 'bench-ours');
}

/** True when this checkout has the `mcp` command. */
export function hasMcpCommand(): boolean {
  return existsSync(join(ROOT, 'src/cli/commands/mcp.ts'));
}

/** The reference server, `@modelcontextprotocol/server-memory`, keeping its graph in `file`. */
export async function startPeer(file: string): Promise<McpChild> {
  const require = createRequire(join(ROOT, 'package.json'));
  const entry = join(require.resolve('@modelcontextprotocol/server-memory/package.json'), '..', 'dist/index.js');
  return connectStdio(process.execPath, ['--max-old-space-size=4096', entry], childEnv({ MEMORY_FILE_PATH: file }), 'bench-peer');
}

export function peerVersion(): string {
  const require = createRequire(join(ROOT, 'package.json'));
  return (require('@modelcontextprotocol/server-memory/package.json') as { version: string }).version;
}
