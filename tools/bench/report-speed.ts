/**
 * The report's speed sections (issue 19): the store's time split, the embedding pool's scaling, where a server's
 * time goes (CPU profile), the filters at 100,000, and the speed targets with met / not met.
 */
import type { FilterResult } from './filters.js';
import { filterTable } from './filters.js';
import type { ServerProfile } from './profile.js';
import type { ScalingPoint } from './scaling.js';
import type { StoreSplit } from './store-split.js';
import { count, ms, rate, ratio, type Summary } from './stats.js';

export function table(header: string[], body: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function verdict(ok: boolean | undefined): string {
  return ok === undefined ? 'n/a' : ok ? '**met**' : '**not met**';
}
const medP95 = (s: Summary) => `${ms(s.median)} / ${ms(s.p95)}`;

export function renderStoreSplit(split: StoreSplit): string[] {
  const parts = split.validation.median + split.embedding.median + split.write.median;
  return [
    `One store split into its parts (${split.n} texts, each measured every way, interleaved, order rotated; medians / p95):`,
    '',
    table(
      ['part', 'median / p95', 'share of the HTTP median'],
      [
        ['validation (the zod schema)', medP95(split.validation), ratio(split.validation.median / split.http.median)],
        ['embedding of the text (the model alone, one text)', medP95(split.embedding), ratio(split.embedding.median / split.http.median)],
        ['write (`insertMemory`: duplicate check, row, vector, words; one transaction)', medP95(split.write), ratio(split.write.median / split.http.median)],
        ['the rest of the service (idempotency hash, app, purge poke): service minus the three above', ms(Math.max(0, split.service.median - parts)), ratio(Math.max(0, split.service.median - parts) / split.http.median)],
        ['= the service in process (`MemoryService.store`)', medP95(split.service), ratio(split.service.median / split.http.median)],
        ['HTTP and the response (HTTP minus the service)', ms(Math.max(0, split.http.median - split.service.median)), ratio(Math.max(0, split.http.median - split.service.median) / split.http.median)],
        ['= one store over HTTP (POST /v1/memories)', medP95(split.http), '1.00x'],
      ],
    ),
    '',
  ];
}

export function renderScaling(points: readonly ScalingPoint[], cpus: number, clients: number): string[] {
  const one = points[0];
  if (one === undefined) return [];
  return [
    `At each worker count (\`--embed-workers N\`; the curve goes to \`--cpus\` = ${cpus}): the model through the pool (calls of 64 texts, two in ` +
      `flight, as the import sends them), a bulk import through the \`agent-memory import\` path into a fresh set, and stores over HTTP from ` +
      `${clients} concurrent clients to a server started with that many workers. Ratios are to one worker, measured in the same run.`,
    '',
    table(
      ['workers', 'model through the pool', 'bulk import', 'sustained stores (HTTP)', 'import vs 1 worker', 'stores vs 1 worker'],
      points.map((p) => [String(p.workers), rate(p.model), rate(p.import), rate(p.stores), ratio(p.import / one.import), ratio(p.stores / one.stores)]),
    ),
    '',
  ];
}

export function renderProfiles(profiles: readonly ServerProfile[]): string[] {
  const out: string[] = [];
  for (const p of profiles) {
    const per = (msTotal: number) => ms(msTotal / p.requests);
    out.push(
      `**${p.kind === 'recall' ? 'Recall' : 'Store'}** (${p.requests} requests, one at a time; median ${ms(p.medianMs)} under the profiler): the main thread ` +
        `was busy ${per(p.main.busyMs)} a request, the embedding workers ${per(p.workersBusyMs)} (the model).`,
      '',
      table(
        ['main thread, by part', 'per request', 'share of busy'],
        p.main.categories.slice(0, 8).map((c) => [c.name, per(c.ms), ratio(c.ms / p.main.busyMs)]),
      ),
      '',
      table(
        ['main thread, by function (self time; native SQLite time counts in the calling function)', 'per request'],
        p.main.functions.slice(0, 8).map((f) => [`\`${f.name}\``, per(f.ms)]),
      ),
      '',
    );
  }
  return out;
}

export function renderFilters(filters: { rows: number; result: FilterResult }): string[] {
  return [
    `One user of ${count(filters.rows)} memories (tools/bench/filters.ts, as \`npm run bench:filters\`), median of 9 runs each:`,
    '',
    filterTable(filters.result),
    '',
  ];
}

export interface SpeedTargetInput {
  /** The largest single-user set's recall: HTTP and the bare query embedding, medians. */
  largest: { memories: number; http: number; embed: number } | undefined;
  /** The reference server's search median at that size, when measured. */
  peerSearch: number | undefined;
  split: StoreSplit;
  throughput: number;
  clients: number;
  scaling: readonly ScalingPoint[];
  cpus: number;
  /** Sets the backend could not serve. */
  unserved: ReadonlyArray<{ label: string; memories: number; reason: string }>;
  /** MCP round trips at the smallest set, with that set's query embedding median. */
  mcp: { recall: number; store: number; queryEmbed: number; textEmbed: number; size: number } | undefined;
}

/** The table: each figure, its target, met / not met. A "near-linear" target is read as >= 0.85x per core. */
export function speedTargets(t: SpeedTargetInput): string[][] {
  const rows: string[][] = [];
  for (const u of t.unserved) {
    if (u.memories >= (t.largest?.memories ?? 0)) rows.push([`recall median over HTTP, ${u.label}`, `not served: ${u.reason}`, '< 25 ms and <= 1.4x the embedding', verdict(false)]);
  }
  if (t.largest) {
    const { http, embed, memories } = t.largest;
    rows.push([
      `recall median over HTTP, ${count(memories)} in one user`,
      `${ms(http)} = ${ratio(http / embed)} the bare query embedding (${ms(embed)})`,
      '< 25 ms and <= 1.4x the embedding',
      verdict(http < 25 && http <= 1.4 * embed),
    ]);
    if (t.peerSearch !== undefined) {
      rows.push([
        `... against the reference MCP memory server at ${count(memories)}`,
        `${ratio(t.peerSearch / http, 1)} faster (${ms(t.peerSearch)} vs ${ms(http)})`,
        '>= 10x',
        verdict(t.peerSearch >= 10 * http),
      ]);
    }
  }
  const store = t.split.http.median;
  const embedText = t.split.embedding.median;
  rows.push(['single store over HTTP, median', `${ms(store)} = ${ratio(store / embedText)} the embedding of its text (${ms(embedText)})`, '<= 1.4x the embedding of its text', verdict(store <= 1.4 * embedText)]);
  const one = t.scaling[0];
  const top = t.scaling[t.scaling.length - 1];
  if (top) {
    // The top of the scaling curve: the stores and the model through a pool of the same size, in the same minute.
    rows.push([
      `sustained stores, ${t.clients} clients, ${top.workers} workers`,
      `${rate(top.stores)} vs the model's batch throughput through the same pool ${rate(top.model)} (store phase: ${rate(t.throughput)})`,
      ">= the model's batch throughput",
      verdict(top.stores >= 0.95 * top.model),
    ]);
  }
  if (one && top) {
    const gain = top.import / one.import;
    const want = top.workers <= 2 ? 1.7 : 0.85 * top.workers;
    rows.push([
      `bulk import, ${top.workers} workers on ${t.cpus} cores`,
      `${rate(top.import)} = ${ratio(gain)} one worker's ${rate(one.import)}`,
      top.workers <= 2 ? '>= 1.7x on 2 cores' : `near-linear: >= ${ratio(want)} on ${top.workers}`,
      top.workers === 1 ? 'n/a (one core: no curve)' : verdict(gain >= want),
    ]);
  }
  if (t.mcp) {
    rows.push([
      `MCP stdio round trip at ${count(t.mcp.size)}: recall`,
      `${ms(t.mcp.recall)} = ${ratio(t.mcp.recall / t.mcp.queryEmbed)} the query embedding (${ms(t.mcp.queryEmbed)}, measured after each call)`,
      '<= 1.3x the embedding',
      verdict(t.mcp.recall <= 1.3 * t.mcp.queryEmbed),
    ]);
    rows.push([
      `MCP stdio round trip at ${count(t.mcp.size)}: store`,
      `${ms(t.mcp.store)} = ${ratio(t.mcp.store / t.mcp.textEmbed)} the embedding of its text (${ms(t.mcp.textEmbed)}, measured after each call)`,
      '<= 1.5x the embedding',
      verdict(t.mcp.store <= 1.5 * t.mcp.textEmbed),
    ]);
  }
  return rows;
}

export function renderSpeedTargets(t: SpeedTargetInput): string[] {
  return [table(['figure (issue 19)', 'measured', 'target', 'result'], speedTargets(t)), ''];
}
