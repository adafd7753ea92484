import { MemoryError } from '../../core/errors.js';
import type { ModelRecord } from '../../core/store.js';
import type { SqliteDatabase } from './connection.js';

/**
 * Vectors live in a sqlite-vec `vec0` table partitioned by user, so a recall scans only that user's vectors.
 * chunk_size: vec0 allocates a whole chunk per partition up front (chunk_size x dimension x 4 bytes); the default
 * 1024 would cost 2 MiB for a user with one memory, 64 costs 128 KiB and still scans large users quickly.
 */
export const VECTOR_CHUNK_SIZE = 64;

const MODEL_KEY = 'embedding_model';
const DIMENSION_KEY = 'embedding_dimension';

export function readModelRecord(db: SqliteDatabase): ModelRecord | undefined {
  const rows = db
    .prepare('SELECT key, value FROM meta WHERE key IN (?, ?)')
    .all(MODEL_KEY, DIMENSION_KEY) as Array<{ key: string; value: string }>;
  const model = rows.find((r) => r.key === MODEL_KEY)?.value;
  const dimension = rows.find((r) => r.key === DIMENSION_KEY)?.value;
  if (model === undefined || dimension === undefined) return undefined;
  return { model, dimension: Number(dimension) };
}

function createVectorTable(db: SqliteDatabase, dimension: number): void {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 8192) {
    throw new Error(`Invalid embedding dimension ${dimension}.`);
  }
  db.exec(`
    CREATE VIRTUAL TABLE memory_vectors USING vec0(
      user_id TEXT PARTITION KEY,
      app_id TEXT,
      embedding FLOAT[${dimension}] distance_metric=cosine,
      chunk_size=${VECTOR_CHUNK_SIZE}
    );
  `);
}

function writeModelRecord(db: SqliteDatabase, record: ModelRecord): void {
  const upsert = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  upsert.run(MODEL_KEY, record.model);
  upsert.run(DIMENSION_KEY, String(record.dimension));
}

/**
 * Makes sure the vector table exists for this model. A database made with another model is refused: its vectors
 * are not comparable with the new model's, and mixing them would silently ruin recall.
 */
export function ensureVectorIndex(db: SqliteDatabase, model: ModelRecord): void {
  db.transaction(() => {
    const existing = readModelRecord(db);
    if (existing === undefined) {
      createVectorTable(db, model.dimension);
      writeModelRecord(db, model);
      return;
    }
    if (existing.model !== model.model || existing.dimension !== model.dimension) {
      throw new MemoryError(
        'unavailable',
        `This database was built with the embedding model "${existing.model}" (${existing.dimension} dimensions), ` +
          `not "${model.model}" (${model.dimension}). Run \`agent-memory reembed\` to rebuild its vectors with the new ` +
          `model, or start with the model it was built with.`,
      );
    }
  }).immediate();
}

/** Drops and recreates the vector table for another model; the caller refills it in the same transaction. */
export function replaceVectorIndex(db: SqliteDatabase, model: ModelRecord): void {
  db.exec('DROP TABLE IF EXISTS memory_vectors');
  createVectorTable(db, model.dimension);
  writeModelRecord(db, model);
}
