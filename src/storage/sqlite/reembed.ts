import type { Embedder } from '../../embeddings/types.js';
import type { SqliteDatabase } from './connection.js';
import { readModelRecord, replaceVectorIndex } from './vector-index.js';
import { insertVectors } from './vector-search.js';

export interface ReembedProgress {
  done: number;
  total: number;
}

export interface ReembedResult {
  from: string | undefined;
  to: string;
  dimension: number;
  memories: number;
}

/**
 * Rebuilds every vector with another model. The slow part, embedding, runs first and outside any transaction, so
 * the database stays readable and writable meanwhile; the swap (drop the old vector table, create one of the new
 * dimension, insert every vector, record the model) is one transaction, so a crash leaves the old model intact.
 * Memories stored while the vectors were being computed are embedded inside that transaction.
 * Holds one vector per memory in memory: about 2 KiB each at 512 dimensions.
 */
export async function reembed(
  db: SqliteDatabase,
  embedder: Embedder,
  options: { batchSize?: number; onProgress?: (p: ReembedProgress) => void } = {},
): Promise<ReembedResult> {
  const info = await embedder.ready();
  const batchSize = options.batchSize ?? 64;
  const previous = readModelRecord(db)?.model;
  const total = (db.prepare('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;
  const page = db.prepare('SELECT rowid, text FROM memories WHERE rowid > ? ORDER BY rowid LIMIT ?');
  const vectors = new Map<number, Float32Array>();

  const embedAfter = async (after: number, report: boolean): Promise<number> => {
    let last = after;
    for (;;) {
      const rows = page.all(last, batchSize) as Array<{ rowid: number; text: string }>;
      if (rows.length === 0) return last;
      const embedded = await embedder.embed(
        rows.map((r) => r.text),
        'document',
      );
      rows.forEach((row, i) => {
        const vector = embedded[i];
        if (!vector || vector.length !== info.dimension) throw new Error(`The model returned no vector for memory ${row.rowid}.`);
        vectors.set(row.rowid, vector);
      });
      last = rows[rows.length - 1]?.rowid ?? last;
      if (report) options.onProgress?.({ done: vectors.size, total });
    }
  };

  const lastSeen = await embedAfter(0, true);
  // Rows stored meanwhile: embed them now, then swap at once. Embedding is async, so this catches all but the
  // writes of the last few milliseconds, which the check inside the transaction refuses rather than lose.
  await embedAfter(lastSeen, false);

  const insert = () => {
    const rows = db.prepare('SELECT rowid, user_id, app_id FROM memories').all() as Array<{ rowid: number; user_id: string; app_id: string }>;
    if (rows.some((r) => !vectors.has(r.rowid))) {
      throw new Error('Memories were stored while re-embedding; stop the server and run reembed again.');
    }
    replaceVectorIndex(db, info);
    insertVectors(
      db,
      info.dimension,
      rows.map((row) => ({ rowid: row.rowid, userId: row.user_id, appId: row.app_id, embedding: vectors.get(row.rowid) as Float32Array })),
    );
    return rows.length;
  };
  const memories = db.transaction(insert).immediate();
  return { from: previous, to: info.model, dimension: info.dimension, memories };
}
