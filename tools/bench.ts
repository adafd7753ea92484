/**
 * `npm run bench [-- --quick] [--keep] [--out FILE] [--data DIR] [--no-peer] [--no-mcp]`
 *
 * Speed and scale of agent-memory, side by side with the reference MCP memory server, in one run: store latency
 * and throughput, bulk import, recall latency at 1,000 to 100,000 memories in one user and 1,000,000 over 1,000
 * users (over HTTP, in process, and the bare query embedding), memory and disk per 100,000 memories, MCP stdio
 * round trips, and recall quality against `@modelcontextprotocol/server-memory`. Prints a markdown report and
 * writes it to bench-results/latest.md. Not part of `npm test`; about 10 minutes on 2 cores (`--quick`: ~3).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { importJsonl } from '../src/cli/commands/import.js';
import { EmbeddingState } from '../src/core/embedding-state.js';
import { pickWordCandidates } from '../src/core/ranking/word-candidates.js';
import { HybridRanker } from '../src/core/ranking/hybrid-ranker.js';
import { MemoryService } from '../src/core/service.js';
import { LOCAL_CALLER } from '../src/core/types.js';
import { createEmbedder } from '../src/embeddings/index.js';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.js';
import { searchVectors } from '../src/storage/sqlite/vector-search.js';
import { buildSet, fileBytes, MODEL_DIMENSION, type BuiltSet } from './bench/build.js';
import {
  BENCH_KEY,
  cliCommand,
  hasMcpCommand,
  peerVersion,
  processMemory,
  ROOT,
  startOurMcp,
  startPeer,
  startServerChild,
  type McpChild,
  type ServerChild,
} from './bench/children.js';
import { loadData, setRows, type BenchData, type BenchQuery } from './bench/data.js';
import { count, mean, mib, ms, rate, ratio, recallAt, seconds, summarize, type Summary } from './bench/stats.js';

// ---- Options ----------------------------------------------------------------------------------------------------

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    out: { type: 'string' },
    data: { type: 'string' },
    'no-peer': { type: 'boolean', default: false },
    'no-mcp': { type: 'boolean', default: false },
  },
  allowPositionals: false,
});
const QUICK = flags.quick === true;

const PLAN = QUICK
  ? {
      queries: 30,
      fillerBases: 31,
      singleStores: 15,
      clients: 4,
      throughputSeconds: 6,
      modelBatchTexts: 64,
      sizes: [1_000, 10_000],
      multi: { users: 100, perUser: 1_000 },
      peerSizes: [1_000, 10_000],
      peerQueries: 15,
      exactChecks: 5,
      mcpRecalls: 10,
      mcpStores: 5,
    }
  : {
      queries: 81,
      fillerBases: 231,
      singleStores: 40,
      clients: 8,
      throughputSeconds: 12,
      modelBatchTexts: 128,
      sizes: [1_000, 10_000, 100_000],
      multi: { users: 1_000, perUser: 1_000 },
      peerSizes: [1_000, 10_000, 100_000],
      peerQueries: 30,
      exactChecks: 15,
      mcpRecalls: 30,
      mcpStores: 15,
    };

const started = performance.now();
const log = (line: string) => process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);

// ---- Environment ------------------------------------------------------------------------------------------------

function busiest(): string {
  try {
    const out = execFileSync('ps', ['-eo', 'pcpu,args', '--sort=-pcpu', '--no-headers'], { encoding: 'utf8' });
    return out
      .split('\n')
      .filter((l) => l.trim().length > 0 && !l.includes(' ps -eo'))
      .slice(0, 6)
      .map((l) => {
        const m = /^\s*([\d.]+)\s+(.*)$/.exec(l);
        const args = (m?.[2] ?? l).replace(/\s+/g, ' ');
        const short = args.replace(/\/[^\s]*\/(node_modules|bin)\//g, '').slice(0, 70);
        return `${m?.[1] ?? '?'}% ${short}`;
      })
      .join('; ');
  } catch {
    return 'n/a';
  }
}

function loads(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
}

// ---- HTTP -------------------------------------------------------------------------------------------------------

async function post(url: string, path: string, body: unknown): Promise<{ ms: number; status: number; json: unknown }> {
  const t = performance.now();
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${BENCH_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as unknown;
  return { ms: performance.now() - t, status: res.status, json };
}

interface RecallJson {
  memories: Array<{ text: string; metadata: Record<string, unknown> }>;
}

const goldOf = (json: unknown): string[] =>
  ((json as RecallJson).memories ?? []).map((m) => String(m.metadata?.externalId ?? '')).filter((k) => k.length > 0);

// ---- Phases -----------------------------------------------------------------------------------------------------

interface RecallRow {
  label: string;
  memories: number;
  users: number;
  http: Summary;
  inProcess: Summary;
  embed: Summary;
  recall10: number | undefined;
  rss: number;
  dbBytes: number;
  build: BuiltSet;
}

interface ExactCheck {
  recall10: number;
  recall50: number;
  /** Of the exact top 50, the memories with real (not synthetic) vectors: the share the fast path found. */
  realRecall50: number;
  recallK: number;
  k: number;
  fast: Summary;
  exact: Summary;
  n: number;
  memories: number;
}

interface TimeSplit {
  label: string;
  vector: Summary;
  /** The word side (per-term lists and the pick): runs while the model embeds the query. */
  words: Summary;
  /** The store's candidate search once the embedding is there (vector search, the pick's cosines, rows, neighbours). */
  candidates: Summary;
  ranking: Summary;
  n: number;
}

interface PeerRow {
  n: number;
  storeSeconds: number;
  batch: number;
  calls: number;
  fileBytes: number;
  search: Summary;
  recall10: number;
  hits: number;
  rss: number;
}

async function main(): Promise<void> {
  const envStart = { load: loads(), busy: busiest() };
  const workRoot = join(ROOT, 'bench-results/tmp');
  mkdirSync(workRoot, { recursive: true });
  const work = mkdtempSync(join(workRoot, 'run-'));
  log(`mode ${QUICK ? 'quick' : 'full'}; scratch ${work}; load ${envStart.load}`);

  const data = loadData({ dir: flags.data, fillerBases: PLAN.fillerBases, queries: PLAN.queries });
  log(`data: ${data.target.length} target memories, ${data.queries.length} questions, ${data.fillerBases.length} filler sentences`);
  const cli = cliCommand();
  log(`CLI: ${cli.how}`);

  const embedder = createEmbedder({});
  const info = await embedder.ready();
  const embeddings = new EmbeddingState(embedder, Promise.resolve(info));

  // 1. The model's own batch throughput (64 texts per call, texts of the import), the reference for bulk import:
  //    measured before and after the import, averaged, so that a change in machine load hits both alike.
  const batchTexts = [...data.target, ...data.fillerBases].map((m) => m.text).slice(0, PLAN.modelBatchTexts);
  const modelThroughput = async (): Promise<number> => {
    const s = performance.now();
    for (let i = 0; i < batchTexts.length; i += 64) await embedder.embed(batchTexts.slice(i, i + 64), 'document');
    return batchTexts.length / ((performance.now() - s) / 1000);
  };
  const modelBefore = await modelThroughput();
  log(`model batch throughput ${rate(modelBefore)}`);

  // 2. Bulk import with the model: the target conversation and the filler sentences. Their vectors seed the sets.
  const importFile = join(work, 'import.jsonl');
  writeFileSync(
    importFile,
    [
      ...data.target.map((m) => ({ userId: 'import-target', text: m.text, createdAt: m.createdAt, id: m.key })),
      ...data.fillerBases.map((m) => ({ userId: 'import-filler', text: m.text, createdAt: m.createdAt, id: m.key })),
    ]
      .map((l) => JSON.stringify(l))
      .join('\n') + '\n',
  );
  const baseDb = join(work, 'import.db');
  const importStore = SqliteStore.open({ path: baseDb });
  await importStore.useModel(info);
  const imported = await importJsonl({ store: importStore, embed: (texts) => embedder.embed(texts, 'document') }, importFile, { batchSize: 64 });
  const importRate = imported.imported / imported.seconds;
  const modelAfter = await modelThroughput();
  const modelRate = (modelBefore + modelAfter) / 2;
  log(`import: ${imported.imported} memories in ${seconds(imported.seconds)} (${rate(importRate)}; model busy ${seconds(imported.embedSeconds)}); model ${rate(modelAfter)} after`);
  const byKey = new Map<string, Float32Array>();
  for (const row of importStore.database
    .prepare("SELECT json_extract(m.metadata, '$.externalId') AS key, v.embedding AS e FROM memories m JOIN memory_vectors v ON v.rowid = m.rowid")
    .all() as Array<{ key: string; e: Buffer }>) {
    byKey.set(row.key, new Float32Array(row.e.buffer.slice(row.e.byteOffset, row.e.byteOffset + row.e.byteLength)));
  }
  await importStore.close();
  const vectors = {
    target: data.target.map((m) => byKey.get(m.key) as Float32Array),
    filler: data.fillerBases.map((m) => byKey.get(m.key) as Float32Array),
  };

  // 3. Stores over HTTP: one at a time, then concurrent clients.
  const storeServer = await startServerChild(cli, join(work, 'store.db'));
  const storeTimes: number[] = [];
  const texts = data.fillerBases.map((m) => m.text);
  for (let i = 0; i < PLAN.singleStores; i++) {
    const r = await post(storeServer.url, '/v1/memories', { userId: 'store-bench', text: texts[i % texts.length] });
    if (r.status !== 201 && r.status !== 200) throw new Error(`store failed: ${r.status} ${JSON.stringify(r.json)}`);
    storeTimes.push(r.ms);
  }
  const single = summarize(storeTimes);
  let done = 0;
  const until = performance.now() + PLAN.throughputSeconds * 1000;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: PLAN.clients }, async (_, c) => {
      for (let i = 0; performance.now() < until; i++) {
        const r = await post(storeServer.url, '/v1/memories', { userId: `store-load-${c}`, text: texts[(c * 31 + i) % texts.length] });
        if (r.status === 201 || r.status === 200) done++;
      }
    }),
  );
  const throughput = done / ((performance.now() - t) / 1000);
  await storeServer.stop();
  log(`store: median ${ms(single.median)}, ${PLAN.clients} clients ${rate(throughput)}`);

  // 4. Recall at each size: a server on the set's file, the same queries over HTTP, in process, and embedding only.
  const ranker = new HybridRanker();
  const rows: RecallRow[] = [];
  const exact: ExactCheck = {
    recall10: Number.NaN,
    recall50: Number.NaN,
    realRecall50: Number.NaN,
    recallK: Number.NaN,
    k: 50,
    fast: summarize([]),
    exact: summarize([]),
    n: 0,
    memories: 0,
  };
  const specs = [
    ...PLAN.sizes.map((n) => ({ label: `${count(n)} in one user`, users: 1, perUser: n, withTarget: true, userPrefix: 'single-', seed: n })),
    { label: `${count(PLAN.multi.users * PLAN.multi.perUser)} over ${count(PLAN.multi.users)} users`, ...PLAN.multi, withTarget: false, userPrefix: 'user-', seed: 7 },
  ];
  const builtSets = new Map<number, BuiltSet>();
  // The smallest set's server stays up until the multi-user set is measured, to compare them in the same minutes.
  let reference: { server: ServerChild; spec: (typeof specs)[number]; times: number[] } | undefined;
  const timeSplits: TimeSplit[] = [];
  for (const spec of specs) {
    const path = join(work, `set-${spec.users}x${spec.perUser}.db`);
    let lastLog = 0;
    const built = await buildSet(path, data, vectors, { ...spec, model: info.model }, (d, total) => {
      if (performance.now() - lastLog > 15_000) {
        lastLog = performance.now();
        log(`  building ${spec.label}: ${count(d)}/${count(total)}`);
      }
    });
    log(`built ${spec.label} in ${seconds(built.seconds)} (${rate(built.rows / built.seconds)}), ${mib(built.bytes)}`);
    if (spec.users === 1) builtSets.set(spec.perUser, built);

    const server = await startServerChild(cli, path);
    const store = SqliteStore.open({ path });
    await store.useModel(info);
    const service = new MemoryService({ store, embeddings, ranker });
    const userFor = (i: number) => (spec.users === 1 ? `${spec.userPrefix}0` : `${spec.userPrefix}${(i * 7919) % spec.users}`);
    const httpTimes: number[] = [];
    const inTimes: number[] = [];
    const embedTimes: number[] = [];
    const recalls: number[] = [];
    const queries = data.queries;
    const request = (i: number, q: BenchQuery) => ({ userId: userFor(i), query: q.query, limit: 10, minScore: 0 });
    // Warm-up with other questions (a fresh server's model is slower on its first texts), then the three
    // measurements interleaved (order rotated) so that machine noise hits them alike.
    for (const [i, query] of data.warmup.entries()) {
      await post(server.url, '/v1/memories/recall', request(i, { query, gold: [] }));
      await service.recall(LOCAL_CALLER, request(i, { query, gold: [] }));
    }
    for (let i = 0; i < queries.length; i++) {
      const q = queries[i] as BenchQuery;
      const steps = [
        async () => {
          const r = await post(server.url, '/v1/memories/recall', request(i, q));
          if (r.status !== 200) throw new Error(`recall failed: ${r.status} ${JSON.stringify(r.json)}`);
          httpTimes.push(r.ms);
          if (spec.withTarget) recalls.push(recallAt(goldOf(r.json), q.gold, 10));
        },
        async () => {
          const s = performance.now();
          await service.recall(LOCAL_CALLER, request(i, q));
          inTimes.push(performance.now() - s);
        },
        async () => {
          const s = performance.now();
          await embedder.embed([q.query], 'query');
          embedTimes.push(performance.now() - s);
        },
      ];
      if (reference && spec.users > 1) {
        const ref = reference;
        steps.push(async () => {
          const r = await post(ref.server.url, '/v1/memories/recall', { userId: `${ref.spec.userPrefix}0`, query: q.query, limit: 10, minScore: 0 });
          ref.times.push(r.ms);
        });
      }
      for (let k = 0; k < steps.length; k++) await (steps[(i + k) % steps.length] as () => Promise<void>)();
    }
    const memory = server.memory();
    if (!reference && spec.users === 1) reference = { server, spec, times: [] };
    else await server.stop();

    // The vector pre-filter against exact search, at the largest single-user size.
    if (spec.users === 1 && spec.perUser === Math.max(...PLAN.sizes)) {
      const r10: number[] = [];
      const r50: number[] = [];
      const real: [number, number] = [0, 0];
      const targetRows = new Set(
        store.database.prepare("SELECT rowid FROM memories WHERE json_extract(metadata, '$.externalId') IS NOT NULL").pluck().all() as number[],
      );
      const fastTimes: number[] = [];
      const exactTimes: number[] = [];
      const rk: number[] = [];
      let k = 50;
      for (const q of queries.slice(0, PLAN.exactChecks)) {
        // As recall asks: the ranker's text to embed and its number of vector candidates.
        const plan = ranker.plan(q.query, 10);
        k = plan.vectorK;
        const [v] = await embedder.embed([plan.embedText], 'query');
        const query = { userId: userFor(0), appId: null, embedding: v as Float32Array, k };
        let s = performance.now();
        const fast = searchVectors(store.database, query).map((h) => h.rowid);
        fastTimes.push(performance.now() - s);
        s = performance.now();
        const full = searchVectors(store.database, { ...query, minCandidates: Number.POSITIVE_INFINITY }).map((h) => h.rowid);
        exactTimes.push(performance.now() - s);
        const found = (n: number) => {
          const top = new Set(fast.slice(0, n));
          return full.slice(0, n).filter((x) => top.has(x)).length / Math.max(1, Math.min(n, full.length));
        };
        r10.push(found(10));
        r50.push(found(50));
        rk.push(found(k));
        const top50 = new Set(fast.slice(0, 50));
        for (const x of full.slice(0, 50)) {
          if (!targetRows.has(x)) continue;
          real[1]++;
          if (top50.has(x)) real[0]++;
        }
      }
      Object.assign(exact, {
        recall10: mean(r10),
        recall50: mean(r50),
        realRecall50: real[0] / Math.max(1, real[1]),
        recallK: mean(rk),
        k,
        fast: summarize(fastTimes),
        exact: summarize(exactTimes),
        n: r10.length,
        memories: spec.perUser,
      });

    }
    if ((spec.users === 1 && spec.perUser === Math.max(...PLAN.sizes)) || spec.users > 1) {
      // Where recall's time goes (in process, besides the model): vector search alone, the word side, the store's
      // candidate search once the embedding is there, and the ranking.
      const vectorOnly: number[] = [];
      const wordSide: number[] = [];
      const afterEmbedding: number[] = [];
      const ranking: number[] = [];
      const sample = queries.slice(0, 20);
      const plans = sample.map((q) => ranker.plan(q.query, 10));
      const embedded = await embedder.embed(plans.map((p) => p.embedText), 'query');
      for (const [i, q] of sample.entries()) {
        const plan = plans[i] as (typeof plans)[number];
        const v = embedded[i] as Float32Array;
        const userId = userFor(i);
        const base = { userId, scope: { appId: null }, embedding: v, vectorK: plan.vectorK };
        let s = performance.now();
        searchVectors(store.database, { userId, appId: null, embedding: v, k: plan.vectorK });
        vectorOnly.push(performance.now() - s);
        s = performance.now();
        const matches = await store.findWordMatches({ userId, scope: base.scope, terms: plan.terms, perTerm: plan.perTerm });
        const alsoIds = pickWordCandidates(matches, plan.textK);
        wordSide.push(performance.now() - s);
        s = performance.now();
        const candidates = await store.recallCandidates({ ...base, alsoIds });
        afterEmbedding.push(performance.now() - s);
        s = performance.now();
        ranker.rank(q.query, plan, candidates);
        ranking.push(performance.now() - s);
      }
      timeSplits.push({
        label: spec.label,
        vector: summarize(vectorOnly),
        words: summarize(wordSide),
        candidates: summarize(afterEmbedding),
        ranking: summarize(ranking),
        n: vectorOnly.length,
      });
    }
    await store.close();
    const row: RecallRow = {
      label: spec.label,
      memories: spec.users * spec.perUser,
      users: spec.users,
      http: summarize(httpTimes),
      inProcess: summarize(inTimes),
      embed: summarize(embedTimes),
      recall10: spec.withTarget ? mean(recalls) : undefined,
      rss: memory.rssBytes,
      dbBytes: fileBytes(path),
      build: built,
    };
    rows.push(row);
    log(
      `recall ${spec.label}: HTTP ${ms(row.http.median)} (p99 ${ms(row.http.p99)}), in-process ${ms(row.inProcess.median)}, ` +
        `embedding ${ms(row.embed.median)}${row.recall10 === undefined ? '' : `, recall@10 ${row.recall10.toFixed(3)}`}, RSS ${mib(row.rss)}`,
    );
    if (!flags.keep && spec.users > 1) rmSync(path, { force: true });
  }
  const sameWindow = reference && reference.times.length > 0 ? { label: reference.spec.label, http: summarize(reference.times) } : undefined;
  await reference?.server.stop();

  // 5. The reference server on the same data.
  const peerRows: PeerRow[] = [];
  let peerError: string | undefined;
  if (!flags['no-peer']) {
    try {
      for (const n of PLAN.peerSizes) {
        const file = join(work, `peer-${n}.jsonl`);
        const peer = await startPeer(file);
        try {
          const entities = [...setRows(data, { users: 1, perUser: n, withTarget: true, userPrefix: 'single-', seed: n })].map((r) => ({
            name: r.key,
            entityType: 'memory',
            observations: [r.text],
          }));
          const batch = Math.max(100, Math.ceil(n / 10));
          let calls = 0;
          const s = performance.now();
          for (let i = 0; i < entities.length; i += batch) {
            await peer.call('create_entities', { entities: entities.slice(i, i + batch) });
            calls++;
          }
          const storeSeconds = (performance.now() - s) / 1000;
          const searchTimes: number[] = [];
          const recalls: number[] = [];
          let hits = 0;
          for (const q of data.queries.slice(0, PLAN.peerQueries)) {
            const { ms: took, result } = await peer.call('search_nodes', { query: q.query });
            searchTimes.push(took);
            const names = (((result as { structuredContent?: { entities?: Array<{ name: string }> } }).structuredContent?.entities ?? []) as Array<{
              name: string;
            }>).map((e) => e.name);
            if (names.length > 0) hits++;
            recalls.push(recallAt(names, q.gold, 10));
          }
          const memory = peer.pid === undefined ? { rssBytes: Number.NaN } : processMemory(peer.pid);
          peerRows.push({
            n,
            storeSeconds,
            batch,
            calls,
            fileBytes: fileBytes(file),
            search: summarize(searchTimes),
            recall10: mean(recalls),
            hits,
            rss: memory.rssBytes,
          });
          log(`peer ${count(n)}: store ${seconds(storeSeconds)} in ${calls} calls, search median ${ms(summarize(searchTimes).median)}, recall@10 ${mean(recalls).toFixed(3)}`);
        } finally {
          await peer.close();
        }
      }
    } catch (error) {
      peerError = error instanceof Error ? error.message.split('\n')[0] : String(error);
      log(`peer failed: ${peerError}`);
    }
  }

  // 6. MCP over stdio: ours (agent-memory mcp) and the reference, round trips at 1,000 memories.
  let mcp: { recall: Summary; store: Summary; peerSearch: Summary | undefined; peerStore: Summary | undefined } | undefined;
  let mcpError: string | undefined;
  if (flags['no-mcp']) mcpError = 'skipped (--no-mcp)';
  else if (!hasMcpCommand()) mcpError = 'n/a (MCP not available)';
  else {
    const db = builtSets.get(Math.min(...PLAN.sizes))?.path;
    let ours: McpChild | undefined;
    try {
      if (!db) throw new Error('no 1,000-memory set');
      ours = await startOurMcp(cli, db, 'single-0');
      const recallTimes: number[] = [];
      const storeTimesMcp: number[] = [];
      for (const query of data.warmup) await ours.call('recall_memories', { query });
      for (let i = 0; i < PLAN.mcpRecalls; i++) {
        recallTimes.push((await ours.call('recall_memories', { query: (data.queries[i % data.queries.length] as BenchQuery).query })).ms);
      }
      for (let i = 0; i < PLAN.mcpStores; i++) {
        storeTimesMcp.push((await ours.call('store_memory', { text: texts[i % texts.length] as string })).ms);
      }
      let peerSearch: Summary | undefined;
      let peerStore: Summary | undefined;
      if (!flags['no-peer']) {
        const peerFile = join(work, `peer-${Math.min(...PLAN.peerSizes)}.jsonl`);
        const peer = await startPeer(peerFile);
        try {
          const searchTimes: number[] = [];
          const stores: number[] = [];
          for (let i = 0; i < PLAN.mcpRecalls; i++) searchTimes.push((await peer.call('search_nodes', { query: (data.queries[i % data.queries.length] as BenchQuery).query })).ms);
          for (let i = 0; i < PLAN.mcpStores; i++) {
            stores.push((await peer.call('create_entities', { entities: [{ name: `mcp-${i}`, entityType: 'memory', observations: [texts[i % texts.length] as string] }] })).ms);
          }
          peerSearch = summarize(searchTimes);
          peerStore = summarize(stores);
        } finally {
          await peer.close();
        }
      }
      mcp = { recall: summarize(recallTimes), store: summarize(storeTimesMcp), peerSearch, peerStore };
      log(`MCP: recall_memories ${ms(mcp.recall.median)}, store_memory ${ms(mcp.store.median)}`);
    } catch (error) {
      mcpError = `n/a (MCP not available: ${error instanceof Error ? (error.message.split('\n')[0] ?? '').slice(0, 120) : String(error)})`;
      log(`MCP failed: ${mcpError}`);
    } finally {
      await ours?.close().catch(() => undefined);
    }
  }

  await embedder.close();
  const envEnd = { load: loads(), busy: busiest() };
  const totalSeconds = (performance.now() - started) / 1000;

  const report = render({
    data,
    cli: cli.how,
    envStart,
    envEnd,
    totalSeconds,
    modelRate,
    imported,
    importRate,
    single,
    throughput,
    rows,
    exact,
    timeSplits,
    sameWindow,
    peerRows,
    peerError,
    mcp,
    mcpError,
  });
  process.stdout.write(`${report}\n`);
  const out = flags.out ?? join(ROOT, 'bench-results', QUICK ? 'latest-quick.md' : 'latest.md');
  writeFileSync(out, `${report}\n`);
  log(`written to ${out}`);
  if (!flags.keep) rmSync(work, { recursive: true, force: true });
}

// ---- Report -----------------------------------------------------------------------------------------------------

interface ReportInput {
  data: BenchData;
  cli: string;
  envStart: { load: string; busy: string };
  envEnd: { load: string; busy: string };
  totalSeconds: number;
  modelRate: number;
  imported: { imported: number; seconds: number; embedSeconds: number };
  importRate: number;
  single: Summary;
  throughput: number;
  rows: RecallRow[];
  exact: ExactCheck;
  timeSplits: TimeSplit[];
  sameWindow: { label: string; http: Summary } | undefined;
  peerRows: PeerRow[];
  peerError: string | undefined;
  mcp: { recall: Summary; store: Summary; peerSearch: Summary | undefined; peerStore: Summary | undefined } | undefined;
  mcpError: string | undefined;
}

function table(header: string[], body: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function verdict(ok: boolean | undefined): string {
  return ok === undefined ? 'n/a' : ok ? '**met**' : '**not met**';
}

function render(r: ReportInput): string {
  const cpu = cpus();
  const singleRows = r.rows.filter((row) => row.users === 1);
  const largest = singleRows[singleRows.length - 1];
  const smallest = singleRows[0];
  const multi = r.rows.find((row) => row.users > 1);
  const per100k = (bytes: number, n: number) => (bytes / n) * 100_000;
  const out: string[] = [];

  out.push(`# agent-memory benchmark${QUICK ? ' (quick)' : ''}`);
  out.push('');
  out.push(
    `Run ${new Date().toISOString()} in ${seconds(r.totalSeconds)} on ${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, ` +
      `${mib(totalmem())} RAM, Node ${process.version}, embedding model use-lite (${MODEL_DIMENSION} dimensions, in a worker thread).`,
  );
  out.push('');
  out.push(`Machine load (1/5/15 min): ${r.envStart.load} at the start, ${r.envEnd.load} at the end. The machine is shared: figures are medians, and the ratios (measured interleaved, query by query) are steadier than the absolute times.`);
  out.push(`Busiest processes at the start: ${r.envStart.busy}.`);
  out.push(`At the end: ${r.envEnd.busy}.`);
  out.push('');
  out.push(`Data: ${r.data.source}. Servers under test run as ${r.cli}, one process per database file.`);
  out.push('');
  out.push(
    'Large sets: only the target conversation and the filler sentences are embedded by the model (through `agent-memory import`, ' +
      'measured below). Every set is then written through the store\'s bulk path (`insertMemories`, one transaction per 5,000) with ' +
      'those vectors: the target conversation as embedded, filler as copies of a filler sentence\'s vector moved by random noise ' +
      '(cosine 0.82 to 0.96 to the original) with that sentence\'s text. Bench-only load settings while building (no journal, no ' +
      'fsync, ids in increasing order); the servers then open the files normally.',
  );
  out.push('');

  out.push('## Store');
  out.push('');
  out.push(
    table(
      ['measure', 'value'],
      [
        ['single store over HTTP (POST /v1/memories, one at a time), median / p95', `${ms(r.single.median)} / ${ms(r.single.p95)} (n=${r.single.n})`],
        [`sustained throughput, ${PLAN.clients} concurrent HTTP clients for ${PLAN.throughputSeconds} s`, rate(r.throughput)],
        [
          `bulk import (\`agent-memory import\` path, batches of 64, real model), ${count(r.imported.imported)} memories`,
          `${rate(r.importRate)} (${seconds(r.imported.seconds)}, of which waiting for the model ${seconds(r.imported.embedSeconds)})`,
        ],
        ['the model alone, batches of 64 of the same texts (mean of before and after the import)', rate(r.modelRate)],
        ['store path with precomputed vectors (building the sets below)', r.rows.map((row) => `${count(row.memories)}: ${rate(row.build.rows / row.build.seconds)}`).join('; ')],
      ],
    ),
  );
  out.push('');

  out.push('## Recall');
  out.push('');
  out.push(
    `Each question of the target conversation (${r.data.queries.length}) as \`limit 10, minScore 0\`, measured three ways, interleaved: ` +
      'over HTTP (POST /v1/memories/recall to `agent-memory serve`), in process (`MemoryService.recall`, same code, no HTTP) and the ' +
      'bare query embedding (the model alone). Over 1,000 users, each question goes to another user. recall@10: share of the ' +
      "question's answer memories among the 10 returned.",
  );
  out.push('');
  out.push(
    table(
      ['memories', 'HTTP median', 'HTTP p95', 'HTTP p99', 'in-process median', 'embedding median', 'HTTP / embedding', 'in-process / embedding', 'recall@10', 'server RSS', 'database'],
      r.rows.map((row) => [
        row.label,
        ms(row.http.median),
        ms(row.http.p95),
        ms(row.http.p99),
        ms(row.inProcess.median),
        ms(row.embed.median),
        ratio(row.http.median / row.embed.median),
        ratio(row.inProcess.median / row.embed.median),
        row.recall10 === undefined ? 'n/a (no answers)' : row.recall10.toFixed(3),
        mib(row.rss),
        mib(row.dbBytes),
      ]),
    ),
  );
  out.push('');
  if (r.exact.n > 0) {
    out.push(
      `Vector search at ${count(r.exact.memories)} memories in one user (k = ${r.exact.k}, what recall asks the store for), fast path ` +
        `(sign-bit pre-filter, then exact cosine of the best candidates) against exact search over every vector, on the real query ` +
        `embeddings of ${r.exact.n} questions: recall@10 ${r.exact.recall10.toFixed(3)}, recall@50 ${r.exact.recall50.toFixed(3)}, ` +
        `recall@${r.exact.k} ${r.exact.recallK.toFixed(3)} (of the exact top 50's memories with real ` +
        `embeddings, the target conversation's: ${r.exact.realRecall50.toFixed(3)}); median ${ms(r.exact.fast.median)} fast, ` +
        `${ms(r.exact.exact.median)} exact. The synthetic filler makes this a hard case: ~430 near-copies of each filler sentence.`,
    );
    out.push('');
  }

  if (r.timeSplits.length > 0) {
    out.push(
      "Where recall's time goes besides the model (in process, the first 20 questions, one step at a time): vector search alone; " +
        "the word side (`findWordMatches`: each term's newest memories, then the best of them), which recall runs while the model " +
        "embeds the query; the candidate search once the embedding is there (`recallCandidates`: vector search, the word side's " +
        "pick with its cosines, the rows, their neighbours); the ranking of the candidates.",
    );
    out.push('');
    out.push(
      table(
        ['memories', 'vector search median / p95', 'word side (during the embedding)', 'candidates after the embedding', 'ranking'],
        r.timeSplits.map((t) => [
          t.label,
          `${ms(t.vector.median)} / ${ms(t.vector.p95)}`,
          `${ms(t.words.median)} / ${ms(t.words.p95)}`,
          `${ms(t.candidates.median)} / ${ms(t.candidates.p95)}`,
          `${ms(t.ranking.median)} / ${ms(t.ranking.p95)}`,
        ]),
      ),
    );
    out.push('');
  }
  if (r.sameWindow && multi) {
    out.push(
      `Measured in the same minutes as ${multi.label} (alternating query by query): ${r.sameWindow.label} over HTTP, median ` +
        `${ms(r.sameWindow.http.median)}, p95 ${ms(r.sameWindow.http.p95)}.`,
    );
    out.push('');
  }

  out.push('## Resources per 100,000 memories');
  out.push('');
  const resRows: string[][] = [];
  if (largest) {
    resRows.push([
      `${count(largest.memories)} in one user`,
      `${mib(largest.rss)} (with ${count(smallest?.memories ?? 0)}: ${mib(smallest?.rss ?? Number.NaN)})`,
      mib(per100k(largest.dbBytes, largest.memories)),
    ]);
  }
  if (multi) resRows.push([multi.label, mib(multi.rss), mib(per100k(multi.dbBytes, multi.memories))]);
  out.push(table(['set', 'server resident memory (RSS, whole process incl. model)', 'database file per 100,000'], resRows));
  out.push('');

  out.push(`## Against the reference MCP memory server (@modelcontextprotocol/server-memory ${peerVersion()})`);
  out.push('');
  if (r.peerError) out.push(`The reference server failed: ${r.peerError}`);
  if (r.peerRows.length > 0) {
    out.push(
      'Same memories, one entity per memory (`entityType` "memory", the text as its one observation), stored with `create_entities` in ' +
        'ten large calls per size: every call re-reads and rewrites its whole JSONL file and checks each new name against every ' +
        'existing entity, so one memory per call would take hours at 100,000. Its `search_nodes` is a case-insensitive substring ' +
        'match of the whole query against names, types and observations, re-reading the file on every call and returning matches in ' +
        'file order (its first 10 are taken for recall@10); a natural question matches no memory. Ours: recall over HTTP, as above.',
    );
    out.push('');
    out.push(
      table(
        ['memories', 'its store time', 'ours: import with the model (at the measured rate)', 'ours: store path, vectors given', 'its search median', 'our recall median', 'ours faster by', 'its recall@10 (questions with any match)', 'our recall@10'],
        r.peerRows.map((p) => {
          const ours = singleRows.find((row) => row.memories === p.n);
          return [
            count(p.n),
            `${seconds(p.storeSeconds)} (${p.calls} calls; file ${mib(p.fileBytes)})`,
            `${seconds(p.n / r.importRate)}${p.n > r.imported.imported ? ' (extrapolated)' : ''}`,
            ours ? seconds(ours.build.seconds) : 'n/a',
            ms(p.search.median),
            ours ? ms(ours.http.median) : 'n/a',
            ours ? ratio(p.search.median / ours.http.median, 1) : 'n/a',
            `${p.recall10.toFixed(3)} (${p.hits}/${p.search.n})`,
            ours?.recall10 === undefined ? 'n/a' : ours.recall10.toFixed(3),
          ];
        }),
      ),
    );
    out.push('');
  }

  out.push('## MCP over stdio (round trip, at 1,000 memories)');
  out.push('');
  if (r.mcp) {
    out.push(
      table(
        ['call', 'agent-memory median / p95', 'reference server median / p95'],
        [
          ['recall_memories / search_nodes', `${ms(r.mcp.recall.median)} / ${ms(r.mcp.recall.p95)}`, r.mcp.peerSearch ? `${ms(r.mcp.peerSearch.median)} / ${ms(r.mcp.peerSearch.p95)}` : 'n/a'],
          ['store_memory / create_entities (one)', `${ms(r.mcp.store.median)} / ${ms(r.mcp.store.p95)}`, r.mcp.peerStore ? `${ms(r.mcp.peerStore.median)} / ${ms(r.mcp.peerStore.p95)}` : 'n/a'],
        ],
      ),
    );
    out.push('');
    out.push(
      '`agent-memory mcp --db <1,000-memory set> --user-id single-0` and the reference server on its 1,000-memory file, each spawned ' +
        "through the MCP SDK's StdioClientTransport. Ours embeds the text of every call with the model (as over HTTP); the reference " +
        'does no embedding: its figures are a file read and a substring scan.',
    );
  } else {
    out.push(table(['call', 'agent-memory', 'reference server'], [['recall_memories', r.mcpError ?? 'n/a', 'n/a'], ['store_memory', r.mcpError ?? 'n/a', 'n/a']]));
  }
  out.push('');

  // Targets.
  out.push('## Targets');
  out.push('');
  const targets: string[][] = [];
  if (largest) {
    const embed = largest.embed.median;
    targets.push([
      `recall median over HTTP at ${count(largest.memories)} in one user within 1.2x of the bare query embedding`,
      `${ms(largest.http.median)} vs ${ms(embed)}: ${ratio(largest.http.median / embed)}`,
      ratio(largest.http.median / embed / 1.2),
      verdict(largest.http.median <= 1.2 * embed),
    ]);
    targets.push([
      `... and under 30 ms`,
      ms(largest.http.median),
      ratio(largest.http.median / 30),
      verdict(largest.http.median < 30),
    ]);
    targets.push([
      'p99 under 3x the median (over HTTP)',
      `${ms(largest.http.p99)} / ${ms(largest.http.median)} = ${ratio(largest.http.p99 / largest.http.median)}`,
      ratio(largest.http.p99 / largest.http.median / 3),
      verdict(largest.http.p99 < 3 * largest.http.median),
    ]);
  }
  if (multi && smallest) {
    const versus = r.sameWindow?.http.median ?? smallest.http.median;
    targets.push([
      `recall at ${multi.label} no slower than at ${count(smallest.memories)} in one user (HTTP medians${r.sameWindow ? ', measured alternately' : ''})`,
      `${ms(multi.http.median)} vs ${ms(versus)}`,
      ratio(multi.http.median / versus),
      verdict(multi.http.median <= versus * 1.05),
    ]);
  }
  targets.push([
    'bulk import at least the model\'s batch throughput',
    `${rate(r.importRate)} vs ${rate(r.modelRate)}`,
    ratio(r.modelRate / r.importRate),
    verdict(r.importRate >= r.modelRate * 0.95),
  ]);
  for (const p of r.peerRows) {
    const ours = singleRows.find((row) => row.memories === p.n);
    if (!ours) continue;
    targets.push([
      `recall@10 far better than the reference at ${count(p.n)}`,
      `${(ours.recall10 ?? 0).toFixed(3)} vs ${p.recall10.toFixed(3)}`,
      'n/a',
      verdict((ours.recall10 ?? 0) >= p.recall10 + 0.2),
    ]);
    if (p.n >= 100_000) {
      targets.push([
        `recall at least 10x faster than its search at ${count(p.n)}`,
        `${ms(ours.http.median)} vs ${ms(p.search.median)}: ${ratio(p.search.median / ours.http.median, 1)} faster`,
        ratio(10 / (p.search.median / ours.http.median)),
        verdict(p.search.median >= 10 * ours.http.median),
      ]);
    }
  }
  out.push(table(['target', 'measured', 'ratio to target (≤ 1 is within)', 'result'], targets));
  out.push('');
  out.push('Targets within 5% count as met where a figure must be "no slower" or "at least" another, given the noise of a shared machine.');
  return out.join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
