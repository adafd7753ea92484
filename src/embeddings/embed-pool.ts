/**
 * A pool of embedding worker threads sharing one fair queue: `embed()` calls are queued (fair-queue.ts: queries
 * first, callers in turn, batches bounded by padded length), and every idle worker takes the next batch, so N
 * workers embed N batches at once. Each worker loads its own copy of the model (USE-lite: about 60 MiB each) and
 * runs single-threaded, so the pool scales with the cores up to the point where the cores are busy.
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
 *   calls go on with the other workers, or reject as well when no other worker is left; the next `ready()`/`embed()`
 *   starts a fresh worker in its place (which loads the model again);
 * - `close()`: pending calls reject, the workers are terminated, later calls reject.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { chunkTexts, DEFAULT_CHUNK_CHARS } from './chunks.js';
import type { EmbedRequestMessage, EmbedWorkerData, EmbedWorkerMessage, ProviderName } from './protocol.js';
import { errorMessage } from './protocol.js';
import { FairQueue } from './fair-queue.js';
import type { EmbedKind, Embedder, EmbedderInfo } from '../core/embedder.js';

export interface EmbedPoolOptions {
  model: string;
  provider: ProviderName;
  modelDir?: string | undefined;
  /** Worker threads, each with its own copy of the model (default 1). */
  workers?: number | undefined;
  /** Most texts in one model call (default 32): bigger batches amortise more but pad to the longest text. */
  maxBatchSize?: number | undefined;
  /** Most characters in one model call, counted padded (texts x the longest); default 32 x 500. */
  maxBatchChars?: number | undefined;
  /** Longer texts are embedded in chunks of at most this many characters (default 2,000; see chunks.ts). */
  maxChunkChars?: number | undefined;
  /** Starts one worker thread. */
  spawn: (data: EmbedWorkerData) => Worker;
}

export const DEFAULT_MAX_BATCH_SIZE = 32;
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
}

export class EmbedPool implements Embedder {
  readonly model: string;
  /** How many workers the pool runs. */
  readonly size: number;
  readonly #options: EmbedPoolOptions;
  readonly #maxBatchSize: number;
  readonly #maxBatchChars: number;
  readonly #maxChunkChars: number;
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
    this.#slots = new Array<Session | undefined>(this.size).fill(undefined);
    this.#maxBatchSize = Math.max(1, Math.floor(options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE));
    this.#maxBatchChars = Math.max(1, Math.floor(options.maxBatchChars ?? DEFAULT_MAX_BATCH_CHARS));
    this.#maxChunkChars = Math.max(1, Math.floor(options.maxChunkChars ?? DEFAULT_CHUNK_CHARS));
  }

  /** Resolves once every worker has loaded the model. */
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

  #live(): Session[] {
    return this.#slots.filter((session): session is Session => session !== undefined);
  }

  /** Every slot's session, starting a worker in each empty slot (first use, or after a crash). */
  #start(): Session[] {
    for (let slot = 0; slot < this.#slots.length; slot++) {
      if (this.#slots[slot] === undefined) this.#slots[slot] = this.#spawn(slot);
    }
    return this.#live();
  }

  #spawn(slot: number): Session {
    let worker: Worker;
    try {
      worker = this.#options.spawn({ provider: this.#options.provider, model: this.model, modelDir: this.#options.modelDir });
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
    const session: Session = { worker, ready, info: undefined, settleReady, inFlight: undefined, ended: false, crash: undefined };
    worker.on('message', (message: EmbedWorkerMessage) => this.#onMessage(session, message));
    worker.on('error', (error: Error) => {
      session.crash = error;
    });
    worker.on('exit', (code: number) => this.#onExit(session, slot, code));
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

  #endSession(session: Session, error: Error): void {
    session.ended = true;
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

  /** Gives every idle loaded worker its share of the queue; keeps the process alive only while there is work. */
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
      const message: EmbedRequestMessage = {
        type: 'embed',
        id,
        texts: batch.map(({ call, index }) => call.texts[index] ?? ''),
        kinds: batch.map(({ call }) => call.kind),
      };
      session.worker.postMessage(message);
    });
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
