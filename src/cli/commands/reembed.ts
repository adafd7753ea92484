import { createEmbedder } from '../../embeddings/index.js';
import { reembed } from '../../storage/sqlite/reembed.js';
import type { RuntimeConfig } from '../config.js';
import type { Output } from '../output.js';
import { SqliteStore } from '../../storage/sqlite/sqlite-store.js';
import { requireSqlite } from '../backend.js';

/** `agent-memory reembed --model NAME`: rebuilds every vector with the configured model. */
export async function reembedCommand(config: RuntimeConfig, out: Output): Promise<number> {
  requireSqlite(config, 'reembed', '`agent-memory copy` into a new SQLite file, reembed there, and copy back');
  const store = SqliteStore.open({ path: config.dbPath });
  const embedder = createEmbedder({ model: config.model, modelDir: config.modelDir });
  try {
    const started = Date.now();
    let lastReport = 0;
    const result = await reembed(store.database, embedder, {
      onProgress: ({ done, total }) => {
        if (Date.now() - lastReport < 1000 && done < total) return;
        lastReport = Date.now();
        out.notice(`re-embedding: ${done}/${total}`);
      },
    });
    out.notice(
      `Re-embedded ${result.memories} memories with "${result.to}" (${result.dimension} dimensions)` +
        `${result.from ? `, replacing "${result.from}"` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
    );
    return 0;
  } finally {
    await embedder.close();
    await store.close();
  }
}
