import type { Embedder, EmbedderInfo } from './embedder.js';
import { MemoryError } from './errors.js';

/**
 * Tracks the embedding model's readiness so that a request never hangs on a model that is still loading for too
 * long or that failed: it waits up to `waitMs` for a loading model, then answers 503 `unavailable`.
 */
export class EmbeddingState {
  #status: 'loading' | 'ready' | 'failed' = 'loading';
  #failure: string | undefined;
  /** The endpoint's last miss while the model's start-up probe is repeated (noteWaiting); gone once ready. */
  #waiting: Error | undefined;
  /** Requests waiting for a loading model: told when the endpoint's probe misses (noteWaiting). */
  readonly #waiters = new Set<(error: MemoryError) => void>();
  readonly #ready: Promise<EmbedderInfo>;

  constructor(
    readonly embedder: Embedder,
    ready: Promise<EmbedderInfo>,
    private readonly waitMs = 30_000,
  ) {
    this.#ready = ready.then(
      (info) => {
        this.#status = 'ready';
        this.#waiting = undefined;
        return info;
      },
      (error: unknown) => {
        this.#status = 'failed';
        this.#failure = error instanceof Error ? error.message : String(error);
        throw error;
      },
    );
    // The failure is reported through status and requests; an unobserved rejection must not crash the process.
    this.#ready.catch(() => undefined);
  }

  get status(): 'loading' | 'ready' | 'failed' {
    return this.#status;
  }

  get failure(): string | undefined {
    return this.#failure;
  }

  /**
   * The model's endpoint did not answer its start-up probe, which is repeated (runtime.ts): until it answers, a
   * request fails at once with this error as its cause instead of waiting for the model, so that a store keeps the
   * memory pending and a recall answers on the words (core/service.ts).
   */
  noteWaiting(error: Error): void {
    if (this.#status !== 'loading') return;
    this.#waiting = error;
    // Requests already waiting for the model stop waiting too.
    for (const stop of this.#waiters) stop(this.#notAnswering(error));
    this.#waiters.clear();
  }

  async whenReady(): Promise<void> {
    if (this.#status === 'ready') return;
    if (this.#status === 'failed') throw this.#unavailable();
    if (this.#waiting !== undefined) throw this.#notAnswering(this.#waiting);
    let timer: NodeJS.Timeout | undefined;
    let stop: ((error: MemoryError) => void) | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new MemoryError('unavailable', 'The embedding model is still loading; retry shortly.', { retryAfterSeconds: 5 })),
        this.waitMs,
      );
      stop = reject;
      this.#waiters.add(reject);
    });
    try {
      await Promise.race([this.#ready, timeout]);
    } catch (error) {
      if (error instanceof MemoryError) throw error;
      throw this.#unavailable();
    } finally {
      clearTimeout(timer);
      if (stop) this.#waiters.delete(stop);
    }
  }

  #notAnswering(cause: Error): MemoryError {
    return new MemoryError('unavailable', 'The embedding endpoint is not answering yet; retry shortly.', { retryAfterSeconds: 5, cause });
  }

  /**
   * Once the model is ready, the texts reach the embedder in this very turn (no await before it): recall counts on
   * that to run its word search while the model works. `caller` (an API key id) is whom the model is shared
   * fairly between.
   */
  embed(texts: string[], kind: 'query' | 'document', caller?: string): Promise<Float32Array[]> {
    const run = (): Promise<Float32Array[]> =>
      this.embedder.embed(texts, kind, caller).catch((error: unknown) => {
        throw new MemoryError('unavailable', 'The embedding model failed to process the text; retry shortly.', {
          retryAfterSeconds: 5,
          cause: error,
        });
      });
    return this.#status === 'ready' ? run() : this.whenReady().then(run);
  }

  /** The reason stays in the server's log (it may name local paths); clients learn only what happened. */
  #unavailable(): MemoryError {
    return new MemoryError('unavailable', 'The embedding model could not be loaded; the server log says why.', {
      retryAfterSeconds: 30,
    });
  }
}
