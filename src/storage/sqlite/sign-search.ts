/**
 * The vector search itself, with no database: given a user's sign-bit codes (one bit per dimension, after
 * subtracting the database's mean vector) and the query, pick the candidates worth an exact look (stages 1 and 2),
 * then rank the candidates' float vectors by exact cosine (stage 3). vector-search.ts stores the codes and vectors
 * in SQLite and calls these; test/storage/sqlite/sign-search.test.ts checks them against brute force.
 *
 * 1. Hamming distance between the query's code and every code (WebAssembly popcount, about 1 ms per 100,000),
 *    keeping the best HAMMING_CANDIDATES_PER_RESULT x k (at least MIN_HAMMING_CANDIDATES);
 * 2. an asymmetric score, the float query against each candidate's signs (the sum of the query's components whose
 *    bit is set), much closer to the cosine than Hamming, keeping the best candidateCount(k);
 * 3. exact cosine from the float vectors of those, best first.
 * When the user has no more vectors in scope than candidateCount(k), stages 1 and 2 are skipped: the result is exact.
 */
import { cosineSimilarity } from '../../core/vector.js';
import type { HammingTable } from './hamming.js';

/**
 * Candidates per result wanted: Hamming keeps the best 40 x k (at least 2,000), the asymmetric sign score the best
 * 6 x k (at least 200) of those, which are re-scored exactly (300 vectors for k = 50); past the 50th result, 10 and
 * 2 per result more (k = 200: 4,000 and 600). On USE-lite vectors, 100,000 in one user (tools/bench's set, LoCoMo
 * questions), k = 50 returned 99% of the exact top 10 and 94% of the exact top 50 (98% of its real, non-synthetic
 * memories) in under 5 ms; k = 200 returned all of the exact top 10 and 98% of the top 50. tools/bench measures it
 * against exact search on each run.
 */
export const OVERSAMPLE = 6;
/** At least this many candidates are re-scored, however small k is. */
export const MIN_CANDIDATES = 200;
export const HAMMING_CANDIDATES_PER_RESULT = 40;
export const MIN_HAMMING_CANDIDATES = 2000;

export interface VectorHit {
  rowid: number;
  /** Exact cosine similarity to the query. */
  cosine: number;
}

/** 32-bit words per code: the sign bits of `dimension` components, rounded up to whole words. */
export function codeWords(dimension: number): number {
  return Math.ceil(dimension / 32);
}

/** Writes the sign bits of `v - center` (bit j set when component j is above the mean) into `out` from word `at`. */
export function writeCode(v: Float32Array, out: Uint32Array, at: number, center: Float32Array | null = null): void {
  const words = codeWords(v.length);
  for (let w = 0; w < words; w++) {
    let word = 0;
    const base = w * 32;
    const end = Math.min(32, v.length - base);
    for (let b = 0; b < end; b++) if ((v[base + b] ?? 0) > (center?.[base + b] ?? 0)) word |= 1 << b;
    out[at + w] = word >>> 0;
  }
}

/** How many candidates are re-scored exactly for `k` results. */
export function candidateCount(k: number, oversample = OVERSAMPLE, minCandidates = MIN_CANDIDATES): number {
  // The first 50 results get the full oversampling, deeper ones (rank 51 to k, for rankers that ask for many) a
  // third of it: the head of the list decides what recall returns, the tail only adds context.
  const head = Math.min(k, 50);
  return Math.max(minCandidates, Math.ceil(head * oversample + (k - head) * (oversample / 3)));
}

/** Candidates kept by the Hamming stage for `wanted` re-scored ones. */
export function hammingCount(k: number, wanted: number): number {
  return Math.max(wanted, MIN_HAMMING_CANDIDATES, HAMMING_CANDIDATES_PER_RESULT * Math.min(k, 50) + (HAMMING_CANDIDATES_PER_RESULT / 4) * Math.max(0, k - 50));
}

/** Indices of the `want` smallest distances (ties at the cut in storage order), by counting: O(n). */
export function smallest(distances: Uint16Array, count: number, want: number, maxDistance: number): number[] {
  if (want >= count) return Array.from({ length: count }, (_, i) => i);
  const histogram = new Uint32Array(maxDistance + 2);
  for (let i = 0; i < count; i++) histogram[distances[i] as number]! += 1;
  let cut = 0;
  let below = 0;
  while (cut <= maxDistance && below + (histogram[cut] as number) < want) below += histogram[cut++] as number;
  let atCut = want - below;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const d = distances[i] as number;
    if (d < cut) out.push(i);
    else if (d === cut && atCut > 0) {
      out.push(i);
      atCut--;
    }
  }
  return out;
}

/**
 * The `want` best candidate indices by the asymmetric sign score, best first: for each code, the sum of the
 * query's components whose bit is set, looked up a byte (8 dimensions) at a time in per-query tables.
 */
export function bestBySignScore(query: Float32Array, codeBytes: Uint8Array, stride: number, indices: readonly number[], want: number): number[] {
  const positions = Math.ceil(query.length / 8);
  const tables = new Float32Array(positions * 256);
  for (let b = 0; b < positions; b++) {
    const t = b << 8;
    for (let v = 1; v < 256; v++) {
      const low = 31 - Math.clz32(v & -v);
      tables[t + v] = tables[t + (v & (v - 1))]! + (query[b * 8 + low] ?? 0);
    }
  }
  const count = indices.length;
  const scores = new Float32Array(count);
  for (let n = 0; n < count; n++) {
    const o = indices[n]! * stride;
    let sum = 0;
    for (let b = 0; b < positions; b++) sum += tables[(b << 8) | codeBytes[o + b]!]!;
    scores[n] = sum;
  }
  const order = new Uint32Array(count);
  for (let n = 0; n < count; n++) order[n] = n;
  order.sort((a, b) => scores[b]! - scores[a]! || a - b);
  const out: number[] = [];
  for (let n = 0; n < Math.min(want, count); n++) out.push(indices[order[n]!]!);
  return out;
}

/** One user's codes in scope: their rowids, in the order of the codes in `table`, and the mean they were made with. */
export interface UserCodes {
  ids: Float64Array;
  table: HammingTable;
  center: Float32Array | null;
}

export interface CandidateQuery {
  embedding: Float32Array;
  k: number;
  /** Only these rowids may be returned: applied before stages 1 and 2, so a narrow filter still gets its nearest. */
  accept?: ((rowid: number) => boolean) | undefined;
  /** Override OVERSAMPLE / MIN_CANDIDATES (tools compare with exact search: minCandidates Infinity re-scores all). */
  oversample?: number | undefined;
  minCandidates?: number | undefined;
}

/** Stages 1 and 2: the rowids whose float vectors deserve an exact cosine (all accepted ones when few enough). */
export function selectCandidates(codes: UserCodes, query: CandidateQuery): number[] {
  const { ids, table, center } = codes;
  const total = ids.length;
  if (query.k <= 0 || total === 0) return [];
  const dimension = query.embedding.length;
  const words = codeWords(dimension);
  const wanted = candidateCount(query.k, query.oversample, query.minCandidates);
  const accept = query.accept;
  let accepted = total;
  if (accept) {
    accepted = 0;
    for (const id of ids) if (accept(id)) accepted++;
    if (accepted === 0) return [];
  }
  if (accepted <= wanted) return accept ? Array.from(ids).filter(accept) : Array.from(ids);
  const q = new Uint32Array(words);
  writeCode(query.embedding, q, 0, center);
  const distances = table.distances(q);
  // A memory the filter refuses gets a distance past every real one, so it is never among the best.
  if (accept) for (let i = 0; i < total; i++) if (!accept(ids[i]!)) distances[i] = dimension + 1;
  const coarse = smallest(distances, total, Math.min(accepted, hammingCount(query.k, wanted)), dimension + 1);
  return bestBySignScore(query.embedding, table.codeBytes, words * 4, coarse, wanted).map((i) => ids[i]!);
}

/** Stage 3: the `k` vectors most similar to `query` by exact cosine, best first (ties: lower rowid first). */
export function rankExactly(query: Float32Array, vectors: ReadonlyArray<{ rowid: number; embedding: Float32Array }>, k: number): VectorHit[] {
  const hits = vectors.map(({ rowid, embedding }) => ({ rowid, cosine: cosineSimilarity(query, embedding) }));
  hits.sort((a, b) => b.cosine - a.cosine || a.rowid - b.rowid);
  return hits.slice(0, Math.max(0, k));
}
