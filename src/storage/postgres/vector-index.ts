import { MemoryError } from '../../core/errors.js';
import type { ModelRecord } from '../../core/store.js';
import { query, withTransaction, type Pool, type PoolClient } from './connection.js';
import { ddl, lockForDdl, longQuery, MODEL_LOCK } from './migrations.js';
import { columnMode, newColumnMode, vectorStorage, type VectorMode } from './vector-storage.js';

export { vectorLiteral } from './vector-storage.js';

/**
 * The embedding column of memories, `vector(dimension)` and its HNSW index (or a plain `bytea` column where
 * pgvector is not available: vector-storage.ts), is created when the embedding model is first declared, as
 * SQLite's vector-index.ts creates its vector tables: the dimension is the model's.
 */
const MODEL_KEY = 'embedding_model';
const DIMENSION_KEY = 'embedding_dimension';

/** pgvector indexes `vector` columns of at most 2,000 dimensions; larger models are searched by exact scans. */
export const HNSW_MAX_DIMENSION = 2_000;
/** The largest dimension pgvector's `vector` type accepts. */
const VECTOR_MAX_DIMENSION = 16_000;

export async function readModelRecord(client: PoolClient): Promise<ModelRecord | undefined> {
  const { rows } = await client.query<{ key: string; value: string }>('SELECT key, value FROM meta WHERE key IN ($1, $2)', [
    MODEL_KEY,
    DIMENSION_KEY,
  ]);
  const model = rows.find((r) => r.key === MODEL_KEY)?.value;
  const dimension = rows.find((r) => r.key === DIMENSION_KEY)?.value;
  if (model === undefined || dimension === undefined) return undefined;
  return { model, dimension: Number(dimension) };
}

export function assertDimension(dimension: number): void {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > VECTOR_MAX_DIMENSION) {
    throw new Error(`Invalid embedding dimension ${dimension}.`);
  }
}

async function addVectorColumn(client: PoolClient, dimension: number, mode: VectorMode): Promise<void> {
  assertDimension(dimension);
  // Nullable: rows written before any model was declared (none in practice) keep the column addable.
  await ddl(client, `ALTER TABLE memories ADD COLUMN embedding ${vectorStorage(mode).columnType(dimension)}`);
  // Plain vectors (2 KiB at 512 dimensions) stay in the row rather than in TOAST, where every recall's scan would
  // fetch them one by one (measured 7 times slower); MAIN still moves them out when a row cannot fit a page.
  if (mode === 'plain') await ddl(client, 'ALTER TABLE memories ALTER COLUMN embedding SET STORAGE MAIN');
}

async function createHnswIndex(client: PoolClient, dimension: number, mode: VectorMode): Promise<void> {
  if (mode === 'pgvector' && dimension <= HNSW_MAX_DIMENSION) {
    // Cosine, like the vectors (unit length) and like SQLite's index.
    await ddl(client, 'CREATE INDEX memories_embedding_hnsw ON memories USING hnsw (embedding vector_cosine_ops)');
  }
}

async function createVectorColumn(client: PoolClient, dimension: number, mode: VectorMode): Promise<void> {
  await addVectorColumn(client, dimension, mode);
  // Built on an empty table: instant.
  await createHnswIndex(client, dimension, mode);
}

/**
 * Reembed's swap, in the caller's transaction (with lockForDdl's timeouts): the old column goes, with its HNSW
 * index, before the new one is filled from `staging` (a table of id and vector), so that the rewritten rows carry no
 * old vector; the index is built once the column is full (faster than growing it row by row); then the model is
 * recorded. Every memory must have a row in `staging`. Returns how many memories got a vector.
 */
export async function replaceVectorColumn(client: PoolClient, model: ModelRecord, staging: string, mode: VectorMode): Promise<number> {
  await ddl(client, 'ALTER TABLE memories DROP COLUMN IF EXISTS embedding');
  await addVectorColumn(client, model.dimension, mode);
  const filled = await longQuery(client, `UPDATE memories m SET embedding = s.embedding FROM ${staging} s WHERE s.id = m.id`);
  const { rows } = await longQuery<{ id: string }>(client, 'SELECT id FROM memories WHERE embedding IS NULL LIMIT 1');
  if (rows[0]) throw new Error(`No vector was made for the memory ${rows[0].id}.`);
  await createHnswIndex(client, model.dimension, mode);
  // Memories that waited for their vector (core/backfill.ts) have one of the new model now.
  await longQuery(client, 'UPDATE memories SET vector_pending = false, vector_claimed_until = NULL WHERE vector_pending');
  await writeModelRecord(client, model);
  return filled.rowCount ?? 0;
}

async function writeModelRecord(client: PoolClient, record: ModelRecord): Promise<void> {
  await client.query(
    `INSERT INTO meta (key, value) VALUES ($1, $2), ($3, $4)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [MODEL_KEY, record.model, DIMENSION_KEY, String(record.dimension)],
  );
}

/**
 * Makes sure the vector column exists for this model. A database made with another model is refused: its
 * vectors are not comparable with the new model's, and mixing them would silently ruin recall. Nodes starting
 * together serialise on an advisory lock, so exactly one creates the column.
 */
export function ensureVectorIndex(pool: Pool, model: ModelRecord, allowPgvector = true): Promise<VectorMode> {
  return withTransaction(pool, async (client) => {
    await lockForDdl(client, MODEL_LOCK);
    const existing = await readModelRecord(client);
    if (existing === undefined) {
      const mode = await newColumnMode(client, allowPgvector);
      await createVectorColumn(client, model.dimension, mode);
      await writeModelRecord(client, model);
      return mode;
    }
    if (existing.model !== model.model || existing.dimension !== model.dimension) {
      throw new MemoryError(
        'unavailable',
        `This database was built with the embedding model "${existing.model}" (${existing.dimension} dimensions), ` +
          `not "${model.model}" (${model.dimension}). Run \`agent-memory reembed\` to rebuild its vectors with the new ` +
          `model, or start with the model it was built with.`,
      );
    }
    const mode = await columnMode(client);
    if (mode === undefined) throw new Error('The embedding model is recorded but memories has no embedding column.');
    return mode;
  });
}

/** The installed pgvector version as [major, minor, patch], or undefined when the extension is missing. */
export async function pgvectorVersion(pool: Pool): Promise<[number, number, number] | undefined> {
  const { rows } = await query<{ v: string }>(
    pool,
    "SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'");
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(rows[0]?.v ?? '');
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}
