import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { MemoryStore } from '../core/store.js';
import { openPgStore } from '../storage/postgres/index.js';
import { isPostgresUrl, maskDatabaseUrl } from '../storage/postgres/url.js';
import { SqliteStore } from '../storage/sqlite/sqlite-store.js';
import { ConfigError } from './config.js';

/**
 * A serving node fails a statement after 5 s, to answer fast; a batch of thousands of rows into a busy server may
 * take longer (the HNSW index is maintained row by row), and waiting is right for a bulk copy.
 */
const COPY_STATEMENT_TIMEOUT_MS = 5 * 60_000;

/** A SQLite path or a postgres:// URL, and a name for it that is safe to print. */
export interface Location {
  /** A postgres:// URL, else a SQLite path. */
  value: string;
  postgres: boolean;
  label: string;
  /** What identifies the database, to refuse copying one onto itself. */
  identity: string;
}

export function locateCopyEnd(value: string, role: 'source' | 'target'): Location {
  if (isPostgresUrl(value)) {
    const url = value.trim();
    let identity = url;
    try {
      const u = new URL(url);
      identity = `${u.hostname}:${u.port || '5432'}${u.pathname}?${u.searchParams.get('options') ?? ''}`;
    } catch {
      // Opening it reports the malformed URL (masked).
    }
    return { value: url, postgres: true, label: maskDatabaseUrl(url), identity };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new ConfigError(`--${role === 'source' ? 'from' : 'to'} must be a SQLite file path or a postgres:// URL, not "${maskDatabaseUrl(value)}".`);
  }
  if (role === 'source' && !existsSync(value)) throw new ConfigError(`No SQLite database at ${value} (the source must exist).`);
  let identity = resolve(value);
  try {
    identity = realpathSync(value);
  } catch {
    // A target that does not exist yet is its resolved path.
  }
  return { value, postgres: false, label: value, identity };
}

export async function openCopyEnd(location: Location, role: 'source' | 'target'): Promise<MemoryStore> {
  try {
    // Opening creates (migrates) the schema. Two connections are plenty for one reader or one writer.
    return location.postgres
      ? await openPgStore(location.value, { poolSize: 2, statementTimeoutMs: COPY_STATEMENT_TIMEOUT_MS })
      : SqliteStore.open({ path: location.value });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`Cannot open the ${role} ${location.label}: ${reason}`);
  }
}
