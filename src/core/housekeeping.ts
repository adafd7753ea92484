import { errorFields, type Logger } from './logger.js';

/** How often a node prunes each kind of expired row, at most. */
export const PRUNE_INTERVAL_MS = 60_000;
/** Rows per DELETE statement, and statements per run: a backlog drains over a few runs, never in one long one. */
export const PRUNE_BATCH = 1_000;
export const PRUNE_MAX_BATCHES = 10;

export interface ChoreOptions {
  /** Names the chore in log lines. */
  name: string;
  logger: Logger;
  /** Runs at most once per this many milliseconds (default PRUNE_INTERVAL_MS). */
  intervalMs?: number;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

/**
 * Housekeeping that rides on traffic rather than a timer: `poke()`, called by the requests that create what needs
 * cleaning up, starts the task in the background at most once per interval (the first time one interval after the
 * start) and never while a run is still going. The request neither waits for it nor sees its failure: that is
 * logged, and the next interval tries again. A node without traffic does nothing, and makes no rows to clean either.
 */
export class Chore {
  readonly #task: () => Promise<number>;
  readonly #name: string;
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #last: number;
  #running: Promise<void> | undefined;

  /** `task` returns how many rows it removed. */
  constructor(task: () => Promise<number>, options: ChoreOptions) {
    this.#task = task;
    this.#name = options.name;
    this.#logger = options.logger;
    this.#intervalMs = options.intervalMs ?? PRUNE_INTERVAL_MS;
    this.#now = options.now ?? Date.now;
    this.#last = this.#now();
  }

  poke(): void {
    if (this.#running !== undefined || this.#now() - this.#last < this.#intervalMs) return;
    this.#last = this.#now();
    // On a later turn of the event loop: a synchronous backend (SQLite) would otherwise run it inside the request.
    this.#running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#task())
      .then(
        (removed) => {
          if (removed > 0) this.#logger.debug(this.#name, { removed });
        },
        (error: unknown) => this.#logger.warn(`${this.#name} failed; it runs again later`, errorFields(error)),
      )
      .finally(() => {
        this.#running = undefined;
      });
  }

  /** Resolves once the run in flight, if any, has ended. */
  settled(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }
}

/** Calls a bounded delete (`limit` rows at most) until a batch comes back short, PRUNE_MAX_BATCHES times at most. */
export async function pruneInBatches(deleteBatch: (limit: number) => Promise<number>): Promise<number> {
  let removed = 0;
  for (let i = 0; i < PRUNE_MAX_BATCHES; i++) {
    const n = await deleteBatch(PRUNE_BATCH);
    removed += n;
    if (n < PRUNE_BATCH) break;
  }
  return removed;
}
