import { existsSync } from 'node:fs';
import type { StorageConfig } from '../runtime/backend.js';
import { ConfigError } from '../runtime/config.js';

/**
 * For commands that work on what is there (export, reembed): a SQLite file that does not exist is a mistake to
 * report, not a new empty database to create.
 */
export function sqliteFileMissing(config: StorageConfig): boolean {
  return config.databaseUrl === undefined && !existsSync(config.dbPath);
}

/** For the SQLite-only maintenance command (backup): a clear refusal on Postgres. */
export function requireSqlite(config: Pick<StorageConfig, 'databaseUrl'>, command: string, instead: string): void {
  if (config.databaseUrl !== undefined) {
    throw new ConfigError(`\`agent-memory ${command}\` works on the SQLite file; for PostgreSQL use ${instead}.`);
  }
}
