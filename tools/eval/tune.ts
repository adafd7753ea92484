/**
 * Tuning harness: evaluates ranker variants through the real recall pipeline (MemoryService over SQLite) with
 * embeddings from a cache, in seconds per variant. Not the source of the reported figures (`npm run eval` is).
 *
 *   node --import tsx tools/eval/tune.ts --data DIR [--users a,b] [--variants FILE.json]
 *
 * The first run embeds every memory with the real model into `.tmp/eval-embeddings.json` (git-ignored); query texts
 * the cache lacks are embedded on first use. The cache is keyed by text only and holds USE-lite vectors: delete it
 * before tuning for another model. `--variants` is a JSON array of partial RankerParams, evaluated one by one.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { HybridRanker, type RankerParams } from '../../src/core/ranking/hybrid-ranker.js';
import { createEmbedder } from '../../src/embeddings/index.js';
import { CachedEmbedder, cachedService, cachedStore, memoisedStore } from './cached-service.js';
import { loadEvalData } from './dataset.js';
import { EmbedCache } from './embed-cache.js';
import { DEFAULT_MIN_SCORE, evaluate } from './evaluate.js';
import { readOffTopic } from './off-topic.js';
import { serviceRecall } from './service-recall.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    users: { type: 'string' },
    variants: { type: 'string' },
    cache: { type: 'string', default: '.tmp/eval-embeddings.json' },
  },
});
if (values.data === undefined) throw new Error('--data DIR is required');
const data = loadEvalData(values.data);
const cache = new EmbedCache(values.cache);
const missing = data.memories.filter((m) => cache.get(m.text) === undefined);
if (missing.length > 0) {
  const embedder = createEmbedder();
  console.error(`embedding ${missing.length} memories into the cache...`);
  await cache.fill(embedder, missing.map((m) => m.text), 'document', (d, t) => console.error(`  ${d}/${t}`));
  await embedder.close();
}
const store = await cachedStore(data.memories, cache);
const memoised = memoisedStore(store);
const embedder = new CachedEmbedder(cache);
const users = values.users?.split(',');
const variants: Partial<RankerParams>[] =
  values.variants === undefined ? [{}] : (JSON.parse(readFileSync(values.variants, 'utf8')) as Partial<RankerParams>[]);
const offTopic = readOffTopic();

for (const variant of variants) {
  const started = Date.now();
  const service = cachedService(memoised, embedder, new HybridRanker(variant));
  const report = await evaluate(data, serviceRecall(service), { limit: 10, minScore: 0, offTopic, users });
  const overall = report.rows[report.rows.length - 1];
  console.log(
    JSON.stringify({
      variant,
      r5: overall?.recall5.toFixed(3),
      r10: overall?.recall10.toFixed(3),
      mrr: overall?.mrr10.toFixed(3),
      gold: report.atDefaults.anyGold.toFixed(3),
      offEmpty: report.offTopicEmpty.toFixed(3),
      minScore: DEFAULT_MIN_SCORE,
      seconds: (Date.now() - started) / 1000,
    }),
  );
}
await embedder.close();
await store.close();
