import type { EmbeddingSwap } from '../../core/store.js';
import { inTransaction, withClient, type Pool, type PoolClient } from './connection.js';
import { DDL_TIMEOUT_MS, ddl, lockForDdl, longQuery, MODEL_LOCK } from './migrations.js';
import { assertDimension, replaceVectorColumn } from './vector-index.js';
import { newColumnMode, vectorStorage, type VectorMode, type VectorStorage } from './vector-storage.js';

/** A temporary table: the session's own, gone with it even when the process dies mid-swap. */
const STAGING = 'reembed_vectors';
/** Vectors per upload statement: about 2.5 MB of text at 512 dimensions, well within a statement's timeout. */
const UPLOAD_BATCH = 500;

async function stage(client: PoolClient, vectors: VectorStorage, entries: ReadonlyArray<readonly [string, Float32Array]>): Promise<void> {
  for (let i = 0; i < entries.length; i += UPLOAD_BATCH) {
    const batch = entries.slice(i, i + UPLOAD_BATCH);
    await client.query(`INSERT INTO ${STAGING} (id, embedding) SELECT * FROM unnest($1::text[], $2::${vectors.sqlType}[])`, [
      batch.map(([id]) => id),
      batch.map(([, vector]) => vectors.toParam(vector)),
    ]);
  }
}

/**
 * MemoryStore.replaceEmbeddings on PostgreSQL. Every new vector is uploaded into a temporary table first, outside
 * any transaction (the long part: writers need not wait for it, and a wrong dimension fails here, before anything
 * changed). Then one transaction: the model lock (nodes starting meanwhile wait, then see the new model), a lock on
 * memories that holds writes off (reads go on until the column swap), the memories stored since the vectors were
 * made embedded and staged, and the column swap with its HNSW index and the model record. A failure or a crash
 * anywhere leaves the previous model and vectors as they were; the swap's statements get the long DDL timeouts.
 */
export function replaceEmbeddings(pool: Pool, swap: EmbeddingSwap, allowPgvector = true): Promise<{ memories: number; mode: VectorMode }> {
  assertDimension(swap.model.dimension);
  return withClient(pool, async (client, discard) => {
    // The new column is a pgvector one whenever pgvector is usable now: this is how a plain database moves onto it.
    const mode = await newColumnMode(client, allowPgvector);
    const vectors = vectorStorage(mode);
    await client.query(`DROP TABLE IF EXISTS pg_temp.${STAGING}`);
    await client.query(
      `CREATE TEMPORARY TABLE ${STAGING} (id text COLLATE "C" PRIMARY KEY, embedding ${vectors.columnType(swap.model.dimension)} NOT NULL)`,
    );
    try {
      await stage(client, vectors, [...swap.vectors]);
      return await inTransaction(client, discard, async () => {
        await lockForDdl(client, MODEL_LOCK);
        // The embedding of late memories happens inside: the session is idle meanwhile, longer than a request is.
        await client.query(`SET LOCAL idle_in_transaction_session_timeout = ${DDL_TIMEOUT_MS}`);
        await ddl(client, 'LOCK TABLE memories IN SHARE ROW EXCLUSIVE MODE');
        const { rows: missing } = await longQuery<{ id: string; text: string }>(
          client,
          `SELECT m.id, m.text FROM memories m WHERE NOT EXISTS (SELECT 1 FROM ${STAGING} s WHERE s.id = m.id) ORDER BY m.id`,
        );
        if (missing.length > 0) {
          const late = await swap.embedMissing(missing);
          if (late.length !== missing.length) {
            throw new Error(`${missing.length} memories were to be embedded, ${late.length} vectors came back.`);
          }
          await stage(client, vectors, missing.map((m, i) => [m.id, late[i] as Float32Array] as const));
        }
        return { memories: await replaceVectorColumn(client, swap.model, STAGING, mode), mode };
      });
    } finally {
      await client.query(`DROP TABLE IF EXISTS pg_temp.${STAGING}`).catch(discard);
    }
  });
}
