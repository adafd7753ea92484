import { existsSync } from 'node:fs';
import type { RuntimeConfig } from '../../runtime/config.js';
import type { Output } from '../../runtime/output.js';
import { openSqlite } from '../../runtime/backend.js';
import { requireSqlite } from '../storage-checks.js';

/**
 * A consistent online copy through SQLite's backup API: it copies pages while the server keeps serving and
 * restarts on its own when a writer changes a page it already copied.
 */
export async function backup(config: RuntimeConfig, target: string, out: Output): Promise<number> {
  if (existsSync(target)) {
    out.notice(`${target} already exists; choose a new path (a backup never overwrites a file).`);
    return 1;
  }
  requireSqlite(config, 'backup', '`pg_dump`');
  const store = openSqlite(config.dbPath);
  try {
    const started = Date.now();
    const { totalPages } = await store.backup(target);
    out.notice(`Backed up ${config.dbPath} to ${target} (${totalPages} pages) in ${Date.now() - started} ms.`);
    return 0;
  } finally {
    await store.close();
  }
}
