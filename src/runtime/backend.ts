import { TokenBucketRateLimiter, type RateLimiter } from '../core/rate-limit.js';
import type { Logger } from '../core/logger.js';
import type { MemoryStore } from '../core/store.js';
import { isPostgresUrl, maskDatabaseUrl, openPgStore, PgRateLimiter } from '../storage/postgres/index.js';
import { SqliteStore } from '../storage/sqlite/sqlite-store.js';
import { ConfigError, DEFAULTS } from './config.js';

/** Where the data lives: the SQLite file, unless a PostgreSQL URL is given. */
export interface StorageConfig {
  dbPath: string;
  databaseUrl?: string | undefined;
  pgPoolSize?: number | undefined;
}

/** The opened storage backend: the store, and how shared state (the rate limit) is kept for it. */
export interface Backend {
  store: MemoryStore;
  /** The SQLite store when that is the backend, for SQLite-only maintenance (backup). */
  sqlite: SqliteStore | undefined;
  /** Where the data lives, safe to print: a file path, or the URL with its password masked. */
  location: string;
  /** In process for one SQLite node; in the database for Postgres, so the limit holds across nodes. */
  rateLimiter(perMinute: number): RateLimiter;
}

/** SQLite by default; PostgreSQL when `databaseUrl` is a postgres:// or postgresql:// URL. */
export async function openBackend(config: StorageConfig, logger?: Logger): Promise<Backend> {
  const url = config.databaseUrl;
  if (url !== undefined) {
    if (!isPostgresUrl(url)) {
      throw new ConfigError(`DATABASE_URL must be a postgres:// or postgresql:// URL, not "${maskDatabaseUrl(url)}".`);
    }
    const store = await openPgStore(url, { poolSize: config.pgPoolSize ?? DEFAULTS.pgPoolSize, ...(logger ? { logger } : {}) });
    return {
      store,
      sqlite: undefined,
      location: maskDatabaseUrl(url),
      rateLimiter: (perMinute) => new PgRateLimiter(store.pool, { perMinute, ...(logger ? { logger } : {}) }),
    };
  }
  const store = openSqlite(config.dbPath, logger);
  return {
    store,
    sqlite: store,
    location: config.dbPath,
    rateLimiter: (perMinute) => new TokenBucketRateLimiter({ perMinute }),
  };
}

/** The SQLite file (created and migrated if new), with damage reported to the log: every SQLite backend opens here. */
export function openSqlite(dbPath: string, logger?: Logger): SqliteStore {
  const store = SqliteStore.open({ path: dbPath });
  store.onDamage((error) =>
    logger?.error('the database file is damaged: every request answers 503 until it is restored from a backup', {
      db: dbPath,
      error: error.message,
    }),
  );
  return store;
}
