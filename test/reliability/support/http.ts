/** Small HTTP helpers for the reliability tests: JSON calls with a key, and raw requests fetch refuses to send. */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { onTestFailed } from 'vitest';

export interface JsonResult<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function callJson<T = unknown>(
  baseUrl: string,
  key: string,
  path: string,
  init: { method?: string; json?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<JsonResult<T>> {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}`, ...init.headers };
  if (init.json !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body: body as T, text };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * node:http request with no client-side checks on the path beyond Node's own (so malformed percent-encoding,
 * duplicate headers, odd methods and huge headers reach the server).
 */
export function rawRequest(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string | string[]>; body?: string | Buffer; timeoutMs?: number },
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port: Number(port), method: options.method ?? 'GET', path: options.path, headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error('raw request timed out')));
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * Writes bytes on a plain TCP socket and reads the reply until the server closes it: for requests that no HTTP
 * client will form (invalid request lines, bare LF, control characters in header values).
 */
export function rawSocket(url: string, bytes: string | Buffer, timeoutMs = 10_000): Promise<RawResponse & { raw: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('raw socket timed out'));
    }, timeoutMs);
    socket.on('connect', () => socket.end(bytes));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = raw.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, text: rest.join('\r\n\r\n'), raw });
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}


export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Seeded PRNG, so that a failing randomized run can be replayed from the seed it prints. */
export { mulberry32 as prng } from '../../../tools/shared/prng.js';

/**
 * The seed of a randomized test, called inside the test: RELIABILITY_SEED when set (a replay), else a new one.
 * When the test fails the seed is printed with the command line that replays it.
 */
export function testSeed(): number {
  const seed = Number(process.env.RELIABILITY_SEED ?? Date.now() % 1_000_000);
  onTestFailed(({ task }) => {
    console.error(`"${task.name}" failed with seed ${seed}; replay: RELIABILITY_SEED=${seed} npx vitest run ${task.file.name}`);
  });
  return seed;
}
