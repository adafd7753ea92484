import { endianness } from 'node:os';
import type { PoolClient } from './connection.js';

/**
 * How this database keeps the memories' vectors, in the column `memories.embedding`:
 *
 * - 'pgvector': `vector(dimension)` with an HNSW index (when the dimension allows one); the database searches.
 * - 'plain': `bytea`, the float32 values as they are (little-endian), when the pgvector extension is not
 *   available on the server (managed services without it, stock Debian or embedded PostgreSQL builds). Each recall
 *   then reads the user's vectors and computes every cosine exactly in the node (exact-scan.ts): the same results as
 *   pgvector's exact scan, at a cost that grows with the user's memories. bytea was chosen over `real[]` by
 *   measuring at 10,000 memories in one user (README, "Scaling out"): computing the cosines in SQL over `real[]`
 *   took about 4 times as long as sending the bytes to Node and computing them there.
 *
 * The column's type decides, once it exists, so every node on one database agrees whatever its server offers now;
 * a new column (first model, or reembed's swap) is a `vector` one whenever pgvector is there: installing pgvector
 * and running reembed moves a plain database onto it.
 */
export type VectorMode = 'pgvector' | 'plain';

export interface VectorStorage {
  readonly mode: VectorMode;
  /** The column's SQL type for `dimension` (with its constraint), for a column named `embedding`. */
  columnType(dimension: number): string;
  /** The SQL type to cast one parameter (and `[]` an array of them) to. */
  readonly sqlType: 'vector' | 'bytea';
  /** One vector as a query parameter. */
  toParam(vector: Float32Array): string | Buffer;
  /** A selected `embedding` column (as `exportColumn` selects it) back to the float32 values it was written from. */
  fromColumn(value: string | Buffer): Float32Array;
  /** The select-list expression that reads the column for fromColumn. */
  readonly exportColumn: string;
}

const LITTLE_ENDIAN = endianness() === 'LE';

/** float32 values as little-endian bytes, bit for bit (-0 and NaN payloads included). */
export function vectorBytes(vector: Float32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  const out = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => out.writeFloatLE(value, i * 4));
  return out;
}

/** The reverse of vectorBytes; a view on `bytes` when its alignment allows, else a copy. */
export function bytesVector(bytes: Buffer): Float32Array {
  if (bytes.length % 4 !== 0) throw new Error(`A stored vector has ${bytes.length} bytes, not a whole number of float32 values.`);
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
  return out;
}

/**
 * pgvector's text form, `[0.1,0.2,...]`: exact for float32 values, and needs no binary type registration. -0 is
 * written as such (String(-0) is "0"), so that a copy between backends gives back the very same bits.
 */
export function vectorLiteral(v: Float32Array): string {
  return `[${Array.from(v, (x) => (Object.is(x, -0) ? '-0' : String(x))).join(',')}]`;
}

/** pgvector's text form back to the float32 values it was written from. */
function parseVectorLiteral(text: string): Float32Array {
  const inner = text.trim().slice(1, -1);
  return inner === '' ? new Float32Array(0) : Float32Array.from(inner.split(','), Number);
}

const PGVECTOR: VectorStorage = Object.freeze({
  mode: 'pgvector',
  columnType: (dimension: number) => `vector(${dimension})`,
  sqlType: 'vector',
  toParam: vectorLiteral,
  // Its text form: float4 values printed shortest-exact, so they parse back bit for bit.
  exportColumn: 'embedding::text',
  fromColumn: (value: string | Buffer) => parseVectorLiteral(String(value)),
});

const PLAIN: VectorStorage = Object.freeze({
  mode: 'plain',
  // The length check stands in for vector(n)'s: a vector of another model's dimension is refused by the database.
  columnType: (dimension: number) => `bytea CHECK (octet_length(embedding) = ${dimension * 4})`,
  sqlType: 'bytea',
  toParam: vectorBytes,
  exportColumn: 'embedding',
  fromColumn: (value: string | Buffer) => {
    if (!Buffer.isBuffer(value)) throw new Error('A plain vector column was read as text.');
    return bytesVector(value);
  },
});

export function vectorStorage(mode: VectorMode): VectorStorage {
  return mode === 'pgvector' ? PGVECTOR : PLAIN;
}

/** The mode of the existing `memories.embedding` column, or undefined before the first model is declared. */
export async function columnMode(client: PoolClient): Promise<VectorMode | undefined> {
  const { rows } = await client.query<{ type: string }>(
    `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = 'memories'::regclass AND attname = 'embedding' AND NOT attisdropped`,
  );
  const type = rows[0]?.type;
  if (type === undefined) return undefined;
  if (type === 'bytea') return 'plain';
  if (/^vector\b/.test(type)) return 'pgvector';
  throw new Error(`memories.embedding has the unexpected type ${type}.`);
}

/** Whether pgvector's `vector` type is usable here (the extension is created and on the search path). */
export async function pgvectorUsable(client: PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ usable: boolean }>("SELECT to_regtype('vector') IS NOT NULL AS usable");
  return rows[0]?.usable === true;
}

/**
 * The mode of a column about to be created: pgvector when it is usable, unless the operator's setting turned it
 * off (`allowPgvector` false: tests and comparisons of the two modes on one server).
 */
export async function newColumnMode(client: PoolClient, allowPgvector: boolean): Promise<VectorMode> {
  return allowPgvector && (await pgvectorUsable(client)) ? 'pgvector' : 'plain';
}
