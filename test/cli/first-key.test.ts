import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/runtime/serve.js';
import type { ServeConfig } from '../../src/runtime/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { TEST_MODEL } from '../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'am-first-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts and stops a server on the shared file; returns what it printed. */
async function run(config: Partial<ServeConfig> = {}, during?: (server: Awaited<ReturnType<typeof startServer>>) => Promise<void>) {
  const notices: string[] = [];
  const server = await startServer(
    {
      dbPath: join(dir, 'memory.db'),
      model: TEST_MODEL,
      modelDir: undefined,
      logLevel: 'error',
      port: 0,
      host: '127.0.0.1',
      apiKey: undefined,
      rateLimit: 0,
      ...config,
    },
    { logger: silentLogger, output: { print: (l) => notices.push(l), notice: (l) => notices.push(l) } },
  );
  try {
    await during?.(server);
  } finally {
    await server.close(1_000);
  }
  return notices.join('\n');
}

describe('the first-run key', () => {
  it('is created on an empty database only: revoking every key and restarting mints none', async () => {
    const first = await run({}, async (server) => {
      const keys = await server.runtime.store.listKeys();
      expect(keys).toHaveLength(1);
      for (const key of keys) await server.runtime.store.revokeKey(key.id, new Date().toISOString());
    });
    expect(first).toMatch(/amk_[0-9A-Za-z]{40}/);

    const second = await run({}, async (server) => {
      const keys = await server.runtime.store.listKeys();
      expect(keys).toHaveLength(1);
      expect(keys[0]?.revokedAt).not.toBeNull();
    });
    expect(second).not.toMatch(/amk_/);
  });
});
