import { metadataField, metadataFields } from '../../core/metadata-fields.js';
import type { MemoryFilter } from '../../core/store.js';
import type { PoolClient } from './connection.js';
import type { Params } from './sql.js';

/** The instant a read happens at: the filter's, else the clock's. */
export function nowOf(filter: MemoryFilter | undefined): string {
  return filter?.now ?? new Date().toISOString();
}

/** The liveness condition alone (starting with AND): not expired at `now`. */
export function liveSql(alias: string, now: string, p: Params): string {
  return `AND (${alias}.expires_at IS NULL OR ${alias}.expires_at > ${p.add(now)}::timestamptz)`;
}

/**
 * Conditions (each starting with AND) on the memories aliased `alias` of `userId`: live, and the filter's metadata
 * (through the memory_fields index, one lookup per key) and time window (on the (user_id, created_at) indexes).
 */
export function filterSql(alias: string, userId: string, filter: MemoryFilter | undefined, p: Params): string {
  const parts = [liveSql(alias, nowOf(filter), p)];
  if (filter?.since !== undefined) parts.push(`AND ${alias}.created_at >= ${p.add(filter.since)}::timestamptz`);
  if (filter?.until !== undefined) parts.push(`AND ${alias}.created_at < ${p.add(filter.until)}::timestamptz`);
  for (const [key, value] of Object.entries(filter?.metadata ?? {})) {
    const field = metadataField(key, value);
    // The schema refuses what cannot be indexed; should one get here, it matches nothing rather than everything.
    if (field === undefined) {
      parts.push('AND false');
      continue;
    }
    parts.push(
      `AND ${alias}.id IN (SELECT f.memory_id FROM memory_fields f
         WHERE f.user_id = ${p.add(userId)} AND f.key = ${p.add(field.key)} AND f.value = ${p.add(field.value)})`,
    );
  }
  return parts.join(' ');
}

/** Indexes memories' top-level scalar metadata for filters, in the caller's transaction. */
export async function writeFields(
  client: PoolClient,
  memories: ReadonlyArray<{ id: string; userId: string; metadata: Readonly<Record<string, unknown>> }>,
): Promise<void> {
  const rows = memories.flatMap((m) => metadataFields(m.metadata).map((f) => [m.userId, f.key, f.value, m.id] as const));
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO memory_fields (user_id, key, value, memory_id)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING`,
    [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3])],
  );
}
