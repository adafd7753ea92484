import { z } from 'zod';
import { appIdSchema } from '../core/schemas.js';
import { MemoryValidationError } from './errors.js';
import { validate } from './validate.js';

/** The subset of `fetch` the client calls; the global `fetch` (Node 20+, browsers, edge runtimes) fits it. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface MemoryClientOptions {
  /** API key sent as `Authorization: Bearer <key>`. Default: the `MEMORY_API_KEY` environment variable. */
  apiKey?: string | undefined;
  /** Server address. Default: `MEMORY_BASE_URL`, else `http://127.0.0.1:8787`. A trailing slash is fine. */
  baseUrl?: string | undefined;
  /** App used by `store` when the input names none (the server falls back to the key's app, else `default`). */
  appId?: string | undefined;
  /** Time allowed for each attempt, answer body included, in milliseconds. Default 30 000. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt on a network error, timeout, 429 or 5xx. Default 2; 0 turns retries off. */
  maxRetries?: number | undefined;
  /** A `fetch` to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: FetchLike | undefined;
  /** How to wait between attempts; tests inject an instant one. Default: a timer. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 2;
/** Timers overflow above 2^31 - 1 ms and fire at once; a larger timeout would silently mean none. */
const MAX_TIMEOUT_MS = 2_147_483_647;
/** More retries than this only multiplies the wait of a caller whose server is down. */
const MAX_RETRIES = 10;

export interface ResolvedOptions {
  apiKey: string;
  /** Without trailing slashes; paths are appended as `/v1/...`. */
  baseUrl: string;
  appId: string | undefined;
  timeoutMs: number;
  maxRetries: number;
  fetch: FetchLike;
  sleep: (ms: number) => Promise<void>;
}

/**
 * An environment variable, or undefined. The client also runs where there is no `process` (browsers, edge
 * runtimes) or where reading the environment throws (Deno without --allow-env): there, options are the only source.
 */
function readEnv(name: string): string | undefined {
  try {
    if (typeof process === 'undefined') return undefined;
    const value = process.env?.[name];
    return value === undefined || value.trim() === '' ? undefined : value;
  } catch {
    return undefined;
  }
}

const optionsSchema = z.object({
  apiKey: z
    .string({ error: 'apiKey must be a string.' })
    // Header values cannot hold spaces or control characters; fetch would fail with an obscure TypeError.
    .regex(/^[\x21-\x7e]+$/, 'apiKey must be printable ASCII without spaces.'),
  baseUrl: z.string({ error: 'baseUrl must be a string.' }).refine((v) => {
    try {
      const url = new URL(v);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.search === '' && url.hash === '';
    } catch {
      return false;
    }
  }, 'baseUrl must be an http(s) URL without query or fragment, e.g. http://127.0.0.1:8787.'),
  appId: appIdSchema.optional(),
  timeoutMs: z
    .number({ error: 'timeoutMs must be a number of milliseconds.' })
    .positive('timeoutMs must be greater than 0.')
    .max(MAX_TIMEOUT_MS, `timeoutMs must be at most ${MAX_TIMEOUT_MS}.`),
  maxRetries: z
    .number({ error: 'maxRetries must be an integer.' })
    .int('maxRetries must be an integer.')
    .min(0, 'maxRetries must be at least 0.')
    .max(MAX_RETRIES, `maxRetries must be at most ${MAX_RETRIES}.`),
});

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Options, then environment, then defaults; anything unusable is a MemoryValidationError at construction. */
export function resolveOptions(options: MemoryClientOptions = {}): ResolvedOptions {
  const apiKey = options.apiKey ?? readEnv('MEMORY_API_KEY');
  if (apiKey === undefined || apiKey === '') {
    const message = 'No API key: pass { apiKey } to new MemoryClient() or set the MEMORY_API_KEY environment variable.';
    throw new MemoryValidationError(message, [{ path: 'apiKey', message }]);
  }
  const checked = validate(optionsSchema, {
    apiKey,
    baseUrl: options.baseUrl ?? readEnv('MEMORY_BASE_URL') ?? DEFAULT_BASE_URL,
    appId: options.appId,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
  });
  const fetchImpl = options.fetch ?? (typeof fetch === 'function' ? fetch : undefined);
  if (fetchImpl === undefined) {
    const message = 'No global fetch in this runtime: pass { fetch } to new MemoryClient().';
    throw new MemoryValidationError(message, [{ path: 'fetch', message }]);
  }
  return {
    ...checked,
    appId: checked.appId,
    baseUrl: checked.baseUrl.replace(/\/+$/, ''),
    // Called as a plain function: a browser's fetch throws "Illegal invocation" when called as another object's method.
    fetch: (url, init) => fetchImpl(url, init),
    sleep: options.sleep ?? defaultSleep,
  };
}
