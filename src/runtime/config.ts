import type { LogLevel } from '../core/logger.js';

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
  logLevel: LogLevel;
}

export interface ServeConfig extends RuntimeConfig {
  port: number;
  host: string;
  apiKey: string | undefined;
  /** Requests per minute per key; 0 turns rate limiting off. */
  rateLimit: number;
  /** Serves Prometheus metrics at /metrics to `Authorization: Bearer <this>`; undefined: no /metrics at all. */
  metricsToken?: string | undefined;
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
