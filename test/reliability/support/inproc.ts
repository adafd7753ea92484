/**
 * An in-process server (startServer, as the CLI's serve uses it) whose logger lines and CLI notices are captured,
 * so that a test can read everything the server would have written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../../src/runtime/serve.js';
import type { ServeConfig } from '../../../src/runtime/config.js';
import { createLogger } from '../../../src/core/logger.js';
import { TEST_MODEL } from '../../helpers/server.js';

export interface CapturedServer extends RunningServer {
  dir: string;
  dbPath: string;
  logs: string[];
  notices: string[];
  stop(): Promise<void>;
}

export async function startCapturedServer(overrides: Partial<ServeConfig> = {}): Promise<CapturedServer> {
  const dir = mkdtempSync(join(tmpdir(), 'am-reliability-'));
  const dbPath = join(dir, 'memory.db');
  const logs: string[] = [];
  const notices: string[] = [];
  const server = await startServer(
    {
      dbPath,
      model: TEST_MODEL,
      modelDir: undefined,
      logLevel: 'debug',
      port: 0,
      host: '127.0.0.1',
      apiKey: undefined,
      rateLimit: 0,
      ...overrides,
    },
    {
      logger: createLogger({ level: 'debug', write: (line) => logs.push(line) }),
      output: { print: (line) => notices.push(line), notice: (line) => notices.push(line) },
    },
  );
  await server.runtime.modelReady;
  return {
    ...server,
    dir,
    dbPath,
    logs,
    notices,
    async stop() {
      await server.close(1_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
