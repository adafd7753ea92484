import { once } from 'node:events';
import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import type { Writable } from 'node:stream';
import type { SqliteDatabase } from '../../storage/sqlite/connection.js';
import { SqliteStore } from '../../storage/sqlite/sqlite-store.js';
import { requireSqlite } from '../backend.js';
import type { RuntimeConfig } from '../config.js';
import type { Output } from '../output.js';
import { createProgress, formatCount } from '../progress.js';

/**
 * `agent-memory export FILE.jsonl` (or `-` for stdout): every memory, oldest first, one JSON object per line in
 * the format `agent-memory import` reads (`userId`, `text`, `appId` as the app slug, `metadata`, `createdAt`, and
 * `id` when the memory has an external id), so export then import is a round trip. Memory ids are not exported:
 * an import assigns its own. Streaming and consistent: one read snapshot, pages of rows, the file written under a
 * temporary name and renamed at the end, so an interrupted export leaves no partial file.
 */

const PAGE = 1000;

export interface ExportOptions {
  /** Only this user's memories. */
  userId?: string | undefined;
  onProgress?: (done: number, total: number) => void;
}

interface ExportRow {
  rowid: number;
  user_id: string;
  app_slug: string;
  text: string;
  metadata: string;
  created_at: string;
}

/** One export line (no trailing newline). */
export function exportLine(row: { userId: string; text: string; appSlug: string; metadata: Record<string, unknown>; createdAt: string }): string {
  const external = row.metadata.externalId;
  return JSON.stringify({
    userId: row.userId,
    text: row.text,
    appId: row.appSlug,
    metadata: row.metadata,
    createdAt: row.createdAt,
    ...(typeof external === 'string' && external.length > 0 ? { id: external } : {}),
  });
}

async function write(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/** Writes the memories to `out` (not closed here); returns how many. */
export async function exportJsonl(db: SqliteDatabase, out: Writable, options: ExportOptions = {}): Promise<number> {
  const userFilter = options.userId === undefined ? '' : 'AND m.user_id = @userId';
  const page = db.prepare(
    `SELECT m.rowid AS rowid, m.user_id AS user_id, a.slug AS app_slug, m.text AS text, m.metadata AS metadata,
            m.created_at AS created_at
     FROM memories m JOIN apps a ON a.id = m.app_id
     WHERE m.rowid > @after ${userFilter} ORDER BY m.rowid LIMIT ${PAGE}`,
  );
  // One snapshot for the whole export, even while a server keeps writing (WAL readers do not block writers).
  db.exec('BEGIN');
  try {
    const total = (
      db.prepare(`SELECT COUNT(*) AS n FROM memories m WHERE 1 = 1 ${userFilter}`).get(options.userId === undefined ? {} : { userId: options.userId }) as {
        n: number;
      }
    ).n;
    let after = 0;
    let done = 0;
    for (;;) {
      const rows = page.all({ after, ...(options.userId === undefined ? {} : { userId: options.userId }) }) as ExportRow[];
      if (rows.length === 0) break;
      let chunk = '';
      for (const row of rows) {
        const metadata = JSON.parse(row.metadata) as Record<string, unknown>;
        chunk += `${exportLine({ userId: row.user_id, text: row.text, appSlug: row.app_slug, metadata, createdAt: row.created_at })}\n`;
      }
      await write(out, chunk);
      done += rows.length;
      after = rows[rows.length - 1]?.rowid ?? after;
      options.onProgress?.(done, total);
    }
    return done;
  } finally {
    db.exec('COMMIT');
  }
}

export async function exportCommand(config: RuntimeConfig, target: string, options: { userId?: string | undefined }, out: Output): Promise<number> {
  requireSqlite(config, 'export', 'pg_dump, or `agent-memory export` on a SQLite copy');
  if (!existsSync(config.dbPath)) {
    out.notice(`agent-memory export: no database at ${config.dbPath}.`);
    return 1;
  }
  const toStdout = target === '-';
  if (!toStdout && existsSync(target)) {
    out.notice(`${target} already exists; choose a new path (an export never overwrites a file).`);
    return 1;
  }
  const store = SqliteStore.open({ path: config.dbPath });
  const progress = createProgress({ label: 'export' });
  const temp = toStdout ? undefined : join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  const stream: Writable = temp === undefined ? process.stdout : createWriteStream(temp, { flags: 'wx' });
  const started = performance.now();
  try {
    const n = await exportJsonl(store.database, stream, {
      userId: options.userId,
      onProgress: (done, total) => progress.update({ done, total }),
    });
    if (temp !== undefined) {
      stream.end();
      await once(stream, 'finish');
      renameSync(temp, target);
    }
    progress.done();
    out.notice(
      `Exported ${formatCount(n)} memories${options.userId === undefined ? '' : ` of user "${options.userId}"`} to ` +
        `${toStdout ? 'stdout' : target} in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
    );
    return 0;
  } catch (error) {
    if (temp !== undefined) {
      stream.destroy();
      rmSync(temp, { force: true });
    }
    throw error;
  } finally {
    progress.done();
    await store.close();
  }
}
