/**
 * Reads a database file the way an auditor would: a separate connection (better-sqlite3, the same settings as
 * the server) that checks the memory rows, the vector index and the word index agree, and takes a
 * snapshot (counts and a checksum of every row) to prove that a request changed nothing.
 */
import { createHash } from 'node:crypto';
import { l2Norm } from '../../../src/core/vector.js';
import { openDatabase, type SqliteDatabase } from '../../../src/storage/sqlite/connection.js';
import { vectorOf } from '../../../src/storage/sqlite/vector-search.js';
import { analyzeText, termsOf } from '../../../src/core/text/analyze.js';

export function openForCheck(path: string): SqliteDatabase {
  return openDatabase(path);
}

export function withDb<T>(path: string, fn: (db: SqliteDatabase) => T): T {
  const db = openForCheck(path);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

export interface StoredMemory {
  rowid: number;
  id: string;
  userId: string;
  text: string;
  appSlug: string;
  metadata: string;
}

export function memoriesById(db: SqliteDatabase): Map<string, StoredMemory> {
  const rows = db
    .prepare(
      `SELECT m.rowid AS rowid, m.id AS id, m.user_id AS userId, m.text AS text, a.slug AS appSlug, m.metadata AS metadata
       FROM memories m JOIN apps a ON a.id = m.app_id`,
    )
    .all() as StoredMemory[];
  return new Map(rows.map((r) => [r.id, r]));
}

export interface ConsistencyReport {
  memories: number;
  vectors: number;
  words: number;
  /** Memories with no vector row, vector rows with no memory, and the same for the word index. */
  problems: string[];
}

function hasTable(db: SqliteDatabase, name: string): boolean {
  return db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name) !== undefined;
}

/**
 * Every memory has exactly one vector (of unit length) and one word-index row, and neither index holds a row for
 * a memory that does not exist.
 */
export function checkConsistency(db: SqliteDatabase): ConsistencyReport {
  const problems: string[] = [];
  const memoryRows = new Set((db.prepare('SELECT rowid FROM memories').all() as Array<{ rowid: number }>).map((r) => r.rowid));
  const vectorRows = hasTable(db, 'memory_vectors')
    ? (db.prepare('SELECT rowid, embedding FROM memory_vectors').all() as Array<{ rowid: number; embedding: Buffer }>)
    : [];
  const wordRows = new Set((db.prepare('SELECT rowid FROM memory_words').all() as Array<{ rowid: number }>).map((r) => r.rowid));
  const vectorIds = new Set<number>();
  for (const v of vectorRows) {
    vectorIds.add(v.rowid);
    if (!memoryRows.has(v.rowid)) problems.push(`vector row ${v.rowid} has no memory`);
    const values = vectorOf(v.embedding);
    const norm = l2Norm(values);
    if (v.embedding.byteLength % 4 !== 0 || Math.abs(norm - 1) > 1e-3) problems.push(`vector row ${v.rowid} is not a unit vector (norm ${norm})`);
  }
  for (const w of wordRows) if (!memoryRows.has(w)) problems.push(`word row ${w} has no memory`);
  // The vector search's sign-bit codes (when the layout has them): exactly one entry per vector, in its owner's blocks.
  if (hasTable(db, 'memory_vector_codes')) {
    const owners = new Map(
      (db.prepare('SELECT rowid, user_id, app_id FROM memory_vectors').all() as Array<{ rowid: number; user_id: string; app_id: string }>).map(
        (r) => [r.rowid, `${r.user_id}\u0000${r.app_id}`],
      ),
    );
    const seen = new Set<number>();
    for (const block of db.prepare('SELECT user_id, app_id, rowids FROM memory_vector_codes').all() as Array<{
      user_id: string;
      app_id: string;
      rowids: Buffer;
    }>) {
      for (let i = 0; i + 8 <= block.rowids.byteLength; i += 8) {
        const rowid = block.rowids.readDoubleLE(i);
        if (seen.has(rowid)) problems.push(`vector code for row ${rowid} appears twice`);
        seen.add(rowid);
        if (owners.get(rowid) !== `${block.user_id}\u0000${block.app_id}`) problems.push(`vector code for row ${rowid} has no vector of that owner`);
      }
    }
    for (const rowid of owners.keys()) if (!seen.has(rowid)) problems.push(`vector row ${rowid} has no code`);
  }
  for (const m of memoryRows) {
    if (!vectorIds.has(m)) problems.push(`memory row ${m} has no vector`);
    if (!wordRows.has(m)) problems.push(`memory row ${m} has no word row`);
  }
  return { memories: memoryRows.size, vectors: vectorIds.size, words: wordRows.size, problems };
}

/** True when the word index finds this memory by a word of its text (an FTS5 query, not a table scan). */
export function wordIndexFinds(db: SqliteDatabase, rowid: number, word: string): boolean {
  // The index holds core's terms (stems), as a query's plan asks for them.
  const term = termsOf(analyzeText(word))[0] ?? word;
  const rows = db
    .prepare(`SELECT rowid FROM memory_words WHERE memory_words MATCH ? AND rowid IN (SELECT value FROM json_each(?))`)
    .all(`text : "${term.replaceAll('"', '""')}"`, JSON.stringify([rowid])) as Array<{ rowid: number }>;
  return rows.some((r) => r.rowid === rowid);
}

export interface Snapshot {
  counts: Record<string, number>;
  checksum: string;
}

/** Counts and a SHA-256 over every row of every table, in a fixed order: equal snapshots mean nothing changed. */
export function snapshot(db: SqliteDatabase): Snapshot {
  const hash = createHash('sha256');
  const counts: Record<string, number> = {};
  const queries: Record<string, string> = {
    apps: 'SELECT id, slug, created_at FROM apps ORDER BY id',
    api_keys: 'SELECT id, hash, app_id, label, created_at, revoked_at FROM api_keys ORDER BY id',
    memories: 'SELECT rowid, id, uuid, user_id, app_id, text, metadata, created_at FROM memories ORDER BY rowid',
    idempotency_keys: 'SELECT key_id, key, request_hash, response, created_at FROM idempotency_keys ORDER BY key_id, key',
    memory_words: 'SELECT rowid FROM memory_words ORDER BY rowid',
    meta: 'SELECT key, value FROM meta ORDER BY key',
  };
  if (hasTable(db, 'memory_vectors')) {
    queries.memory_vectors = 'SELECT rowid, user_id, app_id, hex(embedding) AS e FROM memory_vectors ORDER BY rowid';
  }
  if (hasTable(db, 'memory_vector_codes')) {
    queries.memory_vector_codes = 'SELECT user_id, app_id, block, hex(rowids) AS r, hex(codes) AS c FROM memory_vector_codes ORDER BY user_id, app_id, block';
  }
  db.transaction(() => {
    for (const [table, sql] of Object.entries(queries)) {
      const rows = db.prepare(sql).all();
      counts[table] = rows.length;
      hash.update(`${table}\n`);
      for (const row of rows) hash.update(`${JSON.stringify(row)}\n`);
    }
  })();
  return { counts, checksum: hash.digest('hex') };
}
