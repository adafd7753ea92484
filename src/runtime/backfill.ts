/**
 * The backfill: memories stored while the embedding endpoint was down have no vector (they are "pending", found by
 * their words only: core/service.ts). Every server node runs this loop: it claims a batch of pending memories (a
 * lease, so that nodes sharing a PostgreSQL database take different ones: MemoryStore.claimPendingVectors), embeds
 * their texts, and writes each vector only where the memory still holds the text that was embedded (an update
 * meanwhile keeps it pending, for its own vector). While the endpoint stays down it backs off; a node that stops
 * gives its claims back, and a node that dies leaves them to expire.
 */
import type { EmbeddingState } from '../core/embedding-state.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { PendingVector, PendingVectorStore } from '../core/store.js';

export interface BackfillOptions {
  store: PendingVectorStore;
  embeddings: EmbeddingState;
  logger?: Logger | undefined;
  /** Memories per claim and per embedding call (default 32). */
  batchSize?: number | undefined;
  /** How often a node with nothing to do looks again (default 15 s). */
  idleMs?: number | undefined;
  /** The first wait after a failed round (default 2 s), doubled per failure in a row up to `maxBackoffMs` (default 5 min). */
  backoffMs?: number | undefined;
  maxBackoffMs?: number | undefined;
  /** How long a claim keeps other nodes off its memories (default 5 min): longer than an embedding call with its retries. */
  leaseMs?: number | undefined;
}

export interface BackfillRound {
  /** Memories claimed in this round. */
  claimed: number;
  /** Of those, memories that got their vector (the others changed meanwhile, or were deleted). */
  filled: number;
}

const DEFAULTS = { batchSize: 32, idleMs: 15_000, backoffMs: 2_000, maxBackoffMs: 5 * 60_000, leaseMs: 5 * 60_000 } as const;

export class VectorBackfill {
  readonly #store: PendingVectorStore;
  readonly #embeddings: EmbeddingState;
  readonly #logger: Logger;
  readonly #settings: { batchSize: number; idleMs: number; backoffMs: number; maxBackoffMs: number; leaseMs: number };
  #stopped = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** Rounds in flight (the loop's, and any a caller runs): stop() waits for their claims to go back. */
  readonly #rounds = new Set<Promise<BackfillRound>>();

  constructor(options: BackfillOptions) {
    this.#store = options.store;
    this.#embeddings = options.embeddings;
    this.#logger = options.logger ?? silentLogger;
    this.#settings = {
      batchSize: Math.max(1, Math.floor(options.batchSize ?? DEFAULTS.batchSize)),
      idleMs: options.idleMs ?? DEFAULTS.idleMs,
      backoffMs: options.backoffMs ?? DEFAULTS.backoffMs,
      maxBackoffMs: options.maxBackoffMs ?? DEFAULTS.maxBackoffMs,
      leaseMs: options.leaseMs ?? DEFAULTS.leaseMs,
    };
  }

  /** Starts the loop (once); the first round runs at once. */
  start(): void {
    if (this.#loop !== undefined || this.#stopped) return;
    this.#loop = this.#run();
  }

  /** Ends the wait before the next round (a memory was just stored pending, or a test wants a round now). */
  poke(): void {
    this.#wake?.();
  }

  /**
   * Stops the loop: no new round starts, and the claims of a round in flight are given back once its embedding call
   * ends (the runtime closes the embedder next, which ends it at once). Resolves when the loop has ended.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.poke();
    await this.#loop;
    await Promise.allSettled(this.#rounds);
  }

  /**
   * One round: claims a batch, embeds it and writes the vectors. Returns what it did; throws when the model cannot
   * embed now (the claims are given back first, so any node may take them when the endpoint is back).
   */
  runOnce(): Promise<BackfillRound> {
    const round = this.#round();
    this.#rounds.add(round);
    const done = (): void => void this.#rounds.delete(round);
    round.then(done, done);
    return round;
  }

  async #round(): Promise<BackfillRound> {
    if (this.#embeddings.status !== 'ready') return { claimed: 0, filled: 0 };
    const batch = await this.#store.claimPendingVectors(this.#settings.batchSize, this.#settings.leaseMs);
    if (batch.length === 0) return { claimed: 0, filled: 0 };
    try {
      const vectors = await this.#embeddings.embed(
        batch.map((m) => m.text),
        'document',
        'backfill',
      );
      // Stopping mid-batch: the vectors are written if they came (a short transaction), else the claims go back.
      const filled = await this.#store.fillPendingVectors(
        batch.flatMap((memory: PendingVector, i) => {
          const embedding = vectors[i];
          return embedding ? [{ ...memory, embedding }] : [];
        }),
      );
      return { claimed: batch.length, filled };
    } finally {
      // Filled claims are cleared by the fill itself; the rest (a text changed meanwhile, a failure) go back.
      await this.#store.releasePendingVectors(batch.map((m) => m.id)).catch((error: unknown) =>
        this.#logger.warn('the backfill could not give its claims back: they expire', { error: (error as Error).message }),
      );
    }
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#stopped) {
      let wait: number;
      try {
        const round = await this.runOnce();
        if (failures > 0 && round.claimed > 0) this.#logger.info('the backfill is embedding pending memories again');
        failures = 0;
        // A full batch: there is probably more; go on at once.
        wait = round.claimed === this.#settings.batchSize ? 0 : this.#settings.idleMs;
      } catch (error) {
        if (this.#stopped) break;
        failures++;
        wait = Math.min(this.#settings.maxBackoffMs, this.#settings.backoffMs * 2 ** (failures - 1));
        // Once per outage, then at the longest wait: the endpoint being down is logged by the embedder already.
        if (failures === 1 || wait === this.#settings.maxBackoffMs) {
          this.#logger.warn('the backfill could not embed pending memories: it tries again later', {
            error: (error as Error).message,
            cause: (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : undefined,
            retryInSeconds: Math.round(wait / 1000),
          });
        }
      }
      if (wait > 0 && !this.#stopped) await this.#sleep(wait);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    }).finally(() => (this.#wake = undefined));
  }
}
