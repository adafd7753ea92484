/**
 * The model behind an OpenAI-compatible endpoint, through the commands: `serve` refused by the endpoint (401) exits
 * non-zero naming the URL and the status; `reembed` moves a database onto the endpoint's model; a runtime whose
 * endpoint model's dimension differs from the database's is refused naming both models and reembed. A real server
 * on loopback (tools/shared/embeddings-server.ts) with the hash model behind it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { HashingEmbedder } from '../../src/embeddings/hashing.js';
import { runMcpStdio } from '../../src/runtime/mcp.js';
import { createMetrics } from '../../src/runtime/metrics.js';
import { openRuntime } from '../../src/runtime/runtime.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { startEmbeddingsServer, type EmbeddingsServer } from '../../tools/shared/embeddings-server.js';
import { hashVector, newMemory } from '../helpers/memories.js';

const KEY = 'sk-endpoint-secret-789';
let dir: string;
let server: EmbeddingsServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-endpoint-cli-'));
  // 64 dimensions: not the hash model's 256, so a database built with one refuses the other.
  server = await startEmbeddingsServer({ embedder: new HashingEmbedder(64), apiKey: KEY });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => vi.unstubAllEnvs());

async function run(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await main([...args, '--log-level', 'error'], { print: (l) => lines.push(l), notice: (l) => lines.push(l) });
  return { code, text: lines.join('\n') };
}

describe('the model behind an endpoint, through the commands', () => {
  it('serve refused by the endpoint (401) exits 1, naming the URL and the status, never the key', async () => {
    vi.stubEnv('MEMORY_EMBED_API_KEY', 'sk-wrong-000');
    const { code, text } = await run(['serve', '--port', '0', '--db', join(dir, 'refused.db'), '--embed-url', server.url, '--model', 'remote-64']);
    expect(code).toBe(1);
    expect(text).toContain(server.url);
    expect(text).toMatch(/answered 401/);
    expect(text).not.toContain('sk-wrong-000');
  });

  it('mcp over stdio refused by the endpoint (403) ends its session and returns 1', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const forbidding = await startEmbeddingsServer({ embedder: new HashingEmbedder() });
    forbidding.fail({ kind: 'status', status: 403 });
    try {
      const code = await runMcpStdio(
        { dbPath: join(dir, 'mcp.db'), model: 'remote', modelDir: undefined, endpoint: { url: forbidding.url }, logLevel: 'error', defaults: {} },
        { stdin, stdout },
      );
      expect(code).toBe(1);
    } finally {
      stdin.end();
      await forbidding.close();
    }
  });

  it('--embed-url without --model is a configuration error', async () => {
    const { code, text } = await run(['reembed', '--db', join(dir, 'none.db'), '--embed-url', server.url]);
    expect(code).toBe(1);
    expect(text).toMatch(/--embed-url needs the model served there/);
  });

  it('reembed moves a database onto the endpoint\'s model; the old model is then refused naming both and reembed', async () => {
    const path = join(dir, 'moved.db');
    const store = SqliteStore.open({ path });
    await store.useModel({ model: 'hash', dimension: 256 });
    const app = await store.ensureApp('default');
    await store.insertMemories(['Anna works at a bakery.', 'Mia was born in 2019.'].map((text, minute) => newMemory({ userId: 'u', appId: app.id, text, minute, embedding: hashVector(text, 256) })));
    await store.close();

    vi.stubEnv('MEMORY_EMBED_API_KEY', KEY);
    const moved = await run(['reembed', '--db', path, '--embed-url', server.url, '--model', 'remote-64']);
    expect(moved.code).toBe(0);
    expect(moved.text).toMatch(/Re-embedded 2 memories with "remote-64" \(64 dimensions\), replacing "hash"/);
    expect(moved.text).not.toContain(KEY);
    const after = SqliteStore.open({ path });
    // The model's name and dimension are recorded, not the URL.
    expect(await after.getModel()).toEqual({ model: 'remote-64', dimension: 64 });
    await after.close();

    const runtime = await openRuntime({ dbPath: path, model: 'hash', modelDir: undefined });
    await expect(runtime.modelReady).rejects.toThrow(/"remote-64" \(64 dimensions\).*"hash" \(256\).*reembed/s);
    await runtime.close();
  });

  it('/metrics counts the endpoint\'s failed requests by status', async () => {
    const metrics = createMetrics();
    const runtime = await openRuntime({ dbPath: join(dir, 'metrics.db'), model: 'remote-64', modelDir: undefined, endpoint: { url: server.url, apiKey: KEY } }, undefined, metrics);
    try {
      await runtime.modelReady;
      server.fail({ kind: 'status', status: 500 }, 1);
      await runtime.service.store(LOCAL_CALLER, { userId: 'u', text: 'Stored after one retry.' });
      const { body } = await metrics.render();
      expect(body).toMatch(/agent_memory_embed_endpoint_errors_total\{reason="500"\} 1/);
      expect(body).not.toContain(KEY);
    } finally {
      server.fail({ kind: 'ok' }, 0);
      await runtime.close();
    }
  });

  it('a runtime on the endpoint stores and recalls with its vectors', async () => {
    vi.stubEnv('MEMORY_EMBED_API_KEY', KEY);
    const runtime = await openRuntime({ dbPath: join(dir, 'live.db'), model: 'remote-64', modelDir: undefined, endpoint: { url: server.url, apiKey: KEY } });
    try {
      await expect(runtime.modelReady).resolves.toEqual({ model: 'remote-64', dimension: 64 });
      await runtime.service.store(LOCAL_CALLER, { userId: 'u', text: 'Anna works at a bakery in Berlin.' });
      await runtime.service.store(LOCAL_CALLER, { userId: 'u', text: 'Mia was born in 2019.' });
      const before = server.requests.length;
      const { memories } = await runtime.service.recall(LOCAL_CALLER, { userId: 'u', query: 'Anna bakery Berlin', minScore: 0 });
      expect(memories[0]?.text).toBe('Anna works at a bakery in Berlin.');
      expect(server.requests.length).toBeGreaterThan(before);
    } finally {
      await runtime.close();
    }
  });
});
