import type { AppScope, Candidate, CandidateQuery, MemoryFilter } from '../../core/store.js';
import type { PoolClient } from './connection.js';
import { cosineFrom, nearestIds } from './exact-scan.js';
import { filterSql } from './filters.js';
import { MEMORY_COLUMNS, toMemory, type MemoryRow } from './rows.js';
import { Params, scopeFilter } from './sql.js';
import { vectorLiteral, type VectorMode } from './vector-storage.js';

export interface RecallOptions {
  /** pgvector searches in the database; plain vectors are scanned exactly in the node (vector-storage.ts). */
  vectors: VectorMode;
  /** Scopes with at most this many memories are searched exactly; larger ones through the HNSW index. */
  exactScanLimit: number;
  /** pgvector >= 0.8: filtered HNSW scans can continue until they have found k rows of the scope. */
  iterativeScan: boolean;
}

/** Most tuples an iterative HNSW scan visits before giving up (pgvector's default is 20,000). */
const MAX_SCAN_TUPLES = 40_000;

/** How many memories the scope holds: it decides between the exact scan and the index. */
async function scopeSize(client: PoolClient, userId: string, scope: AppScope, filter: MemoryFilter | undefined): Promise<number> {
  const p = new Params();
  const { rows } = await client.query<{ documents: number }>(
    `SELECT count(*)::float8 AS documents FROM memories m WHERE ${scopeFilter('m', userId, scope, p)} ${filterSql('m', userId, filter, p)}`,
    p.values,
  );
  return rows[0]?.documents ?? 0;
}

/**
 * The vector side: the k nearest memories of the scope by cosine distance.
 *
 * Small scopes (most users) are scanned exactly: all of the user's vectors, read through the user index and
 * sorted. It is always correct and costs O(memories of the user) per recall. `+ 0` makes the ORDER BY an
 * expression the HNSW index cannot serve, so the planner cannot pick it here.
 *
 * Large scopes go through the HNSW index, which is shared by all users: a filtered HNSW scan visits the
 * `ef_search` nearest vectors of everybody and keeps the user's, so it returns fewer than k rows (often none)
 * for a user who owns a small share of the table. pgvector 0.8's iterative scan keeps walking the graph until k
 * rows pass the filter (or MAX_SCAN_TUPLES were visited); `relaxed_order` lets results come slightly out of
 * distance order, which costs nothing here because the ranker rescores every candidate. Trade-off: approximate
 * (a true neighbour may be missed, as with any HNSW search) and slower for a user with a tiny share of a large
 * table, but sub-linear for large users, where the exact scan would read every vector they own. On older
 * pgvector the index scan runs without iteration: fast, and possibly short of k for a filtered scope. The
 * planner still has the last word on this path: with fresh statistics it sorts a user's few hundred rows exactly
 * rather than walk the graph.
 */
async function vectorHits(client: PoolClient, q: CandidateQuery, documents: number, options: RecallOptions): Promise<string[]> {
  if (q.vectorK <= 0) return [];
  if (options.vectors === 'plain') return plainVectorHits(client, q);
  const p = new Params();
  const vector = p.add(vectorLiteral(q.embedding));
  // The filter is part of the search (an exact scan of what it lets through, or an iterative HNSW scan that keeps
  // walking until k rows pass it), not applied to the k nearest afterwards.
  const scope = `${scopeFilter('m', q.userId, q.scope, p)} ${filterSql('m', q.userId, q.filter, p)}`;
  const limit = p.add(q.vectorK);
  const exact = documents <= options.exactScanLimit;
  if (!exact) {
    // SET LOCAL, as set_config(..., true): for this transaction only. ef_search below k would cap the results.
    const efSearch = String(Math.min(1_000, Math.max(40, q.vectorK)));
    await client.query(
      options.iterativeScan
        ? `SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true),
             set_config('hnsw.max_scan_tuples', $2, true)`
        : "SELECT set_config('hnsw.ef_search', $1, true)",
      options.iterativeScan ? [efSearch, String(MAX_SCAN_TUPLES)] : [efSearch],
    );
  }
  const distance = `(m.embedding <=> ${vector}::vector)`;
  // A memory waiting for its vector (NULL) is the word side's to find: sorted last, it would fill a short top k.
  const { rows } = await client.query<{ id: string }>(
    `SELECT m.id FROM memories m WHERE ${scope} AND m.embedding IS NOT NULL
     ORDER BY ${exact ? `${distance} + 0, m.id` : distance} LIMIT ${limit}`,
    p.values,
  );
  return rows.map((r) => r.id);
}

/**
 * The vector side without pgvector: every vector of the scope that the filter lets through (expired ones never),
 * read in one statement (they are stored in the row,
 * not in TOAST) and compared with the query here. Exact, and linear in the scope's size whatever it is: the cost
 * of this mode, measured in the README.
 */
async function plainVectorHits(client: PoolClient, q: CandidateQuery): Promise<string[]> {
  const p = new Params();
  const { rows } = await client.query<{ id: string; embedding: Buffer }>(
    `SELECT m.id, m.embedding FROM memories m
     WHERE ${scopeFilter('m', q.userId, q.scope, p)} ${filterSql('m', q.userId, q.filter, p)} AND m.embedding IS NOT NULL`,
    p.values,
  );
  return nearestIds(rows, q.embedding, q.vectorK);
}

interface CandidateRow extends MemoryRow {
  /** pgvector's cosine; in plain mode the vector itself (`embedding`), compared here. */
  cosine?: number | null;
  embedding?: Buffer | null;
  prev_id: string | null;
  next_id: string | null;
}

/** The candidates' rows with their cosine to the query and their neighbours in the user's (and app's) timeline. */
async function candidateRows(client: PoolClient, q: CandidateQuery, ids: string[], vectors: VectorMode): Promise<CandidateRow[]> {
  const p = new Params();
  const similarity = vectors === 'plain' ? 'm.embedding AS embedding' : `1 - (m.embedding <=> ${p.add(vectorLiteral(q.embedding))}::vector) AS cosine`;
  const wanted = p.add(ids);
  const { rows } = await client.query<CandidateRow>(
    `SELECT ${MEMORY_COLUMNS}, ${similarity}, prev.id AS prev_id, next.id AS next_id
     FROM memories m
     JOIN apps a ON a.id = m.app_id
     LEFT JOIN LATERAL (
       SELECT x.id FROM memories x
       WHERE x.user_id = m.user_id AND x.app_id = m.app_id AND (x.created_at, x.id) < (m.created_at, m.id)
       ORDER BY x.created_at DESC, x.id DESC LIMIT 1
     ) prev ON true
     LEFT JOIN LATERAL (
       SELECT x.id FROM memories x
       WHERE x.user_id = m.user_id AND x.app_id = m.app_id AND (x.created_at, x.id) > (m.created_at, m.id)
       ORDER BY x.created_at ASC, x.id ASC LIMIT 1
     ) next ON true
     WHERE ${scopeFilter('m', q.userId, q.scope, p)} ${filterSql('m', q.userId, q.filter, p)} AND m.id = ANY(${wanted}::text[])`,
    p.values,
  );
  return rows;
}

/**
 * Vector top-k within the scope, with the word side's pick (`alsoIds`, kept only within the scope); every
 * candidate gets its cosine and its neighbours. Runs in the caller's transaction (RECALL_TRANSACTION).
 */
export async function recallCandidates(client: PoolClient, q: CandidateQuery, options: RecallOptions): Promise<Candidate[]> {
  const documents = await scopeSize(client, q.userId, q.scope, q.filter);
  if (documents === 0) return [];
  const vectorIds = await vectorHits(client, q, documents, options);
  const ids = [...new Set([...vectorIds, ...q.alsoIds])];
  if (ids.length === 0) return [];
  const rows = await candidateRows(client, q, ids, options.vectors);
  const cosine = cosineFrom(q.embedding);
  return rows.map(
    (row): Candidate => ({
      memory: toMemory(row),
      cosine: (row.embedding ? cosine(row.embedding) : row.cosine) ?? 0,
      prevId: row.prev_id,
      nextId: row.next_id,
    }),
  );
}

/** Recall's statements share one read-only snapshot, so the search and the rows agree even while other nodes write. */
export const RECALL_TRANSACTION = { isolation: 'REPEATABLE READ', readOnly: true } as const;
