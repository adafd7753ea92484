/**
 * Tuning harness: evaluates ranker variants through the real recall pipeline (MemoryService over SQLite) with
 * embeddings from a cache, on every set of the suite at once but the check-only ones (`checkOnly` in a set's set.json: `chat-check` and `chat-check-N`), in seconds per variant. Not the source of the
 * reported figures (`npm run eval` is: it stores through the real service).
 *
 *   node --import tsx tools/eval/tune.ts [--data DIR[,DIR...]] [--variants FILE.json] [--max-users N]
 *
 * The first run embeds every memory with the real model into `.tmp/eval-embeddings.json` (git-ignored); query texts
 * the cache lacks are embedded on first use. The cache is keyed by text only and holds USE-lite vectors: delete it
 * before tuning for another model. `--variants` is a JSON array of partial RankerParams, evaluated one by one.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { HybridRanker, type RankerParams } from '../../src/core/ranking/hybrid-ranker.js';
import { CachedEmbedder, cachedService } from './cached-service.js';
import { loadCachedSets } from './cached-sets.js';
import { EmbedCache } from './embed-cache.js';
import { evaluate, suiteMarkdown, suiteRows, type SuiteFigures } from './evaluate.js';
import { readOffTopic } from './off-topic.js';
import { serviceRecall } from './service-recall.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    variants: { type: 'string' },
    cache: { type: 'string', default: '.tmp/eval-embeddings.json' },
    'off-topic-users': { type: 'string', default: '10' },
    // The first N users of each set only: LongMemEval's 63 haystacks take USE-lite about 15 minutes to embed.
    'max-users': { type: 'string' },
  },
});
const cache = new EmbedCache(values.cache);
const loaded = await loadCachedSets(cache, values.data, values['max-users'] === undefined ? undefined : Number(values['max-users']));
const embedder = new CachedEmbedder(cache);
const variants: Partial<RankerParams>[] =
  values.variants === undefined ? [{}] : (JSON.parse(readFileSync(values.variants, 'utf8')) as Partial<RankerParams>[]);
const offTopic = readOffTopic();

for (const variant of variants) {
  const started = Date.now();
  const rows: { name: string; figures: SuiteFigures }[] = [];
  for (const { set, data, memoised } of loaded) {
    const service = cachedService(memoised, embedder, new HybridRanker(variant));
    const report = await evaluate(data, serviceRecall(service), {
      limit: 10,
      minScore: 0,
      offTopic,
      offTopicUsers: Number(values['off-topic-users']),
      exhaustive: set.exhaustive,
    });
    rows.push(...suiteRows(set.name, report, set.rowPerCategory));
  }
  console.log(`\nvariant ${JSON.stringify(variant)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  console.log(suiteMarkdown(rows));
  cache.save();
}
await embedder.close();
for (const { store } of loaded) await store.close();
