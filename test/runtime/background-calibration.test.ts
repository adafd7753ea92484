/**
 * `serve` with a model that has no calibration: it calibrates it in the background from the shipped labelled sets,
 * says so (log, /healthz, explain), stores it, and the next start reads it from the database. On the hash model
 * under another name (MEMORY_MODEL_IDENTITY's option), so no calibration is built in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Logger, LogFields } from '../../src/core/logger.js';
import type { ServeConfig } from '../../src/runtime/config.js';
import { startServer } from '../../src/runtime/serve.js';
import { TEST_KEY } from '../helpers/server.js';
import { shippedLabelledSets } from '../../src/core/calibration/labelled-sets.js';

/** Every text of the shipped labelled sets: what a background calibration embeds. */
const SHIPPED_TEXTS = shippedLabelledSets().sets.reduce((n, s) => n + s.memories.length + s.queries.length, shippedLabelledSets().offTopic.length);

const dir = mkdtempSync(join(tmpdir(), 'agent-memory-calibration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config: ServeConfig = {
  dbPath: join(dir, 'memory.db'),
  model: 'hash',
  modelIdentity: 'hash-uncalibrated',
  modelDir: undefined,
  logLevel: 'info',
  port: 0,
  host: '127.0.0.1',
  apiKey: TEST_KEY,
  rateLimit: 0,
};

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (message: string, fields?: LogFields) => lines.push(`${message} ${JSON.stringify(fields ?? {})}`);
  return { lines, debug: log, info: log, warn: log, error: log };
}

async function healthz(url: string): Promise<{ status: string; calibration?: string }> {
  const res = await fetch(`${url}/healthz`);
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string; calibration?: string };
}

describe('serve with a model without a calibration', () => {
  it('calibrates in the background, saying so, and the next start uses the stored calibration', async () => {
    const logger = recordingLogger();
    const server = await startServer(config, { logger, output: { print() {}, notice() {} } });
    try {
      await server.runtime.modelReady;
      // Pending while the fit runs (it may already be done on a fast machine: never builtin).
      expect(['pending', 'fitted']).toContain((await healthz(server.url)).calibration);
      expect(await server.runtime.calibrated).toBe('fitted');
      expect(await healthz(server.url)).toEqual({ status: 'ok', calibration: 'fitted' });
      expect(logger.lines.some((l) => l.startsWith('no built-in score calibration for this embedding model: the service calibrates it in the background'))).toBe(true);
      expect(logger.lines.some((l) => l.startsWith('score calibration fitted and stored') && l.includes(`"texts":${SHIPPED_TEXTS}`))).toBe(true);

      const headers = { Authorization: `Bearer ${TEST_KEY}`, 'Content-Type': 'application/json' };
      await fetch(`${server.url}/v1/memories`, { method: 'POST', headers, body: JSON.stringify({ userId: 'u', text: 'Mia was born in 2019.' }) });
      const res = await fetch(`${server.url}/v1/memories/recall`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ userId: 'u', query: 'When was Mia born?', minScore: 0, explain: true }),
      });
      const body = (await res.json()) as { memories: { explain?: { calibration?: string } }[] };
      expect(body.memories[0]?.explain?.calibration).toBe('fitted');
    } finally {
      await server.close(1_000);
    }

    const again = recordingLogger();
    const second = await startServer(config, { logger: again, output: { print() {}, notice() {} } });
    try {
      expect(await second.runtime.calibrated).toBe('fitted');
      expect(again.lines.some((l) => l.startsWith('score calibration: the one fitted for this model, from the database'))).toBe(true);
      expect(again.lines.some((l) => l.startsWith('score calibration fitted and stored'))).toBe(false);
    } finally {
      await second.close(1_000);
    }
  });

  it('keeps the short /healthz answer and no calibration work for a model with a built-in calibration', async () => {
    const server = await startServer({ ...config, dbPath: join(dir, 'builtin.db'), modelIdentity: undefined }, { logger: recordingLogger(), output: { print() {}, notice() {} } });
    try {
      expect(await server.runtime.calibrated).toBe('builtin');
      expect(await healthz(server.url)).toEqual({ status: 'ok' });
    } finally {
      await server.close(1_000);
    }
  });
});
