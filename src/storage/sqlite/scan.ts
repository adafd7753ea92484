import type { MemoryScan, ScanPage } from '../../core/store.js';
import type { SqliteDatabase } from './connection.js';
import { MEMORY_COLUMNS, toMemory, type MemoryRow } from './rows.js';

/**
 * MemoryStore.scanMemories on one connection: keyset pages over (created_at, id), served by the indexes
 * memories_created and memories_user_created, inside one read transaction (a WAL snapshot: writers carry on). The
 * timestamps are ISO strings of one width (years 1 to 9999), so their text order is their time order, as on
 * PostgreSQL; ids compare byte-wise on both.
 */
export async function scanMemories(db: SqliteDatabase, scan: MemoryScan, onPage: (page: ScanPage) => Promise<void>): Promise<number> {
  // Expired memories are invisible to every read, an export's included.
  const user = [
    ...(scan.userId === undefined ? [] : ['m.user_id = @userId']),
    ...(scan.appId === undefined ? [] : ['m.app_id = @appId']),
    '(m.expires_at IS NULL OR m.expires_at > @now)',
  ].join(' AND ');
  const from = `FROM memories m JOIN apps a ON a.id = m.app_id`;
  const order = `ORDER BY m.created_at, m.id LIMIT @limit`;
  const first = db.prepare(`SELECT ${MEMORY_COLUMNS} ${from} WHERE ${user} ${order}`);
  const next = db.prepare(`SELECT ${MEMORY_COLUMNS} ${from} WHERE ${user} AND (m.created_at, m.id) > (@createdAt, @id) ${order}`);
  const filter = {
    now: new Date().toISOString(),
    ...(scan.userId === undefined ? {} : { userId: scan.userId }),
    ...(scan.appId === undefined ? {} : { appId: scan.appId }),
  };
  // Deferred: the snapshot starts with the first read and holds until the end.
  db.exec('BEGIN');
  try {
    const { total } = db.prepare(`SELECT COUNT(*) AS total FROM memories m WHERE ${user}`).get(filter) as { total: number };
    let done = 0;
    let last: MemoryRow | undefined;
    for (;;) {
      const rows = (
        last === undefined
          ? first.all({ ...filter, limit: scan.pageSize })
          : next.all({ ...filter, limit: scan.pageSize, createdAt: last.created_at, id: last.id })
      ) as MemoryRow[];
      if (rows.length === 0) return done;
      await onPage({ memories: rows.map(toMemory), total });
      done += rows.length;
      if (rows.length < scan.pageSize) return done;
      last = rows[rows.length - 1];
    }
  } finally {
    if (db.inTransaction) db.exec('COMMIT');
  }
}
