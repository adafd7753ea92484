import type { SqliteDatabase } from './connection.js';
import { hammingTable, type HammingTable } from './hamming.js';
import { codeWords, rankExactly, selectCandidates, writeCode, type CandidateQuery, type VectorHit } from './sign-search.js';

export { candidateCount, type VectorHit } from './sign-search.js';

/**
 * Nearest-neighbour search over one user's vectors in SQLite, fast at 100,000 memories and more: the tables, the
 * mean vector, a per-connection cache of codes and the block writes. The search's logic is sign-search.ts (pure).
 *
 * Plain SQLite, no vector extension: a brute-force sqlite-vec scan took about 150 ms per query at 100,000
 * 512-dimension vectors on this project's 2-core machine, while the layout below answers in under 5 ms.
 *
 * - `memory_vectors` (rowid = the memory's rowid, user_id, app_id, embedding): the float32 vectors, an ordinary
 *   table, so reading one vector is a B-tree lookup (a few microseconds);
 * - `memory_vector_codes`: per (user, app), blocks of up to CODE_BLOCK_SIZE entries holding each vector's sign bits
 *   (one bit per dimension, after subtracting the database's mean vector) and its rowid. A search reads the few
 *   blocks of that user (100,000 memories: about 400 rows, 7 MB), picks candidates from the codes
 *   (sign-search.ts's selectCandidates), reads their float vectors and ranks them by exact cosine (rankExactly).
 *
 * Centering: embedding models are not centred (USE-lite has components positive for nearly every text), so raw sign
 * bits waste much of their information; signs of (vector - mean) do not. The mean is the database's own, kept in
 * `meta`: computed when the database first holds 256 vectors and again at 4x growth until it is taken over 16,384
 * or more (each time every code is rebuilt, in that insert's transaction: about 0.5 s at 16,384), then fixed.
 *
 * Every write here runs inside the caller's transaction, beside the memory row.
 *
 * Reading a large user's blocks is most of a search's cost (SQLite page reads), so each connection keeps the
 * blocks it has read in memory (at most CODE_CACHE_BYTES, least recently used first out). The cache is exact, not
 * eventually consistent: this connection's own writes drop the user's entries, and a commit by any other
 * connection or process (PRAGMA data_version, read inside the search's snapshot) drops them all.
 */
export const CODE_BLOCK_SIZE = 256;
/** The mean vector is first taken at this many vectors, then again at 4x growth until CENTER_FINAL. */
export const CENTER_FIRST = 256;
export const CENTER_FINAL = 16_384;
const CENTER_KEY = 'vector_code_center';
const CENTER_COUNT_KEY = 'vector_code_center_count';
/** Memory for cached codes per connection: 74 bytes per 512-dimension vector, so about 900,000 vectors. */
export const CODE_CACHE_BYTES = 64 * 1024 * 1024;

export const VECTORS_TABLE = 'memory_vectors';
export const CODES_TABLE = 'memory_vector_codes';

export interface VectorRow {
  rowid: number;
  userId: string;
  appId: string;
  embedding: Float32Array;
}

function blob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A Uint32Array over a blob, copied only when the blob's bytes are not 4-byte aligned. */
function words32(buf: Buffer): Uint32Array {
  if (buf.byteOffset % 4 === 0) return new Uint32Array(buf.buffer, buf.byteOffset, buf.byteLength >>> 2);
  const copy = new Uint32Array(buf.byteLength >>> 2);
  new Uint8Array(copy.buffer).set(buf.subarray(0, copy.length * 4));
  return copy;
}

function float64s(buf: Buffer): Float64Array {
  if (buf.byteOffset % 8 === 0) return new Float64Array(buf.buffer, buf.byteOffset, buf.byteLength >>> 3);
  const copy = new Float64Array(buf.byteLength >>> 3);
  new Uint8Array(copy.buffer).set(buf.subarray(0, copy.length * 8));
  return copy;
}

export function createVectorTables(db: SqliteDatabase): void {
  db.exec(`
    CREATE TABLE ${VECTORS_TABLE} (
      rowid INTEGER PRIMARY KEY,
      user_id TEXT NOT NULL,
      app_id TEXT NOT NULL,
      embedding BLOB NOT NULL
    );
  `);
  createCodesTable(db);
}

export function createCodesTable(db: SqliteDatabase): void {
  // rowids: float64 little-endian, one per entry; codes: codeWords(dimension) uint32 little-endian per entry.
  db.exec(`
    CREATE TABLE ${CODES_TABLE} (
      id INTEGER PRIMARY KEY,
      user_id TEXT NOT NULL,
      app_id TEXT NOT NULL,
      block INTEGER NOT NULL,
      rowids BLOB NOT NULL,
      codes BLOB NOT NULL
    );
    CREATE UNIQUE INDEX ${CODES_TABLE}_owner ON ${CODES_TABLE}(user_id, app_id, block);
  `);
}

export function hasTable(db: SqliteDatabase, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** True when `memory_vectors` is the sqlite-vec virtual table of the pre-release layout (refused by vector-index.ts). */
export function isVirtualVectorTable(db: SqliteDatabase): boolean {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(VECTORS_TABLE) as
    | { sql: string | null }
    | undefined;
  return row?.sql?.trimStart().toUpperCase().startsWith('CREATE VIRTUAL TABLE') ?? false;
}

// ---- The mean vector ----------------------------------------------------------------------------------------------

interface CenterState {
  center: Float32Array | null;
  /** How many vectors the mean was taken over (0: none yet). */
  count: number;
}

function readCenter(db: SqliteDatabase): CenterState {
  const rows = db.prepare('SELECT key, value FROM meta WHERE key IN (?, ?)').all(CENTER_KEY, CENTER_COUNT_KEY) as Array<{ key: string; value: string }>;
  const encoded = rows.find((r) => r.key === CENTER_KEY)?.value;
  const count = Number(rows.find((r) => r.key === CENTER_COUNT_KEY)?.value ?? 0);
  if (!encoded) return { center: null, count: 0 };
  const bytes = Buffer.from(encoded, 'base64');
  return { center: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)), count };
}

/** Forgets the mean (the vector tables were replaced); the next inserts take a new one. */
export function clearCenter(db: SqliteDatabase): void {
  db.prepare('DELETE FROM meta WHERE key IN (?, ?)').run(CENTER_KEY, CENTER_COUNT_KEY);
  forgetCodes(db);
}

/** Takes the mean of the stored vectors (at most 65,536 of them), records it, and rebuilds every code with it. */
function recenter(db: SqliteDatabase, dimension: number): void {
  const sum = new Float64Array(dimension);
  let n = 0;
  const page = db.prepare(`SELECT rowid, embedding FROM ${VECTORS_TABLE} WHERE rowid > ? ORDER BY rowid LIMIT 4096`).raw();
  let last = -Infinity;
  while (n < 4 * CENTER_FINAL) {
    const rows = page.all(last) as Array<[number, Buffer]>;
    if (rows.length === 0) break;
    for (const [, e] of rows) {
      const v = vectorOf(e);
      for (let j = 0; j < dimension; j++) sum[j] = (sum[j] as number) + (v[j] ?? 0);
      n++;
    }
    last = (rows[rows.length - 1] as [number, Buffer])[0];
  }
  if (n === 0) return;
  const center = Float32Array.from(sum, (x) => x / n);
  const upsert = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  upsert.run(CENTER_KEY, Buffer.from(center.buffer).toString('base64'));
  upsert.run(CENTER_COUNT_KEY, String(n));
  rebuildCodes(db, dimension);
}

/** Builds every code afresh (upgrade, repair): with a new mean when there are vectors enough for one. */
export function buildCodes(db: SqliteDatabase, dimension: number): void {
  if (dueForCenter(db, readCenter(db))) recenter(db, dimension);
  else rebuildCodes(db, dimension);
}

/** Whether the database has grown enough since the mean was taken for a new one to be worth a rebuild. */
function dueForCenter(db: SqliteDatabase, state: CenterState): boolean {
  if (state.count >= CENTER_FINAL) return false;
  // Rowids only grow: the largest is an upper bound of the count, read in O(log n).
  const size = (db.prepare(`SELECT MAX(rowid) AS n FROM ${VECTORS_TABLE}`).get() as { n: number | null }).n ?? 0;
  return size >= Math.max(CENTER_FIRST, 4 * state.count);
}

interface CachedCodes {
  ids: Float64Array;
  table: HammingTable;
  bytes: number;
}

interface CodeCache {
  version: number | undefined;
  /** The mean vector as of `version` (undefined: not read yet). */
  center: CenterState | undefined;
  bytes: number;
  /** Insertion order is recency: a hit moves its entry to the end, eviction takes from the front. */
  entries: Map<string, CachedCodes>;
}

const caches = new WeakMap<SqliteDatabase, CodeCache>();

function cacheOf(db: SqliteDatabase): CodeCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = { version: undefined, center: undefined, bytes: 0, entries: new Map() };
    caches.set(db, cache);
  }
  return cache;
}

function cacheKey(userId: string, appId: string | null): string {
  return `${userId}\u0000${appId ?? ''}`;
}

/** Drops the cached codes of one user (all of their scopes), or of everyone. Called by every write. */
export function forgetCodes(db: SqliteDatabase, userId?: string): void {
  const cache = caches.get(db);
  if (!cache) return;
  if (userId === undefined) {
    cache.entries.clear();
    cache.center = undefined;
    cache.bytes = 0;
    return;
  }
  const prefix = `${userId}\u0000`;
  for (const [key, entry] of cache.entries) {
    if (!key.startsWith(prefix)) continue;
    cache.entries.delete(key);
    cache.bytes -= entry.bytes;
  }
}

/** The user's ids and codes in scope, and the mean they were made with, from the cache or read (and cached). */
function loadCodes(db: SqliteDatabase, userId: string, appId: string | null, words: number): CachedCodes & { center: Float32Array | null } {
  const cache = cacheOf(db);
  // Read inside the caller's snapshot: changes only when another connection has committed since the last search.
  const version = db.pragma('data_version', { simple: true }) as number;
  if (version !== cache.version) {
    cache.entries.clear();
    cache.center = undefined;
    cache.bytes = 0;
    cache.version = version;
  }
  cache.center ??= readCenter(db);
  const center = cache.center.center;
  const key = cacheKey(userId, appId);
  const hit = cache.entries.get(key);
  if (hit) {
    cache.entries.delete(key);
    cache.entries.set(key, hit);
    return { ...hit, center };
  }
  const blocks = (
    appId === null
      ? db.prepare(`SELECT rowids, codes FROM ${CODES_TABLE} WHERE user_id = ?`).raw().all(userId)
      : db.prepare(`SELECT rowids, codes FROM ${CODES_TABLE} WHERE user_id = ? AND app_id = ?`).raw().all(userId, appId)
  ) as Array<[Buffer, Buffer]>;
  let total = 0;
  for (const [rowids] of blocks) total += rowids.byteLength >>> 3;
  const ids = new Float64Array(total);
  const codes = new Uint32Array(total * words);
  let at = 0;
  for (const [rowids, block] of blocks) {
    const count = rowids.byteLength >>> 3;
    ids.set(float64s(rowids), at);
    codes.set(words32(block).subarray(0, count * words), at * words);
    at += count;
  }
  const bytes = ids.byteLength + codes.byteLength + total * 2;
  const entry: CachedCodes = { ids, table: hammingTable(codes, words, total), bytes };
  if (bytes <= CODE_CACHE_BYTES) {
    cache.entries.set(key, entry);
    cache.bytes += bytes;
    for (const [oldKey, old] of cache.entries) {
      if (cache.bytes <= CODE_CACHE_BYTES) break;
      cache.entries.delete(oldKey);
      cache.bytes -= old.bytes;
    }
  }
  return { ...entry, center };
}

interface Pending {
  userId: string;
  appId: string;
  rowids: number[];
  codes: Uint32Array[];
}

function groupByOwner(rows: readonly VectorRow[], words: number, center: Float32Array | null): Map<string, Pending> {
  const groups = new Map<string, Pending>();
  for (const row of rows) {
    const key = `${row.userId}\u0000${row.appId}`;
    let group = groups.get(key);
    if (!group) {
      group = { userId: row.userId, appId: row.appId, rowids: [], codes: [] };
      groups.set(key, group);
    }
    const code = new Uint32Array(words);
    writeCode(row.embedding, code, 0, center);
    group.rowids.push(row.rowid);
    group.codes.push(code);
  }
  return groups;
}

function u8(a: Float64Array | Uint32Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

/** Appends entries to the last block of (user, app), opening new blocks as they fill. */
function appendCodes(db: SqliteDatabase, group: Pending, words: number): void {
  const last = db
    .prepare(`SELECT id, block, rowids, codes FROM ${CODES_TABLE} WHERE user_id = ? AND app_id = ? ORDER BY block DESC LIMIT 1`)
    .get(group.userId, group.appId) as { id: number; block: number; rowids: Buffer; codes: Buffer } | undefined;
  const update = db.prepare(`UPDATE ${CODES_TABLE} SET rowids = ?, codes = ? WHERE id = ?`);
  const insert = db.prepare(`INSERT INTO ${CODES_TABLE} (user_id, app_id, block, rowids, codes) VALUES (?, ?, ?, ?, ?)`);
  const entryBytes = words * 4;
  let next = 0;
  let block = last ? last.block : -1;
  if (last) {
    const count = last.rowids.byteLength / 8;
    const room = Math.max(0, CODE_BLOCK_SIZE - count);
    if (room > 0) {
      const take = Math.min(room, group.rowids.length);
      const rowids = new Float64Array(count + take);
      rowids.set(float64s(last.rowids));
      const codes = new Uint32Array((count + take) * words);
      new Uint8Array(codes.buffer).set(last.codes.subarray(0, count * entryBytes));
      for (let i = 0; i < take; i++) {
        rowids[count + i] = group.rowids[i] as number;
        codes.set(group.codes[i] as Uint32Array, (count + i) * words);
      }
      update.run(u8(rowids), u8(codes), last.id);
      next = take;
    }
  }
  while (next < group.rowids.length) {
    const take = Math.min(CODE_BLOCK_SIZE, group.rowids.length - next);
    const rowids = Float64Array.from(group.rowids.slice(next, next + take));
    const codes = new Uint32Array(take * words);
    for (let i = 0; i < take; i++) codes.set(group.codes[next + i] as Uint32Array, i * words);
    block += 1;
    insert.run(group.userId, group.appId, block, u8(rowids), u8(codes));
    next += take;
  }
}

/**
 * Stores vectors (rows of one batch) and their codes. The caller holds the transaction and has checked nothing:
 * a vector of the wrong dimension throws here, rolling the whole batch back.
 */
export function insertVectors(db: SqliteDatabase, dimension: number, rows: readonly VectorRow[]): void {
  if (rows.length === 0) return;
  const put = db.prepare(`INSERT INTO ${VECTORS_TABLE} (rowid, user_id, app_id, embedding) VALUES (?, ?, ?, ?)`);
  for (const row of rows) {
    if (row.embedding.length !== dimension) {
      throw new Error(`The vector has ${row.embedding.length} dimensions; this database holds ${dimension}.`);
    }
    put.run(row.rowid, row.userId, row.appId, blob(row.embedding));
  }
  const state = readCenter(db);
  if (dueForCenter(db, state)) {
    // Rebuilds every code, these rows' included.
    recenter(db, dimension);
    return;
  }
  const words = codeWords(dimension);
  for (const group of groupByOwner(rows, words, state.center).values()) {
    forgetCodes(db, group.userId);
    appendCodes(db, group, words);
  }
}

/** Deletes the vectors (and their codes) of these memory rowids. */
export function deleteVectors(db: SqliteDatabase, rowids: readonly number[]): void {
  if (rowids.length === 0) return;
  const ids = JSON.stringify(rowids);
  if (hasTable(db, CODES_TABLE)) {
    const owners = db
      .prepare(`SELECT DISTINCT user_id, app_id FROM ${VECTORS_TABLE} WHERE rowid IN (SELECT value FROM json_each(?))`)
      .all(ids) as Array<{ user_id: string; app_id: string }>;
    const gone = new Set(rowids);
    const blocks = db.prepare(`SELECT id, rowids, codes FROM ${CODES_TABLE} WHERE user_id = ? AND app_id = ?`);
    const update = db.prepare(`UPDATE ${CODES_TABLE} SET rowids = ?, codes = ? WHERE id = ?`);
    const drop = db.prepare(`DELETE FROM ${CODES_TABLE} WHERE id = ?`);
    for (const owner of owners) {
      forgetCodes(db, owner.user_id);
      for (const b of blocks.all(owner.user_id, owner.app_id) as Array<{ id: number; rowids: Buffer; codes: Buffer }>) {
        const ids64 = float64s(b.rowids);
        let kept = 0;
        for (const id of ids64) if (!gone.has(id)) kept++;
        if (kept === ids64.length) continue;
        if (kept === 0) {
          drop.run(b.id);
          continue;
        }
        const entryBytes = b.codes.byteLength / ids64.length;
        const rowidsOut = new Float64Array(kept);
        const codesOut = Buffer.alloc(kept * entryBytes);
        let j = 0;
        ids64.forEach((id, i) => {
          if (gone.has(id)) return;
          rowidsOut[j] = id;
          b.codes.copy(codesOut, j * entryBytes, i * entryBytes, (i + 1) * entryBytes);
          j++;
        });
        update.run(u8(rowidsOut), codesOut, b.id);
      }
    }
  }
  db.prepare(`DELETE FROM ${VECTORS_TABLE} WHERE rowid IN (SELECT value FROM json_each(?))`).run(ids);
}

/** Rebuilds every code from the float vectors (after an upgrade, or to repair). Runs in the caller's transaction. */
export function rebuildCodes(db: SqliteDatabase, dimension: number): number {
  forgetCodes(db);
  db.exec(`DELETE FROM ${CODES_TABLE}`);
  const { center } = readCenter(db);
  const words = codeWords(dimension);
  const insert = db.prepare(`INSERT INTO ${CODES_TABLE} (user_id, app_id, block, rowids, codes) VALUES (?, ?, ?, ?, ?)`);
  const open = new Map<string, Pending & { block: number }>();
  const flush = (group: Pending & { block: number }) => {
    const codes = new Uint32Array(group.rowids.length * words);
    group.codes.forEach((c, i) => codes.set(c, i * words));
    insert.run(group.userId, group.appId, group.block, u8(Float64Array.from(group.rowids)), u8(codes));
    group.block += 1;
    group.rowids = [];
    group.codes = [];
  };
  let n = 0;
  // Pages, not iterate(): better-sqlite3 refuses writes on a connection while a statement is being iterated.
  const page = db.prepare(`SELECT rowid, user_id, app_id, embedding FROM ${VECTORS_TABLE} WHERE rowid > ? ORDER BY rowid LIMIT 4096`);
  let last = -Infinity;
  for (;;) {
    const rows = page.all(last) as Array<{ rowid: number; user_id: string; app_id: string; embedding: Buffer }>;
    if (rows.length === 0) break;
    for (const row of rows) {
      const key = `${row.user_id}\u0000${row.app_id}`;
      let group = open.get(key);
      if (!group) {
        group = { userId: row.user_id, appId: row.app_id, rowids: [], codes: [], block: 0 };
        open.set(key, group);
      }
      const v = vectorOf(row.embedding);
      const code = new Uint32Array(words);
      writeCode(v, code, 0, center);
      group.rowids.push(row.rowid);
      group.codes.push(code);
      if (group.rowids.length === CODE_BLOCK_SIZE) flush(group);
      n++;
    }
    last = rows[rows.length - 1]!.rowid;
  }
  for (const group of open.values()) if (group.rowids.length > 0) flush(group);
  return n;
}

export interface VectorQuery extends CandidateQuery {
  userId: string;
  /** One app, or null for all of the user's apps. */
  appId: string | null;
}

/**
 * The k nearest of the user's vectors by cosine, best first: candidates picked from the codes, then ranked by exact
 * cosine from their float vectors. Exact whenever the user has at most candidateCount(k) vectors in scope.
 */
export function searchVectors(db: SqliteDatabase, query: VectorQuery): VectorHit[] {
  if (query.k <= 0) return [];
  const codes = loadCodes(db, query.userId, query.appId, codeWords(query.embedding.length));
  const candidates = selectCandidates(codes, query);
  if (candidates.length === 0) return [];
  const rows = db
    .prepare(`SELECT rowid, embedding FROM ${VECTORS_TABLE} WHERE rowid IN (SELECT value FROM json_each(?))`)
    .raw()
    .all(JSON.stringify(candidates)) as Array<[number, Buffer]>;
  return rankExactly(query.embedding, rows.map(([rowid, embedding]) => ({ rowid, embedding: vectorOf(embedding) })), query.k);
}

/**
 * The float32 vector in a blob. better-sqlite3 hands every blob over in a buffer of its own (a copy of SQLite's), so
 * an aligned one is read in place; copying each was 0.9 ms of a recall at 100,000 memories (the exact ranking reads
 * about a thousand). A blob at an odd offset is copied: a Float32Array must be 4-byte aligned.
 */
export function vectorOf(buf: Buffer): Float32Array {
  if (buf.byteOffset % 4 === 0 && buf.byteLength % 4 === 0) return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}
