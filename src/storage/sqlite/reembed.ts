import type { EmbeddingSwap } from '../../core/store.js';
import type { SqliteDatabase } from './connection.js';
import { replaceVectorIndex } from './vector-index.js';
import { insertVectors } from './vector-search.js';

/**
 * MemoryStore.replaceEmbeddings on SQLite: one IMMEDIATE transaction, held while the few memories stored since the
 * vectors were made are embedded (other writers wait on the busy timeout meanwhile), then the vector tables are
 * dropped, created anew for the new dimension and filled, and the model recorded. A failure anywhere rolls all of it
 * back, so the previous model and vectors stay as they were.
 */
export async function replaceEmbeddings(db: SqliteDatabase, swap: EmbeddingSwap): Promise<number> {
  db.exec('BEGIN IMMEDIATE');
  try {
    const rows = db.prepare('SELECT rowid, id, user_id, app_id FROM memories ORDER BY rowid').all() as Array<{
      rowid: number;
      id: string;
      user_id: string;
      app_id: string;
    }>;
    const late = await embedMissing(db, swap, rows.filter((row) => !swap.vectors.has(row.id)).map((row) => row.id));
    replaceVectorIndex(db, swap.model);
    insertVectors(
      db,
      swap.model.dimension,
      rows.map((row) => {
        const embedding = swap.vectors.get(row.id) ?? late.get(row.id);
        if (!embedding) throw new Error(`No vector was made for the memory ${row.id}.`);
        return { rowid: row.rowid, userId: row.user_id, appId: row.app_id, embedding };
      }),
    );
    // Memories that waited for their vector (core/backfill.ts) have one of the new model now.
    db.exec('UPDATE memories SET vector_pending = 0, vector_claimed_until = NULL WHERE vector_pending = 1');
    db.exec('COMMIT');
    return rows.length;
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

async function embedMissing(db: SqliteDatabase, swap: EmbeddingSwap, ids: string[]): Promise<Map<string, Float32Array>> {
  if (ids.length === 0) return new Map();
  const missing = db
    .prepare('SELECT id, text FROM memories WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id')
    .all(JSON.stringify(ids)) as Array<{ id: string; text: string }>;
  const vectors = await swap.embedMissing(missing);
  if (vectors.length !== missing.length) throw new Error(`${missing.length} memories were to be embedded, ${vectors.length} vectors came back.`);
  return new Map(missing.map((m, i) => [m.id, vectors[i] as Float32Array]));
}
