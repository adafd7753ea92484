/**
 * A pool of embedding worker threads sharing one fair queue: `embed()` calls are queued (fair-queue.ts: queries
 * first, callers in turn, batches bounded by padded length), and every idle worker takes the next batch, so N
 * workers embed N batches at once. Each worker loads its own copy of the model (USE-lite: see the README for the
 * resident memory a worker costs), and gets its share of the cores as threads for the model library (threads.ts).
 *
 * Elastic: `workers` is an upper bound. The pool starts `minWorkers` (default 1) and starts more whenever texts
 * wait that the idle workers cannot take (more of them than workers still loading, each counted as taking one), up to
 * `workers`; a worker idle for `idleMs` (default a minute) is stopped, down to `minWorkers`. So a quiet server holds
 * one model copy, and a busy one as many as it was allowed.
 *
 * Batching: a worker takes at most `maxBatchSize` texts, and no more than its share of what is waiting (queued
 * texts / idle workers), so that 64 texts go to two workers as 2 x 32, not 64 to one while the other idles. Calls
 * that arrive in the same tick join the same batch. A call's texts are queued shortest first, so a batch holds
 * texts of similar lengths (models that pad a batch to its longest text waste less).
 *
 * Long texts are split into chunks embedded as separate items and put back together (chunks.ts).
 *
 * Failures:
 * - a worker cannot load the model (missing files, unreachable hub, dying while loading): `ready()` and every
 *   pending and later `embed()` reject with that error; it is permanent for this pool (create a new one to retry);
 * - a worker crashes after loading: the calls with a text in its batch reject with a "crashed" error; the queued
 *   calls go on with the other workers, or reject as well when no other worker is left; a fresh worker (which loads
 *   the model again) is started in its place as soon as texts wait or by the next `ready()`/`embed()`;
 * - `close()`: pending calls reject, the workers are terminated, later calls reject.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { threadsPerWorker } from './threads.js';
import { chunkTexts, DEFAULT_CHUNK_CHARS } from './chunks.js';
import type { EmbedRequestMessage, EmbedWorkerData, EmbedWorkerMessage, ProviderName } from './protocol.js';
import { errorMessage } from './protocol.js';
import { FairQueue } from './fair-queue.js';
import type { EmbedKind, Embedder, EmbedderInfo } from '../core/embedder.js';

export interface EmbedPoolOptions {
  model: string;
  provider: ProviderName;
  modelDir?: string | undefined;
  /** Most worker threads, each with its own copy of the model (default 1). */
  workers?: number | undefined;
  /** Workers started at once and kept when idle (default 1, at most `workers`). */
  minWorkers?: number | undefined;
  /** A worker idle this long is stopped while more than `minWorkers` run (default 60,000 ms). */
  idleMs?: number | undefined;
  /** Cores the workers share out as model threads (default: the cores this process may use). */
  cores?: number | undefined;
  /** Told of every finished call, for metrics. */
  observer?: EmbedPoolObserver | undefined;
  /** Most texts in one model call (default 32): bigger batches amortise more but pad to the longest text. */
  maxBatchSize?: number | undefined;
  /** Most characters in one model call, counted padded (texts x the longest); default 32 x 500. */
  maxBatchChars?: number | undefined;
  /** Longer texts are embedded in chunks of at most this many characters (default 2,000; see chunks.ts). */
  maxChunkChars?: number | undefined;
  /** Starts one worker thread. */
  spawn: (data: EmbedWorkerData) => Worker;
}

/** What the pool tells about its calls, for metrics. */
export interface EmbedPoolObserver {
  /**
   * Called as a call is queued, in the caller's async context; the function it returns is called once the call
   * resolves, with the seconds its first text waited in the queue and then the seconds until its last vector came.
   */
  begin(kind: EmbedKind): (queueSeconds: number, modelSeconds: number) => void;
}

/** The pool at one moment, for metrics. */
export interface EmbedPoolStats {
  /** Texts waiting for a worker. */
  queued: number;
  /** Per slot (0 .. workers - 1): texts in the batch that worker is embedding (0 when idle or not running). */
  inFlight: number[];
  /** Workers running (loaded or loading) and, of them, loading. */
  running: number;
  loading: number;
}

export const DEFAULT_MAX_BATCH_SIZE = 32;
export const DEFAULT_IDLE_MS = 60_000;
/** 32 texts of an ordinary length, or a single 16,000-character text: a batch stays well under a second. */
export const DEFAULT_MAX_BATCH_CHARS = 32 * 500;
/** Beyond this each further worker costs memory (a model copy each) for little: requests also need the cores. */
export const MAX_DEFAULT_WORKERS = 8;
/** The caller of `embed` calls that name none. */
const ANONYMOUS = 'anonymous';

/** The default pool size: one worker per core the process may use, at most MAX_DEFAULT_WORKERS. */
export function defaultWorkerCount(): number {
  return Math.max(1, Math.min(MAX_DEFAULT_WORKERS, availableParallelism()));
}

/** One `embed()` call's pieces (texts or their chunks); they may be spread over several batches and workers. */
interface PendingCall {
  readonly texts: readonly string[];
  readonly kind: EmbedKind;
  /** performance.now() when queued, and when its first text went to a worker. */
  readonly queuedAt: number;
  startedAt: number | undefined;
  /** The observer's callback for this call, if there is an observer. */
  readonly observed: ((queueSeconds: number, modelSeconds: number) => void) | undefined;
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

/** One worker thread, its loading state and the batch it is embedding. A crash or a close ends it. */
interface Session {
  worker: Worker;
  ready: Promise<EmbedderInfo>;
  info: EmbedderInfo | undefined;
  settleReady: { resolve(info: EmbedderInfo): void; reject(error: Error): void };
  inFlight: { id: number; texts: QueuedText[] } | undefined;
  /** Set once this session is over (exited, failed, closed); its late events are ignored. */
  ended: boolean;
  /** The worker's uncaught error, reported by the 'error' event just before 'exit'. */
  crash: Error | undefined;
  /** Stops this worker once it has been idle for `idleMs`; set while it is idle and the pool could shrink. */
  idleTimer: ReturnType<typeof setTimeout> | undefined;
}

export class EmbedPool implements Embedder {
  readonly model: string;
  /** The most workers the pool runs. */
  readonly size: number;
  /** Workers started at once and kept when idle. */
  readonly minWorkers: number;
  /** Threads each worker's model library may use: the cores shared among `size` workers (threads.ts). */
  readonly threadsPerWorker: number;
  /** Threads the model library reported it uses, from the latest worker to load (undefined before one has). */
  reportedThreads: number | undefined;
  readonly #options: EmbedPoolOptions;
  readonly #maxBatchSize: number;
  readonly #maxBatchChars: number;
  readonly #maxChunkChars: number;
  readonly #idleMs: number;
  /** One slot per worker; undefined until started, and again after a crash until the next call. */
  readonly #slots: Array<Session | undefined>;
  #loadFailure: Error | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly #queue = new FairQueue<QueuedText>();
  #nextBatchId = 1;
  #pumpScheduled = false;

  constructor(options: EmbedPoolOptions) {
    this.model = options.model;
    this.#options = options;
    this.size = Math.max(1, Math.floor(options.workers ?? 1));
    this.minWorkers = Math.min(this.size, Math.max(1, Math.floor(options.minWorkers ?? 1)));
    this.threadsPerWorker = threadsPerWorker(options.cores ?? availableParallelism(), this.size);
    this.reportedThreads = undefined;
    this.#idleMs = Math.max(1, options.idleMs ?? DEFAULT_IDLE_MS);
    this.#slots = new Array<Session | undefined>(this.size).fill(undefined);
    this.#maxBatchSize = Math.max(1, Math.floor(options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE));
    this.#maxBatchChars = Math.max(1, Math.floor(options.maxBatchChars ?? DEFAULT_MAX_BATCH_CHARS));
    this.#maxChunkChars = Math.max(1, Math.floor(options.maxChunkChars ?? DEFAULT_CHUNK_CHARS));
  }

  /** Resolves once the workers to start with (`minWorkers`) have loaded the model. */
  ready(): Promise<EmbedderInfo> {
    if (this.#closed) return Promise.reject(this.#closedError());
    if (this.#loadFailure) return Promise.reject(this.#loadFailure);
    try {
      return Promise.all(this.#start().map((session) => session.ready)).then((infos) => infos[0] as EmbedderInfo);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Starts loading the model if nothing has yet, waits for it, then embeds; see the file comment for failures.
   * `caller` (an API key) is whom the queue is fair between.
   */
  async embed(texts: readonly string[], kind: EmbedKind, caller: string = ANONYMOUS): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const plan = chunkTexts(texts, this.#maxChunkChars);
    return plan.combine(await this.#embedPieces(plan.pieces, kind, caller));
  }

  #embedPieces(texts: readonly string[], kind: EmbedKind, caller: string): Promise<Float32Array[]> {
    if (this.#closed) return Promise.reject(this.#closedError());
    if (this.#loadFailure) return Promise.reject(this.#loadFailure);
    try {
      this.#start();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise<Float32Array[]>((resolve, reject) => {
      const call: PendingCall = {
        texts: [...texts],
        kind,
        queuedAt: performance.now(),
        startedAt: undefined,
        observed: this.#options.observer?.begin(kind),
        vectors: new Array<Float32Array>(texts.length),
        remaining: texts.length,
        settled: false,
        resolve,
        reject,
      };
      // Shortest first: consecutive items of one caller then make batches of similar lengths.
      const order = texts.map((_, index) => index).sort((a, b) => (texts[a]?.length ?? 0) - (texts[b]?.length ?? 0));
      for (const index of order) this.#queue.push(caller, kind, { call, index });
      this.#schedulePump();
    });
  }

  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    const error = this.#closedError();
    const sessions = this.#live();
    this.#slots.fill(undefined);
    this.#failPending(sessions, error);
    for (const session of sessions) this.#endSession(session, error);
    this.#closing = Promise.all(sessions.map((session) => session.worker.terminate())).then(() => undefined);
    return this.#closing;
  }

  #closedError(): Error {
    return new Error(`The embedder for model "${this.model}" is closed`);
  }

  /** The pool now: queue depth, each worker's batch, workers running and loading. */
  stats(): EmbedPoolStats {
    const live = this.#live();
    return {
      queued: this.#queue.size,
      inFlight: this.#slots.map((session) => session?.inFlight?.texts.length ?? 0),
      running: live.length,
      loading: live.filter((session) => session.info === undefined).length,
    };
  }

  #live(): Session[] {
    return this.#slots.filter((session): session is Session => session !== undefined);
  }

  /** The running sessions, first starting workers up to `minWorkers` (first use, or after crashes or a shrink). */
  #start(): Session[] {
    let missing = this.minWorkers - this.#live().length;
    for (let slot = 0; slot < this.#slots.length && missing > 0; slot++) {
      if (this.#slots[slot] !== undefined) continue;
      this.#slots[slot] = this.#spawn(slot);
      missing -= 1;
    }
    return this.#live();
  }

  /**
   * Starts workers while texts wait that the workers still loading will not take. A loading worker is counted as
   * taking one text, not a full batch: a worker takes its share of the queue (#pump), so concurrent single calls
   * (stores over HTTP from several clients) spread over workers instead of piling into one batch while the pool grows
   * one worker at a time (the 16-core bench: 8 clients reached 4.1x one worker with 8 elastic workers, 8.1x fixed).
   */
  #grow(): void {
    for (;;) {
      const live = this.#live();
      if (live.length >= this.size || this.#queue.size === 0) return;
      const loading = live.filter((session) => session.info === undefined).length;
      if (this.#queue.size <= loading) return;
      const slot = this.#slots.indexOf(undefined);
      if (slot === -1) return;
      try {
        this.#slots[slot] = this.#spawn(slot);
      } catch (error) {
        // The worker could not start: as permanent as at first use; what waits is rejected.
        this.#failLoad(error instanceof Error ? error : new Error(String(error)));
        return;
      }
    }
  }

  /** Stops a worker that stayed idle, unless the pool is at its minimum or the worker found work meanwhile. */
  #retire(session: Session, slot: number): void {
    session.idleTimer = undefined;
    if (session.ended || session.inFlight !== undefined || this.#slots[slot] !== session) return;
    if (this.#live().length <= this.minWorkers) return;
    this.#slots[slot] = undefined;
    // Nothing is in flight, so nobody is told; its exit is ignored like any ended session's.
    session.ended = true;
    void session.worker.terminate();
  }

  #spawn(slot: number): Session {
    let worker: Worker;
    try {
      worker = this.#options.spawn({
        provider: this.#options.provider,
        model: this.model,
        modelDir: this.#options.modelDir,
        threads: this.threadsPerWorker,
      });
    } catch (error) {
      // E.g. running from TypeScript sources without tsx installed: as permanent as any other load failure.
      const reason = errorMessage(error);
      this.#loadFailure = new Error(`Could not load embedding model "${this.model}": the worker could not start (${reason})`);
      for (const session of this.#live()) void session.worker.terminate();
      throw this.#loadFailure;
    }
    let settleReady: Session['settleReady'] | undefined;
    const ready = new Promise<EmbedderInfo>((resolve, reject) => {
      settleReady = { resolve, reject };
    });
    // Nobody may be listening (embed() alone started the worker); the failure still reaches callers through embed().
    ready.catch(() => undefined);
    if (settleReady === undefined) throw new Error('unreachable: Promise executor runs synchronously');
    const session: Session = {
      worker,
      ready,
      info: undefined,
      settleReady,
      inFlight: undefined,
      ended: false,
      crash: undefined,
      idleTimer: undefined,
    };
    worker.on('message', (message: EmbedWorkerMessage) => this.#onMessage(session, slot, message));
    worker.on('error', (error: Error) => {
      session.crash = error;
    });
    worker.on('exit', (code: number) => this.#onExit(session, slot, code));
    return session;
  }

  #onMessage(session: Session, slot: number, message: EmbedWorkerMessage): void {
    if (session.ended) return;
    switch (message.type) {
      case 'ready': {
        session.info = { model: this.model, dimension: message.dimension };
        this.reportedThreads = message.threads;
        session.settleReady.resolve(session.info);
        this.#pump();
        return;
      }
      case 'load-error': {
        this.#failLoad(new Error(`Could not load embedding model "${this.model}": ${message.message}`));
        return;
      }
      case 'result': {
        const batch = takeInFlight(session, message.id);
        if (batch === undefined) return;
        const { dimension, vectors } = message;
        batch.forEach(({ call, index }, i) => {
          if (call.settled) return;
          call.vectors[index] = vectors.slice(i * dimension, (i + 1) * dimension);
          call.remaining -= 1;
          if (call.remaining === 0) {
            call.settled = true;
            this.#observe(call);
            call.resolve(call.vectors);
          }
        });
        this.#pump();
        return;
      }
      case 'error': {
        const batch = takeInFlight(session, message.id);
        if (batch === undefined) return;
        // The texts of a failed batch cannot be told apart, so every call with a text in it fails.
        const error = new Error(`Embedding with model "${this.model}" failed: ${message.message}`);
        for (const { call } of batch) rejectCall(call, error);
        this.#pump();
        return;
      }
    }
  }

  #onExit(session: Session, slot: number, code: number): void {
    if (session.ended) return;
    const reason = session.crash ? errorMessage(session.crash) : `exit code ${code}`;
    if (session.info === undefined) {
      // Dying while loading is almost always deterministic (a missing file, a broken install): restarting would loop.
      this.#failLoad(new Error(`Could not load embedding model "${this.model}": the worker stopped (${reason})`));
      return;
    }
    const error = new Error(`The embedding worker for model "${this.model}" crashed (${reason}); the next request restarts it`);
    this.#endSession(session, error);
    if (this.#slots[slot] === session) this.#slots[slot] = undefined;
    for (const { call } of session.inFlight?.texts ?? []) rejectCall(call, error);
    session.inFlight = undefined;
    // The queue waits for the other workers; with none left, nothing would ever take it.
    if (this.#live().length === 0) this.#failPending([], error);
    else this.#pump();
  }

  /** A worker could not load the model: the pool fails for good (a retry would fail the same way). */
  #failLoad(error: Error): void {
    this.#loadFailure = error;
    const sessions = this.#live();
    this.#slots.fill(undefined);
    this.#failPending(sessions, error);
    for (const session of sessions) {
      this.#endSession(session, error);
      void session.worker.terminate();
    }
  }

  #observe(call: PendingCall): void {
    if (call.observed === undefined || call.startedAt === undefined) return;
    call.observed((call.startedAt - call.queuedAt) / 1000, (performance.now() - call.startedAt) / 1000);
  }

  #endSession(session: Session, error: Error): void {
    session.ended = true;
    clearTimeout(session.idleTimer);
    session.idleTimer = undefined;
    session.settleReady.reject(error);
  }

  /** Rejects every queued call and every call in the batches of `sessions`. */
  #failPending(sessions: readonly Session[], error: Error): void {
    const inFlight = sessions.flatMap((session) => {
      const texts = session.inFlight?.texts ?? [];
      session.inFlight = undefined;
      return texts;
    });
    for (const { call } of [...inFlight, ...this.#queue.drain()]) rejectCall(call, error);
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

  /**
   * Gives every idle loaded worker its share of the queue, grows the pool when texts are left waiting, arms the idle
   * timers of workers left without work; keeps the process alive only while there is work.
   */
  #pump(): void {
    const idle = this.#live().filter((session) => !session.ended && session.info !== undefined && session.inFlight === undefined);
    idle.forEach((session, i) => {
      const share = Math.ceil(this.#queue.size / (idle.length - i));
      const batch = this.#queue.take({
        maxItems: Math.max(1, Math.min(this.#maxBatchSize, share)),
        maxPaddedLength: this.#maxBatchChars,
        length: ({ call, index }) => call.texts[index]?.length ?? 0,
        // Texts of calls that already failed (a crash, an earlier failed batch) are dropped, not embedded.
        skip: ({ call }) => call.settled,
      });
      if (batch.length === 0) return;
      const id = this.#nextBatchId++;
      session.inFlight = { id, texts: batch };
      clearTimeout(session.idleTimer);
      session.idleTimer = undefined;
      const now = performance.now();
      for (const { call } of batch) call.startedAt ??= now;
      const message: EmbedRequestMessage = {
        type: 'embed',
        id,
        texts: batch.map(({ call, index }) => call.texts[index] ?? ''),
        kinds: batch.map(({ call }) => call.kind),
      };
      session.worker.postMessage(message);
    });
    this.#grow();
    const live = this.#live();
    if (live.length > this.minWorkers) {
      this.#slots.forEach((session, slot) => {
        if (session === undefined || session.info === undefined || session.inFlight !== undefined || session.idleTimer !== undefined) return;
        session.idleTimer = setTimeout(() => this.#retire(session, slot), this.#idleMs);
        session.idleTimer.unref();
      });
    }
    // A loading worker or pending work holds the process open; an idle loaded worker must not keep it from exiting.
    for (const session of this.#live()) {
      if (session.info === undefined || session.inFlight !== undefined) session.worker.ref();
      else session.worker.unref();
    }
  }
}

function takeInFlight(session: Session, id: number): QueuedText[] | undefined {
  if (session.inFlight?.id !== id) return undefined;
  const { texts } = session.inFlight;
  session.inFlight = undefined;
  return texts;
}

function rejectCall(call: PendingCall, error: Error): void {
  if (call.settled) return;
  call.settled = true;
  call.reject(error);
}
