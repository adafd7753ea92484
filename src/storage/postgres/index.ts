/**
 * The PostgreSQL backend: many stateless nodes sharing one database. Select it with a `postgres://` or
 * `postgresql://` DATABASE_URL (see isPostgresUrl).
 */
import { PgStore, type PgStoreOptions } from './pg-store.js';

export { PgStore, type PgStoreOptions } from './pg-store.js';
export { PgRateLimiter, type PgRateLimiterOptions } from './pg-rate-limiter.js';
export { isPostgresUrl, maskDatabaseUrl } from './url.js';

/** Connects to `url`, migrates the schema and returns the store; rejects with MemoryError 'unavailable' if it cannot. */
export function openPgStore(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
  return PgStore.open(url, options);
}
