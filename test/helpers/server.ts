import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../src/cli/commands/serve.js';
import type { ServeConfig } from '../../src/cli/config.js';
import { silentLogger } from '../../src/core/logger.js';

export const TEST_KEY = `amk_${'T'.repeat(40)}`;

export interface TestServer extends RunningServer {
  dir: string;
  dbPath: string;
  /** fetch against the server with the test key (override headers to change or drop it). */
  call(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

/** A real server on an ephemeral loopback port over a fresh SQLite file in the OS temp dir. */
export async function startTestServer(overrides: Partial<ServeConfig> = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-test-'));
  const dbPath = join(dir, 'memory.db');
  const server = await startServer(
    {
      dbPath,
      model: 'use-lite',
      modelDir: undefined,
      logLevel: 'error',
      port: 0,
      host: '127.0.0.1',
      apiKey: TEST_KEY,
      rateLimit: 0,
      ...overrides,
    },
    { logger: silentLogger, output: { print() {}, notice() {} } },
  );
  await server.runtime.modelReady;
  const call = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, headers, ...rest } = init;
    const merged = new Headers({ Authorization: `Bearer ${TEST_KEY}` });
    if (json !== undefined) merged.set('Content-Type', 'application/json');
    new Headers(headers).forEach((value, key) => merged.set(key, value));
    return fetch(`${server.url}${path}`, { ...rest, headers: merged, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) });
  };
  return {
    ...server,
    dir,
    dbPath,
    call,
    async stop() {
      await server.close(1_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The contract's error body, asserted loosely enough to read in a test failure. */
export interface ErrorJson {
  error: { code: string; message: string; details?: Array<{ path: string; message: string }> };
}
