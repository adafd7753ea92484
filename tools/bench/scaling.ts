/**
 * The embedding pool's scaling: at each worker count (1, 2, 4, ... --cpus), the model's throughput through the pool
 * (64 texts a call, two calls in flight, as `agent-memory import` sends them), a bulk import through the import
 * path into a fresh set, and sustained stores over HTTP from concurrent clients to a server started with
 * `--embed-workers N`. All three at one worker count are measured back to back, so that machine load hits the
 * points of the curve alike as far as it can; the ratios to one worker are the figures to read.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importJsonlFile } from '../../src/runtime/jsonl-file.js';
import { createEmbedder } from '../../src/embeddings/index.js';
import type { EmbedderInfo } from '../../src/core/embedder.js';
import type { BenchBackend } from './backends.js';
import { BENCH_KEY, startServerChild, type CliCommand } from './children.js';

export interface ScalingPoint {
  workers: number;
  /** Texts per second through the pool, calls of 64 with two in flight. */
  model: number;
  /** Memories per second through `importJsonl` (the `agent-memory import` path). */
  import: number;
  /** Stores per second over HTTP, `clients` concurrent clients. */
  stores: number;
}

export interface ScalingInput {
  backend: BenchBackend;
  cli: CliCommand;
  work: string;
  info: EmbedderInfo;
  workerCounts: readonly number[];
  /** The cores the workers share out as model threads (--cpus). */
  cores: number;
  /** Texts for the model (its first `modelTexts`), the import (its first `importLines`) and the stores. */
  texts: readonly string[];
  modelTexts: number;
  importLines: number;
  clients: number;
  storeSeconds: number;
  log(line: string): void;
}

/** Two calls of 64 in flight until every text is embedded: what the import asks of the model. */
async function poolThroughput(embed: (texts: string[]) => Promise<unknown>, texts: readonly string[]): Promise<number> {
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < texts.length) {
      const batch = texts.slice(next, next + 64);
      next += 64;
      await embed([...batch]);
    }
  };
  await Promise.all([lane(), lane()]);
  return texts.length / ((performance.now() - started) / 1000);
}

export async function storesPerSecond(url: string, texts: readonly string[], clients: number, seconds: number, tag: string): Promise<number> {
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; performance.now() < until; i++) {
        // A text of its own per request: a repeated text would be answered as a duplicate, without the model.
        const text = `${texts[(c * 31 + i) % texts.length] ?? ''} (${tag} ${c}.${i})`;
        const res = await fetch(`${url}/v1/memories`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${BENCH_KEY}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ userId: `scaling-${c}`, text }),
        });
        await res.arrayBuffer();
        if (res.status === 201) done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

export async function measureScaling(input: ScalingInput): Promise<ScalingPoint[]> {
  const { backend, cli, work, info, texts } = input;
  const points: ScalingPoint[] = [];
  for (const workers of input.workerCounts) {
    // All N workers from the start (not grown with the queue): the curve is of N workers, each given cores / N threads.
    const pool = createEmbedder({ workers, minWorkers: workers, cores: input.cores });
    let model: number;
    let imported: number;
    try {
      await pool.ready();
      model = await poolThroughput((batch) => pool.embed(batch, 'document'), texts.slice(0, input.modelTexts));
      const file = join(work, `scaling-${workers}.jsonl`);
      const lines = texts.slice(0, input.importLines).map((text, i) => JSON.stringify({ userId: 'scaling', text, id: `scaling-${i}` }));
      writeFileSync(file, `${lines.join('\n')}\n`);
      const set = await backend.create(`scaling_${workers}`);
      await set.activate();
      const { store } = await set.open();
      try {
        await store.useModel(info);
        const result = await importJsonlFile({ store, embed: (batch) => pool.embed(batch, 'document') }, file, { batchSize: 64 });
        imported = result.imported / result.seconds;
      } finally {
        await store.close();
        await set.remove();
      }
    } finally {
      await pool.close();
    }
    const set = await backend.create(`scaling_stores_${workers}`);
    await set.activate();
    const server = await startServerChild(cli, { args: [...set.child.args, '--embed-workers', String(workers)], env: set.child.env });
    let stores: number;
    try {
      stores = await storesPerSecond(server.url, texts, input.clients, input.storeSeconds, `w${workers}`);
    } finally {
      await server.stop();
      await set.remove();
    }
    points.push({ workers, model, import: imported, stores });
    input.log(`scaling ${workers} worker(s): model ${model.toFixed(1)}/s, import ${imported.toFixed(1)}/s, stores ${stores.toFixed(1)}/s`);
  }
  return points;
}
