/**
 * Tuning only: every question of the suite (answerable, unanswerable, off-topic) with its top candidates and their
 * score parts (recall with `explain: true`), as JSON lines, so that the score's combination and calibration can be
 * studied and fitted offline (tools/calibration/).
 *
 *   node --import tsx tools/eval/dump-features.ts [--data DIR[,DIR...]] [--variant JSON] [--depth N] --out FILE.jsonl
 */
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { HybridRanker, type RankerParams } from '../../src/core/ranking/hybrid-ranker.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { CachedEmbedder, cachedService } from './cached-service.js';
import { loadCachedSets } from './cached-sets.js';
import { usersOf } from './dataset.js';
import { EmbedCache } from './embed-cache.js';
import { readOffTopic } from './off-topic.js';
import { DATASET_ID_KEY } from './service-recall.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    variant: { type: 'string', default: '{}' },
    depth: { type: 'string', default: '20' },
    out: { type: 'string' },
    cache: { type: 'string', default: '.tmp/eval-embeddings.json' },
    'off-topic-users': { type: 'string', default: '10' },
    'max-users': { type: 'string' },
  },
});
if (values.out === undefined) throw new Error('--out FILE.jsonl is required');
const cache = new EmbedCache(values.cache);
const loaded = await loadCachedSets(cache, values.data, values['max-users'] === undefined ? undefined : Number(values['max-users']));
const embedder = new CachedEmbedder(cache);
const ranker = new HybridRanker(JSON.parse(values.variant) as Partial<RankerParams>);
const offTopic = readOffTopic();
const out = createWriteStream(values.out);
const depth = Number(values.depth);

for (const { set, data, memoised } of loaded) {
  const service = cachedService(memoised, embedder, ranker);
  const ask = async (userId: string, query: string) => {
    const result = await service.recall(LOCAL_CALLER, { userId, query, limit: depth, minScore: 0, explain: true });
    return result.memories.map((m) => ({ id: String(m.metadata[DATASET_ID_KEY]), score: m.score, parts: m.explain, createdAt: m.createdAt }));
  };
  const questions = data.queries.filter((q) => (q.gold.length > 0 && q.category !== 'adversarial') || q.unanswerable);
  for (const q of questions) {
    const kind = q.unanswerable ? 'unanswerable' : 'answerable';
    out.write(`${JSON.stringify({ set: set.name, exhaustive: set.exhaustive, id: q.id, kind, category: q.category, query: q.query, gold: q.gold, items: await ask(q.userId, q.query) })}\n`);
  }
  for (const userId of usersOf(data.memories).slice(0, Number(values['off-topic-users']))) {
    for (const query of offTopic) {
      out.write(`${JSON.stringify({ set: set.name, exhaustive: set.exhaustive, id: `off:${userId}:${query}`, kind: 'offtopic', category: 'off-topic', query, gold: [], items: await ask(userId, query) })}\n`);
    }
  }
  console.error(`${set.name}: ${questions.length} questions`);
}
out.end();
await embedder.close();
for (const { store } of loaded) await store.close();
