/**
 * Spawns the real CLI (`node bin/agent-memory.js serve`, i.e. the compiled dist/) as a child process, so that the
 * reliability tests can kill it with any signal and restart it on the same database file.
 *
 * Port: the CLI accepts `--port 0` and then announces the port it was given on stderr ("agent-memory is listening
 * on http://127.0.0.1:PORT ..."); reading that line avoids the race of picking a "free" port first and finding it
 * taken by the time the server binds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { announcedUrl } from '../../../tools/shared/listening.js';
import { staleBuild } from '../../helpers/built.js';
import { TEST_MODEL } from '../../helpers/server.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI = fileURLToPath(new URL('../../../bin/agent-memory.js', import.meta.url));
export const RELIABILITY_KEY = `amk_${'R'.repeat(40)}`;

/** Servers still running when the test process exits (a test that failed half-way) are killed with it. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

/** The CLI runs dist/, which the end-to-end project's global setup builds; run elsewhere, fail rather than skip. */
export function assertBuilt(): void {
  const reason = staleBuild();
  if (reason !== undefined) throw new Error(`${reason}: run \`npm run build\` before the reliability tests.`);
}

export interface CliServer {
  url: string;
  port: number;
  pid: number;
  proc: ChildProcess;
  /** Everything the process wrote to stderr so far (logs and notices). */
  stderr(): string;
  stdout(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM and wait for the exit (SIGKILL after `ms`). */
  stop(ms?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnServerOptions {
  dbPath: string;
  /** MEMORY_API_KEY; `null` starts without one (first-run key banner). */
  apiKey?: string | null;
  /** MEMORY_RATE_LIMIT, 0 (off) unless told. */
  rateLimit?: number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  env?: Record<string, string>;
  /** How long to wait for the model to be ready (healthz 200). */
  readyTimeoutMs?: number;
}

/** Starts `agent-memory serve` on 127.0.0.1 and resolves once /healthz answers 200 (store open, model loaded). */
export async function spawnServer(options: SpawnServerOptions): Promise<CliServer> {
  assertBuilt();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    MEMORY_RATE_LIMIT: String(options.rateLimit ?? 0),
    MEMORY_LOG_LEVEL: options.logLevel ?? 'warn',
    // What is under test here is the process (crashes, signals, locks), not the model: the hash model starts at once.
    MEMORY_EMBED_MODEL: TEST_MODEL,
    ...options.env,
  };
  const apiKey = options.apiKey === undefined ? RELIABILITY_KEY : options.apiKey;
  if (apiKey !== null) env.MEMORY_API_KEY = apiKey;
  const proc = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--db', options.dbPath], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  proc.stderr?.setEncoding('utf8');
  proc.stdout?.setEncoding('utf8');
  proc.stdout?.on('data', (chunk: string) => (out += chunk));
  running.add(proc);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('exit', (code, signal) => {
      running.delete(proc);
      resolve({ code, signal });
    });
  });
  proc.stderr?.on('data', (chunk: string) => (err += chunk));
  const url = await announcedUrl(proc, 30_000);
  const port = Number(new URL(url).port);
  const kill = (signal: NodeJS.Signals) => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
  };
  const server: CliServer = {
    url,
    port,
    pid: proc.pid ?? -1,
    proc,
    stderr: () => err,
    stdout: () => out,
    exited,
    kill,
    async stop(ms = 15_000) {
      kill('SIGTERM');
      const timer = setTimeout(() => kill('SIGKILL'), ms);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  try {
    await waitHealthy(url, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    kill('SIGKILL');
    throw error;
  }
  return server;
}

export async function waitHealthy(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/healthz`);
      last = `${res.status} ${await res.text()}`;
      if (res.status === 200) return;
    } catch (error) {
      last = String(error);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server at ${url} not healthy within ${timeoutMs} ms: ${last}`);
}

/** Runs a one-shot CLI command (keys, backup) to completion. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  assertBuilt();
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MEMORY_EMBED_MODEL: TEST_MODEL, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    proc.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`agent-memory ${args.join(' ')} did not finish within ${options.timeoutMs ?? 60_000} ms\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}
