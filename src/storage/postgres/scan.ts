import type { MemoryScan, ScanPage } from '../../core/store.js';
import { withTransaction, type Pool } from './connection.js';
import { iso, MEMORY_COLUMNS, toMemory, type CountRow, type MemoryRow } from './rows.js';
import { Params } from './sql.js';

/**
 * MemoryStore.scanMemories on PostgreSQL: keyset pages over (created_at, id), served by the indexes memories_created
 * and memories_user_created, in one read-only REPEATABLE READ transaction, so every page and the total come from
 * one snapshot while other nodes write. Each page is a short statement of its own: the usual statement timeout
 * holds, however large the table. id is COLLATE "C", so it compares byte-wise, as on SQLite.
 */
export function scanMemories(pool: Pool, scan: MemoryScan, onPage: (page: ScanPage) => Promise<void>): Promise<number> {
  return withTransaction(
    pool,
    async (client) => {
      // Expired memories are invisible to every read, an export's included.
      const now = new Date().toISOString();
      const count = new Params();
      const scope = (params: Params) => [
        `(m.expires_at IS NULL OR m.expires_at > ${params.add(now)}::timestamptz)`,
        ...(scan.userId === undefined ? [] : [`m.user_id = ${params.add(scan.userId)}`]),
        ...(scan.appId === undefined ? [] : [`m.app_id = ${params.add(scan.appId)}`]),
      ];
      const countFilter = `WHERE ${scope(count).join(' AND ')}`;
      const { rows: counted } = await client.query<CountRow>(`SELECT count(*) AS n FROM memories m ${countFilter}`, count.values);
      const total = Number(counted[0]?.n ?? 0);
      let done = 0;
      let last: MemoryRow | undefined;
      for (;;) {
        const p = new Params();
        const conditions = [
          ...scope(p),
          ...(last === undefined ? [] : [`(m.created_at, m.id) > (${p.add(iso(last.created_at))}::timestamptz, ${p.add(last.id)})`]),
        ];
        const { rows } = await client.query<MemoryRow>(
          `SELECT ${MEMORY_COLUMNS} FROM memories m JOIN apps a ON a.id = m.app_id
           WHERE ${conditions.join(' AND ')}
           ORDER BY m.created_at, m.id LIMIT ${p.add(scan.pageSize)}`,
          p.values,
        );
        if (rows.length === 0) return done;
        await onPage({ memories: rows.map(toMemory), total });
        done += rows.length;
        if (rows.length < scan.pageSize) return done;
        last = rows[rows.length - 1];
      }
    },
    { isolation: 'REPEATABLE READ', readOnly: true },
  );
}
