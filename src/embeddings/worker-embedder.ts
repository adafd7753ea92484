/**
 * The embedding worker thread and the embedder over it: `spawnEmbedWorker` starts `embed-worker` next to this file,
 * and `WorkerEmbedder` is the pool of such workers (embed-pool.ts) with one worker unless told otherwise. Queueing,
 * fairness between callers, batching, chunking and failure handling live in the pool.
 */
import { Worker } from 'node:worker_threads';
import type { EmbedWorkerData } from './protocol.js';
import { EmbedPool, type EmbedPoolOptions } from './embed-pool.js';

export { DEFAULT_MAX_BATCH_CHARS, DEFAULT_MAX_BATCH_SIZE } from './embed-pool.js';

/** The pool's options; `spawn` defaults to the real worker (tests substitute a scripted one). */
export type WorkerEmbedderOptions = Omit<EmbedPoolOptions, 'spawn'> & { spawn?: EmbedPoolOptions['spawn'] };

/**
 * The worker entry next to this file. Compiled, this module is `dist/embeddings/worker-embedder.js` and the entry
 * `embed-worker.js`; under vitest (or tsx) it is the TypeScript source and the entry is `embed-worker.ts`, which a
 * plain worker thread cannot run, so it is started through a small bootstrap that registers tsx first (Node 20
 * does not apply `execArgv: ['--import', 'tsx']` hooks inside worker threads).
 */
export function spawnEmbedWorker(data: EmbedWorkerData): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(fromSource ? './embed-worker.ts' : './embed-worker.js', import.meta.url);
  // The process's stdout may be an MCP stdio channel. The worker sends its own stdout to stderr (see
  // embed-worker.ts); `stdout: true` additionally stops anything written before that from being piped to ours. The
  // stream is deliberately never read: reading it would hold the event loop open for as long as the worker lives.
  const common = { workerData: data, stdout: true, stderr: false } as const;
  if (!fromSource) return new Worker(entry, common);
  // The ESM build of tsx's API (its CommonJS build cannot register hooks from a worker), resolved from here so that
  // the worker does not depend on the working directory.
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = [
    'import(process.argv.at(-2))',
    '  .then(({ register }) => { register(); return import(process.argv.at(-1)); })',
    '  .catch((error) => { setImmediate(() => { throw error; }); });',
  ].join('\n');
  return new Worker(bootstrap, { ...common, eval: true, argv: [tsxApi, entry.href] });
}

export class WorkerEmbedder extends EmbedPool {
  constructor(options: WorkerEmbedderOptions) {
    super({ ...options, spawn: options.spawn ?? spawnEmbedWorker });
  }
}
