import { reembed } from '../../core/reembed.js';
import { sqliteFileMissing } from '../storage-checks.js';
import type { RuntimeConfig } from '../../runtime/config.js';
import type { Output } from '../../runtime/output.js';
import { createProgress, formatCount } from '../progress.js';
import { openEmbedder, openStoreOnly } from '../../runtime/runtime.js';

/**
 * `agent-memory reembed --model NAME`: rebuilds every vector with the configured model, on SQLite or PostgreSQL
 * (core/reembed.ts). Nodes still running the old model are refused at their next start.
 */
export async function reembedCommand(config: RuntimeConfig, out: Output, options: { force?: boolean } = {}): Promise<number> {
  if (sqliteFileMissing(config)) {
    out.notice(`agent-memory reembed: no database at ${config.dbPath}.`);
    return 1;
  }
  const store = await openStoreOnly(config);
  // Rebuilding every vector with the model that made them is hours of work for nothing, unless the model's files
  // changed under the same name, or a PostgreSQL database keeping plain vectors moves onto pgvector: that takes --force.
  const current = await store.getModel();
  if (current?.model === config.model && options.force !== true) {
    await store.close();
    out.notice(
      `agent-memory reembed: the vectors were already made with "${config.model}"; nothing to do. Name another ` +
        'model with --model, or add --force to rebuild them with the same one (after its files changed, or to move ' +
        'a PostgreSQL database from plain vectors onto pgvector).',
    );
    return 1;
  }
  const embedder = openEmbedder(config);
  const progress = createProgress({ label: 'reembed' });
  try {
    const started = performance.now();
    const result = await reembed(store, embedder, { onProgress: (p) => progress.update(p) });
    progress.done();
    out.notice(
      `Re-embedded ${formatCount(result.memories)} memories with "${result.to}" (${result.dimension} dimensions)` +
        `${result.from ? `, replacing "${result.from}"` : ''} in ${((performance.now() - started) / 1000).toFixed(1)} s` +
        `${result.late > 0 ? ` (${formatCount(result.late)} stored meanwhile were embedded in the swap)` : ''}.`,
    );
    return 0;
  } finally {
    progress.done();
    await embedder.close();
    await store.close();
  }
}
