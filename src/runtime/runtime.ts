import { EmbeddingState } from '../core/embedding-state.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { RateLimiter } from '../core/rate-limit.js';
import { shippedLabelledSets, withoutSets } from '../core/calibration/labelled-sets.js';
import { selfCalibrate, startingRanker } from '../core/calibration/self-calibration.js';
import type { CalibrationStatus } from '../core/ranking/calibrated-ranker.js';
import { resolveCalibration } from '../core/ranking/calibration.js';
import { MemoryService } from '../core/service.js';
import type { MemoryStore } from '../core/store.js';
import { createEmbedder } from '../embeddings/index.js';
import type { Embedder, EmbedderInfo } from '../core/embedder.js';
import { EmbedPool } from '../embeddings/embed-pool.js';
import { EndpointError } from '../embeddings/endpoint.js';
import type { SqliteStore } from '../storage/sqlite/sqlite-store.js';
import { VectorBackfill, type BackfillOptions } from './backfill.js';
import { embedObserver, instrumentService, instrumentStore } from './instrument.js';
import type { Metrics } from './metrics.js';
import { openBackend, type StorageConfig } from './backend.js';
import type { RuntimeConfig } from './config.js';

/** Everything a command needs to serve memories: the store, the model, and the service over both. */
export interface Runtime {
  service: MemoryService;
  store: MemoryStore;
  /** The SQLite store, when that is the backend. */
  sqlite: SqliteStore | undefined;
  /** Where the data lives, safe to print (passwords masked). */
  location: string;
  rateLimiter(perMinute: number): RateLimiter;
  /** Resolves once the model is loaded and the database accepted it; rejects on a model mismatch or load failure. */
  modelReady: Promise<EmbedderInfo>;
  /**
   * Resolves with where the score map comes from once it is settled: at once for a built-in one; for a model
   * without one, after the stored calibration is read or a new one is fitted and stored (self-calibration.ts).
   */
  calibrated: Promise<CalibrationStatus>;
  /** The loop that embeds memories stored while the endpoint was down (servers only: `backfill`). */
  backfill: VectorBackfill | undefined;
  close(): Promise<void>;
}

export type RuntimeOptions = StorageConfig &
  Pick<RuntimeConfig, 'model' | 'modelDir' | 'embedWorkers' | 'modelIdentity' | 'endpoint'> & {
    /** Shipped labelled sets a calibration fitted here leaves out (an evaluation never fits on the set it measures). */
    calibrationExclude?: readonly string[] | undefined;
    /** A server (serve, mcp): an embedding endpoint that is down at start is waited for, not given up on. */
    waitForEndpoint?: boolean | undefined;
    /**
     * A server (serve, mcp): runs the backfill (backfill.ts), which gives a vector to the memories stored while the
     * embedding endpoint was down; settings for tests.
     */
    backfill?: boolean | Omit<BackfillOptions, 'store' | 'embeddings' | 'logger'> | undefined;
  };

/**
 * Opens the database and starts loading the model in the background. The service answers list and delete at
 * once; store and recall wait for the model (bounded) and answer 503 if it cannot load.
 */
export async function openRuntime(config: RuntimeOptions, logger?: Logger, metrics?: Metrics): Promise<Runtime> {
  const backend = await openBackend(config, logger);
  // With metrics, every store call is timed and its errors counted (instrument.ts); the raw store stays behind it.
  const store = metrics ? instrumentStore(backend.store, metrics) : backend.store;
  // The endpoint's misses at start reach the EmbeddingState, made just below (the embedder comes first).
  const waiting: { note(error: EndpointError): void } = { note: () => undefined };
  const embedder = openEmbedder(config, metrics, config.waitForEndpoint === true ? (logger ?? silentLogger) : undefined, (error) =>
    waiting.note(error),
  );
  const modelReady = embedder.ready().then(async (info) => {
    await store.useModel(info);
    return info;
  });
  const embeddings = new EmbeddingState(embedder, modelReady);
  waiting.note = (error) => embeddings.noteWaiting(error);
  // Scores are calibrated per model: a model without a calibration of its own gets one fitted by the service (or
  // the one another node stored), in the background, with a conservative map meanwhile; say so.
  const ranker = startingRanker(resolveCalibration(embedder.model, config.modelDir));
  if (ranker.status === 'pending') {
    logger?.info('no built-in score calibration for this embedding model: the service calibrates it in the background', { model: embedder.model });
  }
  let closed = false;
  const calibrated = selfCalibrate({
    embedder,
    modelReady,
    store,
    ranker,
    data: () => withoutSets(shippedLabelledSets(), config.calibrationExclude ?? []),
    logger,
    stopped: () => closed,
  });
  const service = new MemoryService({ store, embeddings, ranker, ...(logger ? { logger } : {}) });
  const backfill =
    config.backfill === undefined || config.backfill === false
      ? undefined
      : new VectorBackfill({ store, embeddings, logger, ...(config.backfill === true ? {} : config.backfill) });
  // Once the model is ready: before that nothing can be embedded (and a failed model never starts it).
  modelReady.then(() => backfill?.start(), () => undefined);
  metrics?.watchEmbeddingBacklog(() => store.countPendingVectors());
  // With metrics, the service's operations are measured in place (the same instance: instrument.ts says why).
  if (metrics) instrumentService(service, metrics);
  return {
    service,
    store,
    sqlite: backend.sqlite,
    location: backend.location,
    rateLimiter: backend.rateLimiter,
    modelReady,
    calibrated,
    backfill,
    async close() {
      if (closed) return;
      closed = true;
      // The backfill stops first; closing the embedder ends its embedding call in flight, and its claims go back
      // before the store closes.
      const backfillStopped = backfill?.stop();
      await embedder.close().catch(() => undefined);
      await backfillStopped;
      await store.close();
    },
  };
}

/** The configured model (its workers start loading it now), for a runtime or a command that embeds (reembed). */
export function openEmbedder(
  config: Pick<RuntimeConfig, 'model' | 'modelDir' | 'embedWorkers' | 'modelIdentity' | 'endpoint'>,
  metrics?: Metrics,
  /** Given for a server: an endpoint down at start is probed again until it answers, each miss logged. */
  waitingLogger?: Logger,
  /** Told of each miss too (the runtime's EmbeddingState: requests then need not wait for the model). */
  onWaiting?: (error: EndpointError) => void,
): Embedder {
  const endpoint = config.endpoint;
  const embedder = createEmbedder({
    identity: config.modelIdentity,
    keepProbing: waitingLogger
      ? {
          onWaiting: (error) => {
            waitingLogger.warn('the embedding endpoint is not answering: probing again; stores keep memories without their vector, recalls answer on the words', { error: error.message });
            onWaiting?.(error);
          },
        }
      : undefined,
    model: config.model,
    url: endpoint?.url,
    apiKey: endpoint?.apiKey,
    prefixes: endpoint ? { query: endpoint.queryPrefix, document: endpoint.documentPrefix } : undefined,
    onEndpointError: metrics ? (reason) => metrics.embedEndpointError(reason) : undefined,
    modelDir: config.modelDir,
    workers: config.embedWorkers,
    observer: metrics ? embedObserver(metrics) : undefined,
  });
  if (metrics && embedder instanceof EmbedPool) metrics.watchEmbedPool(() => embedder.stats());
  return embedder;
}

/**
 * Resolves with the refusal when the model's endpoint refused the start-up probe (401, 403, an unknown model, a
 * malformed answer): a restart cannot fix that, so `serve` and `mcp` exit non-zero instead of answering 503 for ever.
 * Never resolves otherwise (an endpoint that is down is retried).
 */
export function refusedAtStart(modelReady: Promise<unknown>): Promise<EndpointError> {
  return new Promise((resolve) => {
    modelReady.catch((error: unknown) => {
      if (error instanceof EndpointError && error.fatal) resolve(error);
    });
  });
}

/** Opens only the database, for commands that need no model (keys). */
export async function openStoreOnly(config: StorageConfig): Promise<MemoryStore> {
  return (await openBackend(config)).store;
}
