import { metadataFields } from '../../core/metadata-fields.js';
import type { SqliteDatabase } from './connection.js';

/** Indexes a memory's top-level scalar metadata for filters (filters.ts), in the caller's transaction. */
export function writeFields(db: SqliteDatabase, rowid: number, userId: string, metadata: Readonly<Record<string, unknown>>): void {
  const fields = metadataFields(metadata);
  if (fields.length === 0) return;
  const insert = db.prepare('INSERT OR IGNORE INTO memory_fields (user_id, key, value, memory_rowid) VALUES (?, ?, ?, ?)');
  for (const field of fields) insert.run(userId, field.key, field.value, rowid);
}

/** Drops the metadata entries of these memories (deleted, or about to be indexed afresh). */
export function deleteFields(db: SqliteDatabase, rowids: readonly number[]): void {
  if (rowids.length === 0) return;
  db.prepare('DELETE FROM memory_fields WHERE memory_rowid IN (SELECT value FROM json_each(?))').run(JSON.stringify(rowids));
}
