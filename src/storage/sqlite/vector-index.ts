import { MemoryError } from '../../core/errors.js';
import type { ModelRecord } from '../../core/store.js';
import type { SqliteDatabase } from './connection.js';
import {
  CODES_TABLE,
  createCodesTable,
  createVectorTables,
  hasTable,
  isVirtualVectorTable,
  buildCodes,
  clearCenter,
  VECTORS_TABLE,
} from './vector-search.js';

/**
 * The vector index for the declared model: `memory_vectors` (the float vectors) and `memory_vector_codes` (their
 * sign bits, in per-user blocks, for a fast pre-filter); see vector-search.ts for the layout and the search.
 *
 * A file whose codes table is missing (or was dropped to repair it) gets it rebuilt from the float vectors. Files of
 * the pre-release layout (a sqlite-vec virtual table) are refused with a message: the extension is no longer loaded.
 */

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
  createVectorTables(db);
}

/** Rebuilds the codes table when it is missing, in the caller's transaction; refuses the pre-release layout. */
function upgradeVectorIndex(db: SqliteDatabase, dimension: number): void {
  if (isVirtualVectorTable(db)) {
    throw new MemoryError(
      'unavailable',
      'This database keeps its vectors in a sqlite-vec table, the layout of a pre-release version, which this version ' +
        'no longer reads. Export it with that version (`agent-memory export`) and import the file into a new database.',
    );
  }
  if (!hasTable(db, CODES_TABLE)) {
    createCodesTable(db);
    buildCodes(db, dimension);
  }
}

function writeModelRecord(db: SqliteDatabase, record: ModelRecord): void {
  const upsert = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  upsert.run(MODEL_KEY, record.model);
  upsert.run(DIMENSION_KEY, String(record.dimension));
}

/**
 * Makes sure the vector tables exist for this model, upgrading an older layout in place. A database made with
 * another model is refused: its vectors are not comparable with the new model's, and mixing them would silently
 * ruin recall.
 */
export function ensureVectorIndex(db: SqliteDatabase, model: ModelRecord): void {
  db.transaction(() => {
    const existing = readModelRecord(db);
    if (existing === undefined) {
      createVectorTable(db, model.dimension);
      writeModelRecord(db, model);
      return;
    }
    if (existing.model === model.model && existing.dimension === model.dimension) {
      upgradeVectorIndex(db, existing.dimension);
      return;
    }
    throw new MemoryError(
      'unavailable',
      `This database was built with the embedding model "${existing.model}" (${existing.dimension} dimensions), ` +
        `not "${model.model}" (${model.dimension}). Run \`agent-memory reembed\` to rebuild its vectors with the new ` +
        `model, or start with the model it was built with.`,
    );
  }).immediate();
}

/** Drops and recreates the vector tables for another model; the caller refills them in the same transaction. */
export function replaceVectorIndex(db: SqliteDatabase, model: ModelRecord): void {
  db.exec(`DROP TABLE IF EXISTS ${VECTORS_TABLE}; DROP TABLE IF EXISTS ${CODES_TABLE}`);
  clearCenter(db);
  createVectorTable(db, model.dimension);
  writeModelRecord(db, model);
}
