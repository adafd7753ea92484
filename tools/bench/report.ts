/** The benchmark's markdown report: what was measured, in the order of the phases, and the targets. */
import { cpus, totalmem } from 'node:os';
import type { BackendText } from './backends.js';
import { MODEL_DIMENSION, type BuiltSet } from './build.js';
import { peerVersion } from './children.js';
import type { BenchData } from './data.js';
import type { BenchPlan } from './plan.js';
import type { FilterResult } from './filters.js';
import type { ServerProfile } from './profile.js';
import { renderFilters, renderProfiles, renderScaling, renderSpeedTargets, renderStoreSplit, table, verdict } from './report-speed.js';
import type { ScalingPoint } from './scaling.js';
import type { StoreSplit } from './store-split.js';
import { count, mib, ms, rate, ratio, seconds, type Summary } from './stats.js';

export interface RecallRow {
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

/** MCP stdio round trips, with the bare embedding of each call's text measured right after it. */
export interface McpFigures {
  recall: Summary;
  store: Summary;
  queryEmbed: Summary;
  textEmbed: Summary;
  peerSearch: Summary | undefined;
  peerStore: Summary | undefined;
}

/** A set whose recall the backend could not serve (e.g. past the statement timeout), with the error it gave. */
export interface UnservedSet {
  label: string;
  memories: number;
  reason: string;
}

export interface ExactCheck {
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
  /** The backend's remark on how the index path ran (e.g. the query plan), if any. */
  note: string | undefined;
}

export interface TimeSplit {
  label: string;
  vector: Summary;
  /** The word side (per-term lists and the pick): runs while the model embeds the query. */
  words: Summary;
  /** The store's candidate search once the embedding is there (vector search, the pick's cosines, rows, neighbours). */
  candidates: Summary;
  ranking: Summary;
  n: number;
}

export interface PeerRow {
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

export interface ReportInput {
  plan: BenchPlan;
  backend: { text: BackendText; lines: string[] };
  data: BenchData;
  cli: string;
  envStart: { load: string; busy: string };
  envEnd: { load: string; busy: string };
  totalSeconds: number;
  modelRate: number;
  imported: { imported: number; seconds: number; embedSeconds: number };
  importRate: number;
  single: Summary;
  storeSplit: StoreSplit;
  throughput: number;
  scaling: ScalingPoint[];
  profiles: ServerProfile[];
  filters: { rows: number; result: FilterResult } | undefined;
  rows: RecallRow[];
  unserved: UnservedSet[];
  exact: ExactCheck;
  timeSplits: TimeSplit[];
  sameWindow: { label: string; http: Summary } | undefined;
  /** Why the smallest set was not measured alongside the multi-user set, when it was not. */
  sameWindowSkipped: string | undefined;
  peerRows: PeerRow[];
  peerError: string | undefined;
  mcp: McpFigures | undefined;
  mcpError: string | undefined;
}

export function render(r: ReportInput): string {
  const cpu = cpus();
  const singleRows = r.rows.filter((row) => row.users === 1);
  const largest = singleRows[singleRows.length - 1];
  const smallest = singleRows[0];
  const multi = r.rows.find((row) => row.users > 1);
  const per100k = (bytes: number, n: number) => (bytes / n) * 100_000;
  const out: string[] = [];
  const text = r.backend.text;

  out.push(`# agent-memory benchmark${r.backend.text.title}${r.plan.quick ? ' (quick)' : ''}`);
  out.push('');
  out.push(
    `Run ${new Date().toISOString()} in ${seconds(r.totalSeconds)} on ${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, ` +
      `${mib(totalmem())} RAM, Node ${process.version}, embedding model use-lite (${MODEL_DIMENSION} dimensions, in worker threads: the server's pool sized from the cores unless \`--embed-workers\` says otherwise).`,
  );
  out.push('');
  out.push(`Machine load (1/5/15 min): ${r.envStart.load} at the start, ${r.envEnd.load} at the end. The machine is shared: figures are medians, and the ratios (measured interleaved, query by query) are steadier than the absolute times.`);
  out.push(`Busiest processes at the start: ${r.envStart.busy}.`);
  out.push(`At the end: ${r.envEnd.busy}.`);
  out.push('');
  for (const line of r.backend.lines) out.push(line, '');
  if (r.plan.sizesChosen) {
    const users = r.plan.multi.users;
    const spread = users > 0 ? ` and ${count(users * r.plan.multi.perUser)} over ${count(users)} users` : '';
    out.push(`Sizes chosen for this run (\`--sizes\`, \`--multi-users\`): ${r.plan.sizes.map(count).join(', ')} in one user${spread}.`, '');
  }
  out.push(`Data: ${r.data.source}. Servers under test run as ${r.cli}, ${text.perSet}.`);
  out.push('');
  out.push(
    'Large sets: only the target conversation and the filler sentences are embedded by the model (through `agent-memory import`, ' +
      'measured below). Every set is then written through the store\'s bulk path (`insertMemories`, one transaction per 5,000) with ' +
      'those vectors: the target conversation as embedded, filler as copies of a filler sentence\'s vector moved by random noise ' +
      '(cosine 0.82 to 0.96 to the original) with that sentence\'s text. ' +
      text.loadSettings,
  );
  out.push('');

  out.push('## Store');
  out.push('');
  out.push(
    table(
      ['measure', 'value'],
      [
        ['single store over HTTP (POST /v1/memories, one at a time), median / p95', `${ms(r.single.median)} / ${ms(r.single.p95)} (n=${r.single.n})`],
        [`sustained throughput, ${r.plan.clients} concurrent HTTP clients for ${r.plan.throughputSeconds} s`, rate(r.throughput)],
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

  out.push(...renderStoreSplit(r.storeSplit));
  out.push("## The embedding pool's scaling");
  out.push('');
  out.push(...renderScaling(r.scaling, r.plan.cpus, r.plan.clients));

  out.push('## Recall');
  out.push('');
  out.push(
    `Each question of the target conversation (${r.data.queries.length}) as \`limit 10, minScore 0\`, measured three ways, interleaved: ` +
      'over HTTP (POST /v1/memories/recall to `agent-memory serve`), in process (`MemoryService.recall`, same code, no HTTP) and the ' +
      `bare query embedding (the model alone).${multi ? ` Over ${count(multi.users)} users, each question goes to another user.` : ''} ` +
      "recall@10: share of the question's answer memories among the 10 returned.",
  );
  out.push('');
  out.push(
    table(
      ['memories', 'HTTP median', 'HTTP p95', 'HTTP p99', 'in-process median', 'embedding median', 'HTTP / embedding', 'in-process / embedding', 'recall@10', 'server RSS', text.sizeColumn],
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
  for (const u of r.unserved) out.push(`**${u.label}: not served.** One recall in process answered "${u.reason}"; the set was not measured.`, '');
  if (r.exact.n > 0) {
    out.push(
      `Vector search at ${count(r.exact.memories)} memories in one user (k = ${r.exact.k}, what recall asks the store for), ` +
        `${text.indexPath} against exact search over every vector, on the real query ` +
        `embeddings of ${r.exact.n} questions: recall@10 ${r.exact.recall10.toFixed(3)}, recall@50 ${r.exact.recall50.toFixed(3)}, ` +
        `recall@${r.exact.k} ${r.exact.recallK.toFixed(3)} (of the exact top 50's memories with real ` +
        `embeddings, the target conversation's: ${r.exact.realRecall50.toFixed(3)}); median ${ms(r.exact.fast.median)} fast, ` +
        `${ms(r.exact.exact.median)} exact. The synthetic filler makes this a hard case: ` +
        `~${count(Math.round(r.exact.memories / r.data.fillerBases.length))} near-copies of each filler sentence.${r.exact.note ? ` ${r.exact.note}` : ''}`,
    );
    out.push('');
  }

  if (r.timeSplits.length > 0) {
    out.push(
      `Where recall's time goes besides the model (in process, the first 20 questions, one step at a time): ${text.vectorAlone}; ` +
        `the word side (\`findWordMatches\`: ${text.wordSide}, then the best of them), which recall runs while the model embeds ` +
        "the query; the candidate search once the embedding is there (`recallCandidates`: vector search, the word side's pick " +
        'with its cosines, the rows, their neighbours); the ranking of the candidates.',
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
  } else if (r.sameWindowSkipped && multi) {
    out.push(`Not measured in the same minutes as ${multi.label}: ${r.sameWindowSkipped}`);
    out.push('');
  }

  if (r.profiles.length > 0) {
    out.push(`## Where a server's time goes (CPU profile at ${largest ? count(largest.memories) : ''} in one user)`);
    out.push('');
    out.push(
      '`agent-memory serve --cpu-prof` on the set, sent the questions (recall) and then new texts (store) one at a time; V8 samples each ' +
        "thread (tools/bench/profile.ts). The model runs in the embedding workers, so the main thread's time is everything else: " +
        'on the critical path for recall, except the word side, which runs while the model embeds the query.',
    );
    out.push('');
    out.push(...renderProfiles(r.profiles));
  }
  if (r.filters) {
    out.push(`## Filters at ${count(r.filters.rows)}`);
    out.push('');
    out.push(...renderFilters(r.filters));
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
  out.push(table(['set', text.rss, text.sizePer100k], resRows));
  out.push('');

  out.push(`## Against the reference MCP memory server (@modelcontextprotocol/server-memory ${peerVersion()})`);
  out.push('');
  if (r.peerError) out.push(`The reference server failed: ${r.peerError}`);
  else if (r.peerRows.length === 0) out.push(r.plan.peerSizes.length === 0 ? 'Not run: no size up to 100,000.' : 'Not run (`--no-peer`).', '');
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

  const mcpSize = count(Math.min(...r.plan.sizes));
  const peerMcpSize = count(Math.min(...r.plan.peerSizes));
  out.push(`## MCP over stdio (round trip, at ${mcpSize} memories)`);
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
      `\`agent-memory mcp ${text.mcpArgs} --user-id single-0\` on the ${mcpSize}-memory set and the reference server on its ` +
        `${peerMcpSize}-memory file, each spawned ` +
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
  const largestPeer = largest ? r.peerRows.find((p) => p.n === largest.memories) : undefined;
  out.push(
    ...renderSpeedTargets({
      largest: largest ? { memories: largest.memories, http: largest.http.median, embed: largest.embed.median } : undefined,
      peerSearch: largestPeer?.search.median,
      split: r.storeSplit,
      throughput: r.throughput,
      clients: r.plan.clients,
      scaling: r.scaling,
      cpus: r.plan.cpus,
      unserved: r.unserved,
      mcp: r.mcp && smallest
        ? { recall: r.mcp.recall.median, store: r.mcp.store.median, queryEmbed: r.mcp.queryEmbed.median, textEmbed: r.mcp.textEmbed.median, size: smallest.memories }
        : undefined,
    }),
  );
  out.push('Further checks:');
  out.push('');
  const targets: string[][] = [];
  if (largest) {
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
  }
  out.push(table(['target', 'measured', 'ratio to target (≤ 1 is within)', 'result'], targets));
  out.push('');
  out.push('Targets within 5% count as met where a figure must be "no slower" or "at least" another, given the noise of a shared machine.');
  return out.join('\n');
}
