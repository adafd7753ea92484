/**
 * Does recall hold up when a question is typed as people type it? Every plain and unanswerable question of the chat
 * sets is asked as written and as each variant of tools/eval/chat-probe/variants.ts (wrapped in greetings, context
 * and thanks, run on, with a typo, without apostrophes, in lower case), through the real recall pipeline on cached
 * USE-lite vectors, at the defaults (limit 5, minScore 0.7). Paired: each row compares a variant with the same
 * questions as written.
 *
 *   node --import tsx tools/eval/chat-probe.ts [--data DIR[,DIR...]] [--cache FILE]
 *
 * Default data: the read chat sets (chat, chat-check, chat-check-2 to -9). A variant's new texts are embedded once
 * by the model and cached.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { HybridRanker } from '../../src/core/ranking/hybrid-ranker.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { CachedEmbedder, cachedService } from './cached-service.js';
import { loadCachedSets } from './cached-sets.js';
import { EmbedCache } from './embed-cache.js';
import { DATASET_ID_KEY } from './service-recall.js';
import { VARIANTS } from './chat-probe/variants.js';

const READ = ['chat', 'chat-check', ...[2, 3, 4, 5, 6, 7, 8, 9].map((n) => `chat-check-${n}`)];
const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    cache: { type: 'string', default: '.tmp/eval-embeddings.json' },
  },
});
const dirs = values.data ?? READ.map((name) => join('tools/eval/data', name)).join(',');
const cache = new EmbedCache(values.cache);
const embedder = new CachedEmbedder(cache);
const loaded = await loadCachedSets(cache, dirs, undefined);

interface Outcome {
  /** A right memory among those returned (answerable), or nothing returned (unanswerable). */
  ok: boolean;
}
const rows = new Map<string, { answerable: [number, number, number]; unanswerable: [number, number, number] }>();
const row = (name: string) => {
  let r = rows.get(name);
  if (r === undefined) rows.set(name, (r = { answerable: [0, 0, 0], unanswerable: [0, 0, 0] }));
  return r;
};

for (const { data, memoised } of loaded) {
  const service = cachedService(memoised, embedder, new HybridRanker());
  const ask = async (userId: string, query: string, gold: readonly string[]): Promise<Outcome> => {
    const result = await service.recall(LOCAL_CALLER, { userId, query });
    const ids = result.memories.map((m) => String(m.metadata[DATASET_ID_KEY]));
    return { ok: gold.length === 0 ? ids.length === 0 : ids.some((id) => gold.includes(id)) };
  };
  for (const q of data.queries.filter((q) => q.category === 'plain' || q.category === 'unanswerable')) {
    const kind = q.category === 'plain' ? 'answerable' : 'unanswerable';
    const asWritten = await ask(q.userId, q.query, q.gold);
    for (const [name, variant] of Object.entries(VARIANTS)) {
      const text = variant(q.query, q.id);
      if (text === undefined) continue;
      const varied = await ask(q.userId, text, q.gold);
      const counts = row(name)[kind];
      counts[0]++;
      counts[1] += asWritten.ok ? 1 : 0;
      counts[2] += varied.ok ? 1 : 0;
    }
  }
}
await embedder.close();
for (const { store } of loaded) await store.close();

const f = (n: number, d: number) => (d === 0 ? 'n/a' : (n / d).toFixed(3));
console.log(`chat probe over ${loaded.map((l) => l.set.name).join(', ')} (defaults: limit 5, minScore 0.7)\n`);
console.log('| variant | plain questions | hit as written | hit as varied | unanswerable | nothing returned as written | as varied |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const [name, { answerable: a, unanswerable: u }] of rows) {
  console.log(`| ${name} | ${a[0]} | ${f(a[1], a[0])} | ${f(a[2], a[0])} | ${u[0]} | ${f(u[1], u[0])} | ${f(u[2], u[0])} |`);
}
