/**
 * Soak test: mixed traffic (stores, lists, recalls, deletes) from concurrent clients against the real server on
 * loopback, bounded in time and in requests, while the server process's resident memory is sampled. Prints
 * requests/s and latency p50/p95/p99 per route as a markdown table, and the memory trend.
 *
 *   npm run build && node --import tsx tools/soak.ts --seconds 60 [--clients 8] [--max-requests 100000]
 *                                                    [--rate-limit 0] [--seed 1] [--json]
 *
 * Exit code 0 when no request failed (a 429 counts as intended only when --rate-limit is set), 1 otherwise.
 * A short run of the same code is part of the test suite (test/reliability/soak.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startSoakServer, rssMb } from './soak/server.js';
import { mulberry32 as prng } from './shared/prng.js';
import { memoryTrend, routeStats, type MemoryTrend, type RouteStats, type RssSample } from './soak/stats.js';

export interface SoakOptions {
  seconds: number;
  clients: number;
  /** Stop after this many requests in all, even if time remains. */
  maxRequests: number;
  /** The server's per-key budget per minute; 0 = off. When on, 429s are expected and honoured (Retry-After). */
  rateLimit: number;
  seed: number;
  /** Most memories a client keeps; beyond it, it deletes its oldest, so the database stays bounded. */
  maxMemoriesPerClient: number;
  /** RSS sampling period. */
  sampleMs: number;
  /** Samples taken in this first part of the run (caches, JIT, SQLite page cache filling) are left out of the trend. */
  warmupSeconds: number;
  /** Progress lines on stderr. */
  log?: (line: string) => void;
}

export const DEFAULT_SOAK: SoakOptions = {
  seconds: 60,
  clients: 8,
  maxRequests: 1_000_000,
  rateLimit: 0,
  seed: 1,
  maxMemoriesPerClient: 150,
  sampleMs: 500,
  warmupSeconds: 10,
};

export interface SoakReport {
  options: Omit<SoakOptions, 'log'>;
  seconds: number;
  requests: number;
  perSecond: number;
  /** Failures: network errors, 5xx, and any 4xx except an expected 429. */
  errors: number;
  errorSamples: string[];
  /** 429s received while rate limiting was on (intended). */
  limited: number;
  routes: RouteStats[];
  memory: MemoryTrend;
  rss: RssSample[];
  serverExitCode: number | null;
}

const KEY = `amk_${'S'.repeat(40)}`;

type Route =
  | 'POST /v1/memories'
  | 'GET /v1/memories/:userId'
  | 'GET /v1/memories/recall'
  | 'POST /v1/memories/recall'
  | 'DELETE /v1/memories/:id'
  | 'POST /v1/memories/batch-delete';

const ROUTES: Route[] = [
  'POST /v1/memories',
  'GET /v1/memories/:userId',
  'GET /v1/memories/recall',
  'POST /v1/memories/recall',
  'DELETE /v1/memories/:id',
  'POST /v1/memories/batch-delete',
];

const TOPICS = [
  'prefers green tea in the morning',
  'is allergic to peanuts',
  'runs a half marathon every spring',
  'works on a Rust compiler at night',
  'has a cat called Miso',
  'plans a trip to Lisbon in May',
  'keeps the budget in a spreadsheet',
  'plays jazz piano on Sundays',
];
const QUESTIONS = ['what does the user drink?', 'any allergies?', 'travel plans', 'what pets?', 'hobbies and music', 'sports'];


export async function runSoak(partial: Partial<SoakOptions> = {}): Promise<SoakReport> {
  const options: SoakOptions = {
    ...DEFAULT_SOAK,
    warmupSeconds: Math.min(DEFAULT_SOAK.warmupSeconds, (partial.seconds ?? DEFAULT_SOAK.seconds) / 4),
    ...partial,
  };
  const log = options.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-soak-'));
  const server = await startSoakServer({ dbPath: join(dir, 'soak.db'), apiKey: KEY, rateLimit: options.rateLimit });
  const latencies = new Map<Route, number[]>(ROUTES.map((r) => [r, []]));
  const routeErrors = new Map<Route, number>(ROUTES.map((r) => [r, 0]));
  const routeLimited = new Map<Route, number>(ROUTES.map((r) => [r, 0]));
  const errorSamples: string[] = [];
  let requests = 0;
  let limited = 0;
  let errors = 0;
  const rss: RssSample[] = [];
  let serverExitCode: number | null = null;
  const started = performance.now();
  let elapsed = 0;
  try {
    const deadline = started + options.seconds * 1000;
    const sampler = setInterval(() => {
      try {
        rss.push({ atMs: performance.now() - started, rssMb: rssMb(server.pid) });
      } catch {
        // The process is gone; the error shows in the requests.
      }
    }, options.sampleMs);
    let lastProgress = started;

    const call = async (route: Route, path: string, init: { method: string; json?: unknown }): Promise<unknown> => {
      requests++;
      const t0 = performance.now();
      let status = 0;
      let text = '';
      let retryAfter = 1;
      try {
        const res = await fetch(`${server.url}${path}`, {
          method: init.method,
          headers: {
            Authorization: `Bearer ${KEY}`,
            ...(init.json !== undefined ? { 'Content-Type': 'application/json' } : {}),
          },
          ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
        });
        status = res.status;
        text = await res.text();
        retryAfter = Number(res.headers.get('retry-after') ?? 1);
      } catch (error) {
        text = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error);
      }
      const ms = performance.now() - t0;
      latencies.get(route)?.push(ms);
      if (status === 429 && options.rateLimit > 0) {
        limited++;
        routeLimited.set(route, (routeLimited.get(route) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, Math.min(5_000, retryAfter * 1000)));
        return undefined;
      }
      if (status < 200 || status >= 300) {
        errors++;
        routeErrors.set(route, (routeErrors.get(route) ?? 0) + 1);
        if (errorSamples.length < 20) errorSamples.push(`${route} -> ${status} ${text.slice(0, 200)}`);
        return undefined;
      }
      const now = performance.now();
      if (now - lastProgress > 10_000) {
        lastProgress = now;
        log(`soak: ${Math.round((now - started) / 1000)} s, ${requests} requests, ${errors} errors`);
      }
      return text === '' ? undefined : JSON.parse(text);
    };

    const client = async (n: number): Promise<void> => {
      const random = prng(options.seed * 1000 + n);
      const userId = `soak-user-${n}`;
      const mine: string[] = [];
      let i = 0;
      while (performance.now() < deadline && requests < options.maxRequests) {
        i++;
        const roll = random();
        const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
        if (mine.length >= options.maxMemoriesPerClient) {
          // Keep the database bounded: forget the oldest ten in one call.
          const ids = mine.splice(0, 10);
          await call('POST /v1/memories/batch-delete', '/v1/memories/batch-delete', { method: 'POST', json: { ids } });
        } else if (roll < 0.4 || mine.length < 2) {
          const body = await call('POST /v1/memories', '/v1/memories', {
            method: 'POST',
            json: { userId, text: `The user ${pick(TOPICS)} (note ${i} of client ${n}).`, metadata: { n, i, source: 'soak' } },
          });
          const id = (body as { id?: string } | undefined)?.id;
          if (id) mine.push(id);
        } else if (roll < 0.6) {
          await call('GET /v1/memories/:userId', `/v1/memories/${userId}?pageSize=${1 + Math.floor(random() * 50)}&page=${Math.floor(random() * 3)}`, {
            method: 'GET',
          });
        } else if (roll < 0.75) {
          await call('GET /v1/memories/recall', `/v1/memories/recall?userId=${userId}&query=${encodeURIComponent(pick(QUESTIONS))}&minScore=0.3`, {
            method: 'GET',
          });
        } else if (roll < 0.85) {
          await call('POST /v1/memories/recall', '/v1/memories/recall', {
            method: 'POST',
            json: { userId, query: pick(QUESTIONS), limit: 10, minScore: 0 },
          });
        } else {
          const index = Math.floor(random() * mine.length);
          const [id] = mine.splice(index, 1);
          if (id) await call('DELETE /v1/memories/:id', `/v1/memories/${id}`, { method: 'DELETE' });
        }
      }
    };

    log(`soak: ${options.clients} clients for ${options.seconds} s against ${server.url} (pid ${server.pid})`);
    await Promise.all(Array.from({ length: options.clients }, (_, n) => client(n)));
    elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    rss.push({ atMs: performance.now() - started, rssMb: rssMb(server.pid) });
  } finally {
    serverExitCode = await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const { log: _log, ...rest } = options;
  return {
    options: rest,
    seconds: elapsed,
    requests,
    perSecond: requests / elapsed,
    errors,
    errorSamples,
    limited,
    routes: ROUTES.map((r) => routeStats(r, latencies.get(r) ?? [], routeErrors.get(r) ?? 0, routeLimited.get(r) ?? 0, elapsed)),
    memory: memoryTrend(rss.filter((r) => r.atMs >= options.warmupSeconds * 1000)),
    rss,
    serverExitCode,
  };
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

function rssTimeline(samples: readonly RssSample[]): number[] {
  if (samples.length === 0) return [];
  const end = samples[samples.length - 1]?.atMs ?? 1;
  const buckets = Array.from({ length: 10 }, () => [] as number[]);
  for (const s of samples) buckets[Math.min(9, Math.floor((s.atMs / end) * 10))]?.push(s.rssMb);
  return buckets.filter((b) => b.length > 0).map((b) => b.reduce((x, y) => x + y, 0) / b.length);
}

export function formatReport(report: SoakReport): string {
  const lines = [
    `## Soak: ${report.options.clients} clients, ${fmt(report.seconds)} s, ${report.requests} requests (${fmt(report.perSecond)} req/s)`,
    '',
    '| Route | Requests | req/s | p50 ms | p95 ms | p99 ms | max ms | Errors | 429 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...report.routes.map(
      (r) =>
        `| ${r.route} | ${r.requests} | ${fmt(r.perSecond)} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.p99)} | ${fmt(r.max)} | ${r.errors} | ${r.limited} |`,
    ),
    '',
    `Server RSS (${report.memory.samples} samples every ${report.options.sampleMs} ms after ${fmt(report.options.warmupSeconds)} s of warm-up): first ${fmt(report.memory.firstMb)} MB, ` +
      `min ${fmt(report.memory.minMb)}, max ${fmt(report.memory.maxMb)}, last ${fmt(report.memory.lastMb)} MB; ` +
      `mean of first third ${fmt(report.memory.earlyMeanMb)} MB, of last third ${fmt(report.memory.lateMeanMb)} MB; ` +
      `trend ${fmt(report.memory.slopeMbPerMin, 2)} MB/min.`,
    `RSS over time (MB, mean per tenth of the run): ${rssTimeline(report.rss).map((mb) => fmt(mb, 0)).join(' → ')}.`,
    '',
    `Errors: ${report.errors}${report.limited > 0 ? ` (plus ${report.limited} intended 429s)` : ''}. Server exit code after SIGTERM: ${report.serverExitCode}.`,
    ...(report.errorSamples.length > 0 ? ['', 'First errors:', ...report.errorSamples.map((e) => `- ${e}`)] : []),
  ];
  return lines.join('\n');
}

async function cli(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string' },
      clients: { type: 'string' },
      'max-requests': { type: 'string' },
      'rate-limit': { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const num = (v: string | undefined, fallback: number, name: string) => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number >= 0`);
    return n;
  };
  const report = await runSoak({
    seconds: num(values.seconds, DEFAULT_SOAK.seconds, 'seconds'),
    clients: Math.max(1, Math.floor(num(values.clients, DEFAULT_SOAK.clients, 'clients'))),
    maxRequests: num(values['max-requests'], DEFAULT_SOAK.maxRequests, 'max-requests'),
    rateLimit: num(values['rate-limit'], DEFAULT_SOAK.rateLimit, 'rate-limit'),
    seed: num(values.seed, DEFAULT_SOAK.seed, 'seed'),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${values.json ? JSON.stringify(report, null, 2) : formatReport(report)}\n`);
  return report.errors === 0 && report.serverExitCode === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  cli(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`soak: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
