/** The CLI's settings: flags first, then environment variables, then the wiring's defaults. */
import type { LogLevel } from '../core/logger.js';
import { parseTrustProxy } from '../runtime/trust-proxy.js';
import { checkPublicUrl, ConfigError, DEFAULTS, type EndpointConfig, type OAuthConfig, type RuntimeConfig, type ServeConfig } from '../runtime/config.js';

type Env = Record<string, string | undefined>;
type Flags = Record<string, string | boolean | undefined>;

function text(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, not "${raw}".`);
  }
  return Number(raw);
}

/** An integer setting whose default is computed elsewhere (unset or empty: undefined). */
function optionalInteger(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  return raw === undefined || raw === '' ? undefined : integer(name, raw, min, min, max);
}

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export function runtimeConfig(flags: Flags, env: Env): RuntimeConfig {
  const level = text(flags['log-level']) ?? env.MEMORY_LOG_LEVEL ?? DEFAULTS.logLevel;
  if (!LEVELS.includes(level as LogLevel)) throw new ConfigError(`Log level must be one of ${LEVELS.join(', ')}.`);
  const databaseUrl = text(flags['database-url']) ?? (env.DATABASE_URL !== '' ? env.DATABASE_URL : undefined);
  return {
    dbPath: text(flags.db) ?? env.MEMORY_DB_PATH ?? DEFAULTS.dbPath,
    databaseUrl,
    pgPoolSize: integer('MEMORY_PG_POOL', env.MEMORY_PG_POOL, DEFAULTS.pgPoolSize, 1, 1000),
    model: text(flags.model) ?? nonEmpty(env.MEMORY_EMBED_MODEL) ?? DEFAULTS.model,
    endpoint: endpointConfig(flags, env),
    modelDir: text(flags['model-dir']) ?? env.MEMORY_MODEL_DIR,
    embedWorkers: optionalInteger('MEMORY_EMBED_WORKERS', text(flags['embed-workers']) ?? env.MEMORY_EMBED_WORKERS, 1, 64),
    // Measuring only: the model recorded and calibrated under another name (runtime/config.ts).
    ...(env.MEMORY_MODEL_IDENTITY !== undefined && env.MEMORY_MODEL_IDENTITY !== '' ? { modelIdentity: env.MEMORY_MODEL_IDENTITY } : {}),
    logLevel: level as LogLevel,
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** `--embed-url` / MEMORY_EMBED_URL: the model runs behind an OpenAI-compatible API; it needs the model's name there. */
function endpointConfig(flags: Flags, env: Env): EndpointConfig | undefined {
  const url = text(flags['embed-url']) ?? nonEmpty(env.MEMORY_EMBED_URL);
  if (url === undefined) return undefined;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new ConfigError(`The embedding endpoint (--embed-url, MEMORY_EMBED_URL) must be an http(s) URL such as http://127.0.0.1:11434/v1.`);
  }
  if ((text(flags.model) ?? nonEmpty(env.MEMORY_EMBED_MODEL)) === undefined) {
    throw new ConfigError('--embed-url needs the model served there: --model NAME (env MEMORY_EMBED_MODEL), e.g. --model bge-m3.');
  }
  return {
    url,
    apiKey: nonEmpty(env.MEMORY_EMBED_API_KEY),
    queryPrefix: text(flags['query-prefix']) ?? env.MEMORY_EMBED_QUERY_PREFIX,
    documentPrefix: text(flags['document-prefix']) ?? env.MEMORY_EMBED_DOCUMENT_PREFIX,
  };
}

export function serveConfig(flags: Flags, env: Env): ServeConfig {
  return {
    ...runtimeConfig(flags, env),
    port: integer('The port', text(flags.port) ?? env.PORT, DEFAULTS.port, 0, 65535),
    host: text(flags.host) ?? env.HOST ?? DEFAULTS.host,
    apiKey: env.MEMORY_API_KEY !== undefined && env.MEMORY_API_KEY !== '' ? env.MEMORY_API_KEY : undefined,
    rateLimit: integer('MEMORY_RATE_LIMIT', text(flags['rate-limit']) ?? env.MEMORY_RATE_LIMIT, DEFAULTS.rateLimit, 0, 1_000_000_000),
    metricsToken: metricsToken(text(flags['metrics-token']) ?? (env.MEMORY_METRICS_TOKEN !== '' ? env.MEMORY_METRICS_TOKEN : undefined)),
    oauth: oauthConfig(flags, env),
    trustProxy: trustProxy(text(flags['trust-proxy']) ?? (env.MEMORY_TRUST_PROXY !== '' ? env.MEMORY_TRUST_PROXY : undefined)),
  };
}

function trustProxy(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  try {
    return parseTrustProxy(value);
  } catch (error) {
    throw new ConfigError(`--trust-proxy (MEMORY_TRUST_PROXY): ${(error as Error).message}`);
  }
}

/** `--oauth` or MEMORY_OAUTH=1 turns the authorization server on; it needs the public URL (--public-url, MEMORY_PUBLIC_URL). */
function oauthConfig(flags: Flags, env: Env): OAuthConfig | undefined {
  const on = flags.oauth === true || env.MEMORY_OAUTH === '1' || env.MEMORY_OAUTH === 'true';
  if (!on) return undefined;
  const publicUrl = text(flags['public-url']) ?? (env.MEMORY_PUBLIC_URL !== '' ? env.MEMORY_PUBLIC_URL : undefined);
  if (publicUrl === undefined) {
    throw new ConfigError('--oauth needs the URL clients reach this server at: --public-url https://memory.example.com (env MEMORY_PUBLIC_URL).');
  }
  checkPublicUrl(publicUrl);
  return {
    publicUrl,
    accessTtlSeconds: optionalInteger('MEMORY_OAUTH_ACCESS_TTL', env.MEMORY_OAUTH_ACCESS_TTL, 60, 86_400),
    registrationToken: registrationToken(env.MEMORY_OAUTH_REGISTRATION_TOKEN),
  };
}

/** Closed registration's token: an environment variable only (a command line is visible to every local user). */
function registrationToken(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length < MIN_METRICS_TOKEN_LENGTH || /\s/.test(value)) {
    throw new ConfigError(`MEMORY_OAUTH_REGISTRATION_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} characters, without spaces.`);
  }
  return value;
}

/** Shortest metrics token accepted: a guessable one would open the metrics to anyone who can reach the port. */
export const MIN_METRICS_TOKEN_LENGTH = 16;

function metricsToken(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length < MIN_METRICS_TOKEN_LENGTH || /\s/.test(value)) {
    throw new ConfigError(`The metrics token (MEMORY_METRICS_TOKEN, --metrics-token) must be at least ${MIN_METRICS_TOKEN_LENGTH} characters, without spaces.`);
  }
  return value;
}
