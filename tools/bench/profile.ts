/**
 * Where a server's time goes, from V8's sampling profiler rather than a guess: the bench starts `agent-memory serve`
 * with `--cpu-prof` (one .cpuprofile per thread: the main thread and each embedding worker), sends it recalls or
 * stores, stops it, and sums the main thread's samples by what they were doing (SQLite, HTTP, validation, ...) and
 * by function. The model runs in the workers, so what is left on the main thread is everything but the model.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildTarget } from './backends.js';
import { BENCH_KEY, startServerChild, type CliCommand } from './children.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileShare {
  name: string;
  ms: number;
}

export interface ProfileSummary {
  /** Wall time the profile covers and, of it, the time the thread was busy (not idle). */
  wallMs: number;
  busyMs: number;
  categories: ProfileShare[];
  functions: ProfileShare[];
}

/** What a sample's own function belongs to, from its source file: the part of the server that spent the time. */
function category(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8 and native code outside JavaScript';
  if (functionName === 'postMessage') return 'postMessage (to and from the embedding workers)';
  if (/better-sqlite3/.test(url)) return 'better-sqlite3 wrappers';
  if (/node_modules\/(pg|pg-protocol|pg-pool)\//.test(url)) return 'PostgreSQL client (pg)';
  if (/\/(src|dist)\/storage\//.test(url)) return 'storage: SQL and its code (src/storage; native SQLite time counts here)';
  if (/\/(src|dist)\/core\/ranking\//.test(url)) return 'ranking (src/core/ranking)';
  if (/node_modules\/zod\/|\/(src|dist)\/core\/(validation|schemas|exact-json|metadata-fields)/.test(url)) return 'validation (zod, schemas)';
  if (/\/(src|dist)\/embeddings\//.test(url)) return 'embedding queue (src/embeddings, main thread)';
  if (/\/(src|dist)\/core\//.test(url)) return 'service (src/core)';
  if (/node_modules\/(express|router|body-parser|raw-body|iconv-lite|send|finalhandler|on-finished|qs|type-is|content-type)\/|\/(src|dist)\/(rest|mcp)\//.test(url)) {
    return 'HTTP (express, src/rest)';
  }
  if (/^node:/.test(url) || url === '') return 'Node.js runtime (http, streams, timers, JSON)';
  if (/node_modules\/@modelcontextprotocol\//.test(url)) return 'MCP SDK';
  return 'other';
}

/** A pause this long with the thread idle marks the end of start-up and warm-up (see `profileServer`). */
export const MARK_PAUSE_MS = 2_500;

/** The first sample after the last idle stretch of at least `MARK_PAUSE_MS * 0.8` (0 when there is none). */
function afterMark(profile: CpuProfile, byId: Map<number, ProfileNode>): number {
  let start = 0;
  let idleSince = -1;
  let idleMs = 0;
  profile.samples.forEach((id, i) => {
    const idle = byId.get(id)?.callFrame.functionName === '(idle)';
    if (!idle) {
      if (idleSince >= 0 && idleMs >= MARK_PAUSE_MS * 0.8) start = i;
      idleSince = -1;
      idleMs = 0;
      return;
    }
    if (idleSince < 0) idleSince = i;
    idleMs += (profile.timeDeltas[i + 1] ?? 0) / 1000;
  });
  return start;
}

/**
 * Sums one .cpuprofile by category and by function (self time, from the sample time deltas). `fromMark`: only the
 * samples after the marking pause, leaving out start-up (module loading, the model's load) and warm-up.
 */
export function summarizeProfile(file: string, top = 12, fromMark = false): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const categories = new Map<string, number>();
  const functions = new Map<string, number>();
  const first = fromMark ? afterMark(profile, byId) : 0;
  let wallMs = 0;
  profile.samples.forEach((id, i) => {
    if (i < first) return;
    const node = byId.get(id);
    // timeDeltas[i] is the time from the previous sample to this one; the time until the next is this sample's.
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    wallMs += ms;
    if (node === undefined) return;
    const name = category(node);
    categories.set(name, (categories.get(name) ?? 0) + ms);
    if (name === 'idle') return;
    const where = node.callFrame.url.replace(/^.*\/(node_modules|src|dist)\//, '$1/');
    const key = `${node.callFrame.functionName || '(anonymous)'} ${where ? `(${where}:${node.callFrame.lineNumber + 1})` : ''}`.trim();
    functions.set(key, (functions.get(key) ?? 0) + ms);
  });
  const sorted = (map: Map<string, number>) => [...map].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
  return {
    wallMs,
    busyMs: wallMs - (categories.get('idle') ?? 0),
    categories: sorted(categories).filter((c) => c.name !== 'idle'),
    functions: sorted(functions).slice(0, top),
  };
}

/** The profiles written to `dir`: the main thread's is the biggest that is not a worker's (workers profile too). */
export function profileFiles(dir: string): { main: string | undefined; workers: string[] } {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(dir, name));
  // Node names each file CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; the main thread is thread 0.
  const main = files.find((file) => /\.\d+\.0\.\d+\.cpuprofile$/.test(file));
  return { main, workers: files.filter((file) => file !== main).sort((a, b) => statSync(b).size - statSync(a).size) };
}

export interface ServerProfile {
  kind: 'recall' | 'store';
  requests: number;
  /** Median of the requests while profiled (the profiler slows them a little). */
  medianMs: number;
  main: ProfileSummary;
  /** Busy time of the embedding workers (the model), summed over them. */
  workersBusyMs: number;
}

export interface ProfileInput {
  cli: CliCommand;
  target: ChildTarget;
  userId: string;
  queries: readonly string[];
  texts: readonly string[];
  rounds: number;
}

/** One recall of `query`, or one store of a new text; returns its time in milliseconds. */
async function send(url: string, kind: 'recall' | 'store', r: { userId: string; query: string; texts: readonly string[]; i: number; round: number }): Promise<number> {
  const body =
    kind === 'recall'
      ? { userId: r.userId, query: r.query, limit: 10, minScore: 0 }
      : { userId: r.userId, text: `${r.texts[Math.max(0, r.i) % r.texts.length] ?? ''} (profiled ${r.round}.${r.i})` };
  const started = performance.now();
  const res = await fetch(`${url}/v1/memories${kind === 'recall' ? '/recall' : ''}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${BENCH_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return performance.now() - started;
}

/** Profiles a server on the set twice, once sending recalls and once stores; see the file comment. */
export async function profileServer(input: ProfileInput): Promise<ServerProfile[]> {
  const out: ServerProfile[] = [];
  for (const kind of ['recall', 'store'] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'agent-memory-bench-prof-'));
    try {
      const cli = { ...input.cli, args: ['--cpu-prof', '--cpu-prof-dir', dir, ...input.cli.args] };
      const server = await startServerChild(cli, input.target);
      const times: number[] = [];
      try {
        // Warm-up, then a pause that marks where the measured requests start in the profile.
        for (const [j, query] of input.queries.slice(0, 5).entries()) await send(server.url, kind, { ...input, query, i: j, round: -1 });
        await new Promise((resolve) => setTimeout(resolve, MARK_PAUSE_MS));
        for (let round = 0; round < input.rounds; round++) {
          for (const [i, query] of input.queries.entries()) times.push(await send(server.url, kind, { ...input, query, i, round }));
        }
      } finally {
        await server.stop();
      }
      const files = profileFiles(dir);
      if (files.main === undefined) throw new Error(`no profile of the server's main thread in ${dir}`);
      times.sort((a, b) => a - b);
      out.push({
        kind,
        requests: times.length,
        medianMs: times[Math.floor(times.length / 2)] ?? Number.NaN,
        main: summarizeProfile(files.main, 12, true),
        workersBusyMs: files.workers.reduce((sum, file) => sum + summarizeProfile(file, 12, true).busyMs, 0),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}
