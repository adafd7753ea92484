/**
 * The vector search on PostgreSQL on its own, outside recall, with the bench's own SQL: the two queries that
 * src/storage/postgres/recall.ts runs (its `vectorHits`), written again here so that the benchmark times them
 * without reaching into the recall path. Keep them in step with recall.ts: an exact scan of the user's vectors
 * (`+ 0` keeps the planner off the index) for users up to EXACT_SCAN_LIMIT memories, the HNSW index with
 * `ef_search` at least k and, on pgvector 0.8 or later, an iterative scan for larger users.
 *
 * The `index` path forces the HNSW index (sorting disabled for the transaction): at sizes where the planner
 * would rather sort the user's rows, the check against exact search would otherwise compare two exact scans.
 * `explain` says what the planner does when left to itself, as in recall.
 */
import { query, withTransaction, type Pool, type PoolClient } from '../../src/storage/postgres/connection.js';
import { nearestIds } from '../../src/storage/postgres/exact-scan.js';
import { vectorLiteral } from '../../src/storage/postgres/vector-index.js';
import type { VectorProbe, VectorQuery } from './backends.js';

/** PgStore's default `exactScanLimit`: users with at most this many memories are searched exactly. */
export const EXACT_SCAN_LIMIT = 10_000;
/** recall.ts's MAX_SCAN_TUPLES: the most tuples an iterative HNSW scan visits. */
const MAX_SCAN_TUPLES = 40_000;
/** The HNSW index that vector-index.ts creates. */
const HNSW_INDEX = 'memories_embedding_hnsw';

const EXACT_SQL = 'SELECT m.id FROM memories m WHERE m.user_id = $1 ORDER BY (m.embedding <=> $2::vector) + 0, m.id LIMIT $3';
const INDEX_SQL = 'SELECT m.id FROM memories m WHERE m.user_id = $1 ORDER BY m.embedding <=> $2::vector LIMIT $3';

/** The index path's settings, for this transaction only, as recall sets them; `force` keeps the planner on the index. */
async function indexSettings(client: PoolClient, k: number, iterativeScan: boolean, force: boolean): Promise<void> {
  if (force) await client.query("SELECT set_config('enable_sort', 'off', true)");
  const efSearch = String(Math.min(1_000, Math.max(40, k)));
  await client.query(
    iterativeScan
      ? `SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true),
           set_config('hnsw.max_scan_tuples', $2, true)`
      : "SELECT set_config('hnsw.ef_search', $1, true)",
    iterativeScan ? [efSearch, String(MAX_SCAN_TUPLES)] : [efSearch],
  );
}

export function pgVectorProbe(pool: Pool, iterativeScan: boolean): VectorProbe {
  const sizes = new Map<string, number>();
  const userSize = async (userId: string): Promise<number> => {
    const known = sizes.get(userId);
    if (known !== undefined) return known;
    const { rows } = await query<{ n: number }>(pool, 'SELECT count(*)::float8 AS n FROM memories WHERE user_id = $1', [userId]);
    const n = rows[0]?.n ?? 0;
    sizes.set(userId, n);
    return n;
  };
  const params = (q: VectorQuery) => [q.userId, vectorLiteral(q.embedding), q.k];
  // Read-only REPEATABLE READ transactions, as recall's.
  const readOnly = { isolation: 'REPEATABLE READ', readOnly: true } as const;

  return {
    async search(q, path) {
      const exact = path === 'exact' || (path === 'recall' && (await userSize(q.userId)) <= EXACT_SCAN_LIMIT);
      return withTransaction(
        pool,
        async (client) => {
          if (!exact) await indexSettings(client, q.k, iterativeScan, path === 'index');
          const { rows } = await client.query<{ id: string }>(exact ? EXACT_SQL : INDEX_SQL, params(q));
          return rows.map((r) => r.id);
        },
        readOnly,
      );
    },
    async targetKeys() {
      const { rows } = await query<{ id: string }>(pool, "SELECT id FROM memories WHERE metadata->>'externalId' IS NOT NULL");
      return new Set(rows.map((r) => r.id));
    },
    async explain(q) {
      const plan = await withTransaction(
        pool,
        async (client) => {
          await indexSettings(client, q.k, iterativeScan, false);
          const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${INDEX_SQL}`, params(q));
          return JSON.stringify(rows[0]?.['QUERY PLAN'] ?? null);
        },
        readOnly,
      );
      return plan.includes(HNSW_INDEX)
        ? `Left to itself, the planner also takes the HNSW index for this query (${HNSW_INDEX}).`
        : "Left to itself, the planner would not take the HNSW index for this query at this size: it sorts the user's rows.";
    },
  };
}

/**
 * Without pgvector (plain bytea vectors) there is one path: every vector of the user read and compared in the node,
 * with the store's own comparison (exact-scan.ts), as recall does in that mode. `index` and `exact` are the same.
 */
export function plainVectorProbe(pool: Pool): VectorProbe {
  return {
    async search(q) {
      const { rows } = await query<{ id: string; embedding: Buffer }>(pool, 'SELECT id, embedding FROM memories WHERE user_id = $1', [q.userId]);
      return nearestIds(rows, q.embedding, q.k);
    },
    async targetKeys() {
      const { rows } = await query<{ id: string }>(pool, "SELECT id FROM memories WHERE metadata->>'externalId' IS NOT NULL");
      return new Set(rows.map((r) => r.id));
    },
    explain: () => Promise.resolve('Without pgvector there is no index: both paths are the same exact scan in the node.'),
  };
}
