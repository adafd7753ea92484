import type { LogLevel } from '../core/logger.js';
import type { ClientLimits } from '../core/oauth/server.js';

/** What the wiring needs to open a runtime; the CLI fills it from flags, then environment variables, then defaults. */
export interface RuntimeConfig {
  dbPath: string;
  /** A postgres:// URL selects the PostgreSQL backend; undefined means the SQLite file at dbPath. */
  databaseUrl?: string | undefined;
  /** Connections this node keeps to PostgreSQL. */
  pgPoolSize?: number | undefined;
  model: string;
  modelDir: string | undefined;
  /** Embedding worker threads (each a copy of the model); undefined sizes the pool from the cores. */
  embedWorkers?: number | undefined;
  /** Endpoint settings when the model is served by an OpenAI-compatible API (`--embed-url`). */
  endpoint?: EndpointConfig | undefined;
  /**
   * Measuring only (`MEMORY_MODEL_IDENTITY`): the model is recorded and calibrated under this name instead of its
   * own, so a model with a built-in calibration can be calibrated by the service and compared with it.
   */
  modelIdentity?: string | undefined;
  logLevel: LogLevel;
}

export interface EndpointConfig {
  /** Base of the API, e.g. http://127.0.0.1:11434/v1 (the service posts to {url}/embeddings). Not recorded anywhere. */
  url: string;
  /** Bearer token (MEMORY_EMBED_API_KEY); never logged or shown. */
  apiKey?: string | undefined;
  /** Overrides of the model family's prefixes (empty string: none). */
  queryPrefix?: string | undefined;
  documentPrefix?: string | undefined;
}

export interface ServeConfig extends RuntimeConfig {
  port: number;
  host: string;
  apiKey: string | undefined;
  /** Requests per minute per key; 0 turns rate limiting off. */
  rateLimit: number;
  /** Serves Prometheus metrics at /metrics to `Authorization: Bearer <this>`; undefined: no /metrics at all. */
  metricsToken?: string | undefined;
  /** The OAuth authorization server for hosted MCP clients (`--oauth`); off when undefined. */
  oauth?: OAuthConfig | undefined;
  /** Reverse proxies whose X-Forwarded-For is believed (`--trust-proxy`, runtime/trust-proxy.ts); none when undefined. */
  trustProxy?: readonly string[] | undefined;
}

export interface OAuthConfig {
  /** The URL clients reach this server at (the TLS proxy's): an origin, https unless on loopback. */
  publicUrl: string;
  /** Access token lifetime in seconds (default 3600). */
  accessTtlSeconds?: number | undefined;
  /** Closed registration: /oauth/register needs `Authorization: Bearer <this>` (MEMORY_OAUTH_REGISTRATION_TOKEN). */
  registrationToken?: string | undefined;
  /** Bounds on registered clients (core/oauth/server.ts DEFAULT_CLIENT_LIMITS); tests lower them. */
  clientLimits?: Partial<ClientLimits> | undefined;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * The public URL as the OAuth server needs it: absolute, https (OAuth 2.1 allows plain http on loopback only), an
 * origin without path, query or fragment (the issuer and the resource identifiers are made from it).
 */
export function checkPublicUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`The public URL "${raw}" is not an absolute URL (https://memory.example.com).`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    throw new ConfigError(`The public URL must be https (plain http only on loopback), not "${raw}": put a TLS proxy in front.`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError(`The public URL must be an origin only (https://memory.example.com), not "${raw}".`);
  }
  return url;
}

export const DEFAULTS = {
  dbPath: './data/memory.db',
  port: 8787,
  host: '127.0.0.1',
  model: 'use-lite',
  rateLimit: 1200,
  pgPoolSize: 10,
  logLevel: 'info' as LogLevel,
} as const;

/** A setting that cannot work (a bad URL, an out-of-range number): the CLI prints its message and exits 1. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
