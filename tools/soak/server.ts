/**
 * The server under soak: the real CLI (`node bin/agent-memory.js serve`, which runs dist/) in its own process, so
 * that its resident memory can be sampled on its own. Loopback only: it binds 127.0.0.1 and announces its port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { announcedUrl } from '../shared/listening.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/agent-memory.js', import.meta.url));

export interface SoakServer {
  url: string;
  pid: number;
  proc: ChildProcess;
  stderr(): string;
  /** SIGTERM, then the exit code (SIGKILL after 20 s). */
  stop(): Promise<number | null>;
}

export async function startSoakServer(options: { dbPath: string; apiKey: string; rateLimit: number }): Promise<SoakServer> {
  if (!existsSync(new URL('../../dist/cli/main.js', import.meta.url))) {
    throw new Error('dist/ is missing: run `npm run build` first (the soak runs the compiled CLI).');
  }
  const proc = spawn(process.execPath, [CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--db', options.dbPath], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      MEMORY_API_KEY: options.apiKey,
      MEMORY_RATE_LIMIT: String(options.rateLimit),
      MEMORY_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr?.setEncoding('utf8');
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  proc.stderr?.on('data', (chunk: string) => (err += chunk));
  const url = await announcedUrl(proc, 60_000);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`${url}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error('the server did not become healthy within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: proc.pid ?? -1,
    proc,
    stderr: () => err,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Resident set size of a process in MB: /proc on Linux, `ps` elsewhere. */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
    if (kb) return Number(kb) / 1024;
  } catch {
    // Not Linux: fall back to ps.
  }
  const out = execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  return Number(out) / 1024;
}
