import { metadataField } from '../../core/metadata-fields.js';
import type { MemoryFilter } from '../../core/store.js';

/** A piece of SQL with its positional (`?`) arguments, in order. */
export interface SqlPart {
  sql: string;
  args: unknown[];
}

/** The instant a read happens at: the filter's, else the clock's. */
export function nowOf(filter: MemoryFilter | undefined): string {
  return filter?.now ?? new Date().toISOString();
}

/**
 * Conditions (each starting with AND) on the memories aliased `alias` of `userId`: live at `now`, and the filter's
 * metadata and time window. Metadata goes through the memory_fields index, one lookup per key, so a filter over
 * a large user reads the matching rows only; since/until ride on the (user_id, created_at) indexes.
 */
export function filterSql(alias: string, userId: string, filter: MemoryFilter | undefined): SqlPart {
  const parts = [`AND (${alias}.expires_at IS NULL OR ${alias}.expires_at > ?)`];
  const args: unknown[] = [nowOf(filter)];
  if (filter?.since !== undefined) {
    parts.push(`AND ${alias}.created_at >= ?`);
    args.push(filter.since);
  }
  if (filter?.until !== undefined) {
    parts.push(`AND ${alias}.created_at < ?`);
    args.push(filter.until);
  }
  for (const [key, value] of Object.entries(filter?.metadata ?? {})) {
    const field = metadataField(key, value);
    // The schema refuses what cannot be indexed; should one get here, it matches nothing rather than everything.
    if (field === undefined) {
      parts.push('AND 0');
      continue;
    }
    parts.push(`AND ${alias}.rowid IN (SELECT f.memory_rowid FROM memory_fields f WHERE f.user_id = ? AND f.key = ? AND f.value = ?)`);
    args.push(userId, field.key, field.value);
  }
  return { sql: parts.join(' '), args };
}

/** True when the filter narrows more than liveness does (then recall's vector side searches only what it lets through). */
export function narrows(filter: MemoryFilter | undefined): boolean {
  return filter !== undefined && (filter.since !== undefined || filter.until !== undefined || Object.keys(filter.metadata ?? {}).length > 0);
}
