/**
 * Host side of the embedding worker: starts the worker thread, queues `embed()` calls and sends them in
 * micro-batches, routes the vectors back to each caller, and turns every failure into a prompt rejection.
 *
 * Batching: at most one batch is in the worker at a time. Calls that arrive meanwhile (or in the same tick as the
 * first) wait in a queue and go together in the next batch of up to `maxBatchSize` texts, so concurrent requests
 * share model calls instead of each paying for its own. A call with more texts than a batch spans several batches.
 * The queue is fair between callers (fair-queue.ts): queries first, callers in turn, batches bounded by padded
 * length, so that one API key's long texts cannot hold up another key's recall.
 *
 * Failures:
 * - the model cannot load (missing files, unreachable hub, the worker dying while loading): `ready()` and every
 *   pending and later `embed()` reject with that error; it is permanent for this embedder (create a new one to retry);
 * - the worker crashes after loading: the calls in flight and queued reject with a "crashed" error, and the next
 *   `ready()`/`embed()` starts a fresh worker (which loads the model again);
 * - `close()`: pending calls reject, the worker is terminated, later calls reject.
 */
import { Worker } from 'node:worker_threads';
import type { EmbedRequestMessage, EmbedWorkerData, EmbedWorkerMessage, ProviderName } from './protocol.js';
import { errorMessage } from './protocol.js';
import { FairQueue } from './fair-queue.js';
import type { EmbedKind, Embedder, EmbedderInfo } from '../core/embedder.js';

export interface WorkerEmbedderOptions {
  model: string;
  provider: ProviderName;
  modelDir?: string | undefined;
  /** Most texts in one model call (default 32): bigger batches amortise more but pad to the longest text. */
  maxBatchSize?: number;
  /** Most characters in one model call, counted padded (texts x the longest); default 32 x 500. */
  maxBatchChars?: number;
  /** Starts the worker thread (default: `embed-worker` next to this file); tests substitute a scripted worker. */
  spawn?: (data: EmbedWorkerData) => Worker;
}

export const DEFAULT_MAX_BATCH_SIZE = 32;
/** 32 texts of an ordinary length, or a single 16,000-character text: a batch stays well under a second. */
export const DEFAULT_MAX_BATCH_CHARS = 32 * 500;
/** The caller of `embed` calls that name none. */
const ANONYMOUS = 'anonymous';

/** One `embed()` call; its texts may be spread over several batches. */
interface PendingCall {
  readonly texts: readonly string[];
  readonly kind: EmbedKind;
  readonly vectors: Float32Array[];
  remaining: number;
  settled: boolean;
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/** One text of a call, the unit the queue and batches are made of. */
interface QueuedText {
  call: PendingCall;
  index: number;
}

/** One worker thread and its loading state. A crash replaces the session; a close ends them all. */
interface Session {
  worker: Worker;
  ready: Promise<EmbedderInfo>;
  info: EmbedderInfo | undefined;
  settleReady: { resolve(info: EmbedderInfo): void; reject(error: Error): void };
  /** Set once this session is over (exited, failed, closed); its late events are ignored. */
  ended: boolean;
  /** The worker's uncaught error, reported by the 'error' event just before 'exit'. */
  crash: Error | undefined;
}

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

export class WorkerEmbedder implements Embedder {
  readonly model: string;
  readonly #options: WorkerEmbedderOptions;
  readonly #maxBatchSize: number;
  readonly #maxBatchChars: number;
  #session: Session | undefined;
  #loadFailure: Error | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly #queue = new FairQueue<QueuedText>();
  #inFlight: { id: number; texts: QueuedText[] } | undefined;
  #nextBatchId = 1;
  #pumpScheduled = false;

  constructor(options: WorkerEmbedderOptions) {
    this.model = options.model;
    this.#options = options;
    this.#maxBatchSize = Math.max(1, Math.floor(options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE));
    this.#maxBatchChars = Math.max(1, Math.floor(options.maxBatchChars ?? DEFAULT_MAX_BATCH_CHARS));
  }

  ready(): Promise<EmbedderInfo> {
    if (this.#closed) return Promise.reject(this.#closedError());
    if (this.#loadFailure) return Promise.reject(this.#loadFailure);
    try {
      return this.#start().ready;
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Starts loading the model if nothing has yet, waits for it, then embeds; see the class comment for failures.
   * `caller` (an API key) is whom the queue is fair between.
   */
  embed(texts: readonly string[], kind: EmbedKind, caller: string = ANONYMOUS): Promise<Float32Array[]> {
    if (this.#closed) return Promise.reject(this.#closedError());
    if (this.#loadFailure) return Promise.reject(this.#loadFailure);
    if (texts.length === 0) return Promise.resolve([]);
    try {
      this.#start();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise<Float32Array[]>((resolve, reject) => {
      const call: PendingCall = {
        texts: [...texts],
        kind,
        vectors: new Array<Float32Array>(texts.length),
        remaining: texts.length,
        settled: false,
        resolve,
        reject,
      };
      for (let index = 0; index < texts.length; index++) this.#queue.push(caller, kind, { call, index });
      this.#schedulePump();
    });
  }

  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    const error = this.#closedError();
    const session = this.#session;
    this.#session = undefined;
    this.#failPending(error);
    if (session === undefined) {
      this.#closing = Promise.resolve();
    } else {
      this.#endSession(session, error);
      this.#closing = session.worker.terminate().then(() => undefined);
    }
    return this.#closing;
  }

  #closedError(): Error {
    return new Error(`The embedder for model "${this.model}" is closed`);
  }

  /** The live session, starting a worker if there is none (first use, or after a crash). */
  #start(): Session {
    if (this.#session !== undefined) return this.#session;
    const spawn = this.#options.spawn ?? spawnEmbedWorker;
    let worker: Worker;
    try {
      worker = spawn({ provider: this.#options.provider, model: this.model, modelDir: this.#options.modelDir });
    } catch (error) {
      // E.g. running from TypeScript sources without tsx installed: as permanent as any other load failure.
      const reason = errorMessage(error);
      this.#loadFailure = new Error(`Could not load embedding model "${this.model}": the worker could not start (${reason})`);
      throw this.#loadFailure;
    }
    let settleReady: Session['settleReady'] | undefined;
    const ready = new Promise<EmbedderInfo>((resolve, reject) => {
      settleReady = { resolve, reject };
    });
    // Nobody may be listening (embed() alone started the worker); the failure still reaches callers through embed().
    ready.catch(() => undefined);
    if (settleReady === undefined) throw new Error('unreachable: Promise executor runs synchronously');
    const session: Session = { worker, ready, info: undefined, settleReady, ended: false, crash: undefined };
    this.#session = session;
    worker.on('message', (message: EmbedWorkerMessage) => this.#onMessage(session, message));
    worker.on('error', (error: Error) => {
      session.crash = error;
    });
    worker.on('exit', (code: number) => this.#onExit(session, code));
    return session;
  }

  #onMessage(session: Session, message: EmbedWorkerMessage): void {
    if (session.ended) return;
    switch (message.type) {
      case 'ready': {
        session.info = { model: this.model, dimension: message.dimension };
        session.settleReady.resolve(session.info);
        this.#pump();
        return;
      }
      case 'load-error': {
        this.#failLoad(session, new Error(`Could not load embedding model "${this.model}": ${message.message}`));
        return;
      }
      case 'result': {
        const batch = this.#takeInFlight(message.id);
        if (batch === undefined) return;
        const { dimension, vectors } = message;
        batch.forEach(({ call, index }, i) => {
          if (call.settled) return;
          call.vectors[index] = vectors.slice(i * dimension, (i + 1) * dimension);
          call.remaining -= 1;
          if (call.remaining === 0) {
            call.settled = true;
            call.resolve(call.vectors);
          }
        });
        this.#pump();
        return;
      }
      case 'error': {
        const batch = this.#takeInFlight(message.id);
        if (batch === undefined) return;
        // The texts of a failed batch cannot be told apart, so every call with a text in it fails.
        const error = new Error(`Embedding with model "${this.model}" failed: ${message.message}`);
        for (const { call } of batch) this.#rejectCall(call, error);
        this.#pump();
        return;
      }
    }
  }

  #onExit(session: Session, code: number): void {
    if (session.ended) return;
    const reason = session.crash ? errorMessage(session.crash) : `exit code ${code}`;
    if (session.info === undefined) {
      // Dying while loading is almost always deterministic (a missing file, a broken install): restarting would loop.
      this.#failLoad(session, new Error(`Could not load embedding model "${this.model}": the worker stopped (${reason})`));
      return;
    }
    const error = new Error(
      `The embedding worker for model "${this.model}" crashed (${reason}); the next request restarts it`,
    );
    this.#endSession(session, error);
    this.#session = undefined;
    this.#failPending(error);
  }

  #failLoad(session: Session, error: Error): void {
    this.#loadFailure = error;
    this.#endSession(session, error);
    if (this.#session === session) this.#session = undefined;
    this.#failPending(error);
    void session.worker.terminate();
  }

  #endSession(session: Session, error: Error): void {
    session.ended = true;
    session.settleReady.reject(error);
  }

  #failPending(error: Error): void {
    const inFlight = this.#inFlight?.texts ?? [];
    this.#inFlight = undefined;
    const queued = this.#queue.drain();
    for (const { call } of [...inFlight, ...queued]) this.#rejectCall(call, error);
  }

  #rejectCall(call: PendingCall, error: Error): void {
    if (call.settled) return;
    call.settled = true;
    call.reject(error);
  }

  #takeInFlight(id: number): QueuedText[] | undefined {
    if (this.#inFlight?.id !== id) return undefined;
    const { texts } = this.#inFlight;
    this.#inFlight = undefined;
    return texts;
  }

  /** Deferred to the next turn so that calls made in the same tick as the first one join its batch. */
  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  /** Sends the next batch when the worker is ready and idle; keeps the process alive only while there is work. */
  #pump(): void {
    const session = this.#session;
    if (session === undefined || session.ended) return;
    if (session.info !== undefined && this.#inFlight === undefined) {
      const batch = this.#queue.take({
        maxItems: this.#maxBatchSize,
        maxPaddedLength: this.#maxBatchChars,
        length: ({ call, index }) => call.texts[index]?.length ?? 0,
        // Texts of calls that already failed (a crash, an earlier failed batch) are dropped, not embedded.
        skip: ({ call }) => call.settled,
      });
      if (batch.length > 0) {
        const id = this.#nextBatchId++;
        this.#inFlight = { id, texts: batch };
        const message: EmbedRequestMessage = {
          type: 'embed',
          id,
          texts: batch.map(({ call, index }) => call.texts[index] ?? ''),
          kinds: batch.map(({ call }) => call.kind),
        };
        session.worker.postMessage(message);
      }
    }
    // A loading worker or pending work holds the process open; an idle loaded worker must not keep it from exiting.
    if (session.info === undefined || this.#inFlight !== undefined) session.worker.ref();
    else session.worker.unref();
  }
}
