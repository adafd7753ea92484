import { EmbeddingState } from '../core/embedding-state.js';
import type { Logger } from '../core/logger.js';
import { HybridRanker } from '../core/ranking/hybrid-ranker.js';
import { MemoryService } from '../core/service.js';
import type { EmbedderInfo } from '../embeddings/types.js';
import { createEmbedder } from '../embeddings/index.js';
import { SqliteStore } from '../storage/sqlite/sqlite-store.js';
import type { RuntimeConfig } from './config.js';

/** Everything a command needs to serve memories: the store, the model, and the service over both. */
export interface Runtime {
  service: MemoryService;
  store: SqliteStore;
  /** Resolves once the model is loaded and the database accepted it; rejects on a model mismatch or load failure. */
  modelReady: Promise<EmbedderInfo>;
  close(): Promise<void>;
}

/**
 * Opens the database and starts loading the model in the background. The service answers list and delete at
 * once; store and recall wait for the model (bounded) and answer 503 if it cannot load.
 */
export function openRuntime(config: Pick<RuntimeConfig, 'dbPath' | 'model' | 'modelDir'>, _logger?: Logger): Runtime {
  const store = SqliteStore.open({ path: config.dbPath });
  const embedder = createEmbedder({ model: config.model, modelDir: config.modelDir });
  const modelReady = embedder.ready().then(async (info) => {
    await store.useModel(info);
    return info;
  });
  const embeddings = new EmbeddingState(embedder, modelReady);
  const service = new MemoryService({ store, embeddings, ranker: new HybridRanker() });
  let closed = false;
  return {
    service,
    store,
    modelReady,
    async close() {
      if (closed) return;
      closed = true;
      await embedder.close().catch(() => undefined);
      await store.close();
    },
  };
}

/** Opens only the database, for commands that need no model (keys, backup). */
export function openStoreOnly(config: Pick<RuntimeConfig, 'dbPath'>): SqliteStore {
  return SqliteStore.open({ path: config.dbPath });
}
