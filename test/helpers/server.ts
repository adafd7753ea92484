import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer, type ServeOptions } from '../../src/runtime/serve.js';
import type { ServeConfig } from '../../src/runtime/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { startTestDatabase } from './postgres.js';
import type { SqliteDatabase as Database } from '../../src/storage/sqlite/connection.js';

export const TEST_KEY = `amk_${'T'.repeat(40)}`;

/**
 * The model the in-process suites run on: `hash`, the deterministic embedder (same text, same vector; shared words
 * and stems, close vectors), ready at once. The real model is exercised by a few end-to-end tests (the README
 * walk-through, the stdio MCP test, the CLI tests, the calibration test), which pass `model: 'use-lite'`.
 */
export const TEST_MODEL = 'hash';

export interface TestServer extends RunningServer {
  dir: string;
  dbPath: string;
  /** The SQLite connection under the server, for tests that look at rows directly. */
  sqlite(): Database;
  /** fetch against the server with the test key (override headers to change or drop it). */
  call(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * The backend the contract tests run on: SQLite by default; `TEST_BACKEND=postgres` runs the same suites on
 * PostgreSQL (PGlite with pgvector on a loopback port, or TEST_DATABASE_URL), one fresh database per server.
 */
export const TEST_BACKEND = process.env.TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

/**
 * `TEST_METRICS=1` runs the same suites with metrics on (`npm run test:metrics`): every test server gets a metrics
 * token, and every test runtime a Metrics, so the service the suites call is the instrumented one an operator with
 * `--metrics-token` runs (instrument.ts). A test that sets its own metricsToken keeps it.
 */
export const TEST_METRICS = process.env.TEST_METRICS === '1';
export const TEST_METRICS_TOKEN = 'test-metrics-token-0123456789';

/**
 * A real server (startServer: the CLI's wiring, an in-process HTTP listener) on an ephemeral loopback port over a
 * fresh database (a SQLite file in the OS temp dir), on TEST_MODEL unless `overrides.model` says otherwise.
 */
export async function startTestServer(
  overrides: Partial<ServeConfig> = {},
  options: Pick<ServeOptions, 'mcpHandler'> = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-test-'));
  const dbPath = join(dir, 'memory.db');
  const database = TEST_BACKEND === 'postgres' ? await startTestDatabase() : undefined;
  const server = await startServer(
    {
      dbPath,
      model: TEST_MODEL,
      modelDir: undefined,
      logLevel: 'error',
      port: 0,
      host: '127.0.0.1',
      apiKey: TEST_KEY,
      rateLimit: 0,
      ...(database ? { databaseUrl: database.url } : {}),
      ...(TEST_METRICS ? { metricsToken: TEST_METRICS_TOKEN } : {}),
      ...overrides,
    },
    { logger: silentLogger, output: { print() {}, notice() {} }, ...options },
  );
  await server.runtime.modelReady;
  // The metrics lane must really run with metrics on, or it proves nothing.
  if (TEST_METRICS && !server.metrics && overrides.metricsToken === undefined) throw new Error('TEST_METRICS=1, but this server has no metrics.');
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
    sqlite() {
      const store = server.runtime.sqlite;
      if (!store) throw new Error('This test server does not run on SQLite.');
      return store.database;
    },
    async stop() {
      await server.close(1_000);
      await database?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The contract's error body, asserted loosely enough to read in a test failure. */
export interface ErrorJson {
  error: { code: string; message: string; details?: Array<{ path: string; message: string }> };
}
