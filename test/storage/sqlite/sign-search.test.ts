/** The search's logic without a database: candidates from sign codes, then exact cosine, against brute force. */
import { describe, expect, it } from 'vitest';
import { jsHammingTable } from '../../../src/storage/sqlite/hamming.js';
import {
  candidateCount,
  codeWords,
  rankExactly,
  selectCandidates,
  writeCode,
  type UserCodes,
} from '../../../src/storage/sqlite/sign-search.js';
import { DIM, exactTop, near, rng, unitVector } from './vectors.js';

/** Codes for `vectors` (rowid = index + 1), centred on `center`, as vector-search.ts keeps them. */
function codesOf(vectors: readonly Float32Array[], center: Float32Array | null = null): UserCodes {
  const words = codeWords(DIM);
  const codes = new Uint32Array(vectors.length * words);
  vectors.forEach((v, i) => writeCode(v, codes, i * words, center));
  return { ids: Float64Array.from(vectors, (_, i) => i + 1), table: jsHammingTable(codes, words, vectors.length), center };
}

const byRowid = (vectors: readonly Float32Array[]) => new Map(vectors.map((v, i) => [i + 1, v]));

describe('writeCode', () => {
  it('sets bit j when component j is above the centre', () => {
    const v = Float32Array.from({ length: 40 }, (_, j) => (j % 3 === 0 ? 0.5 : -0.5));
    const out = new Uint32Array(3).fill(0xffffffff);
    writeCode(v, out, 1);
    expect(out[0]).toBe(0xffffffff);
    expect(out[1]).toBe([...Array(32).keys()].reduce((word, j) => (j % 3 === 0 ? word | (1 << j) : word), 0) >>> 0);
    expect(out[2]).toBe(0b10010010); // components 32..39: 33, 36 and 39 are multiples of 3
    const centred = new Uint32Array(2);
    writeCode(v, centred, 0, new Float32Array(40).fill(1));
    expect([...centred]).toEqual([0, 0]);
  });
});

describe('rankExactly', () => {
  it('orders by exact cosine, ties by rowid, and keeps k', () => {
    const q = Float32Array.from([1, 0]);
    const hits = rankExactly(
      q,
      [
        { rowid: 9, embedding: Float32Array.from([0, 1]) },
        { rowid: 4, embedding: Float32Array.from([2, 0]) },
        { rowid: 2, embedding: Float32Array.from([1, 0]) },
        { rowid: 7, embedding: Float32Array.from([-1, 0]) },
      ],
      3,
    );
    expect(hits.map((h) => h.rowid)).toEqual([2, 4, 9]);
    expect(hits[0]?.cosine).toBeCloseTo(1, 6);
    expect(hits[2]?.cosine).toBeCloseTo(0, 6);
    expect(rankExactly(q, [{ rowid: 1, embedding: q }], 0)).toEqual([]);
  });
});

describe('selectCandidates', () => {
  const next = rng(11);
  const vectors = Array.from({ length: 5_000 }, () => unitVector(next));

  it('takes every vector in scope when there are no more than candidateCount(k): exact', () => {
    const few = vectors.slice(0, 150);
    expect(selectCandidates(codesOf(few), { embedding: few[0] as Float32Array, k: 5 })).toEqual(few.map((_, i) => i + 1));
    const even = (rowid: number) => rowid % 2 === 0;
    expect(selectCandidates(codesOf(few), { embedding: few[0] as Float32Array, k: 5, accept: even })).toEqual(
      few.map((_, i) => i + 1).filter(even),
    );
    expect(selectCandidates(codesOf(few), { embedding: few[0] as Float32Array, k: 0 })).toEqual([]);
    expect(selectCandidates(codesOf(few), { embedding: few[0] as Float32Array, k: 5, accept: () => false })).toEqual([]);
  });

  it('keeps candidateCount(k) of 5,000, among them the true nearest neighbour of queries near stored vectors', () => {
    const codes = codesOf(vectors);
    const all = byRowid(vectors);
    let found = 0;
    for (let trial = 0; trial < 20; trial++) {
      const q = near(vectors[Math.floor(next() * vectors.length)] as Float32Array, next, 0.05);
      const candidates = selectCandidates(codes, { embedding: q, k: 10, minCandidates: 50 });
      expect(candidates).toHaveLength(candidateCount(10, undefined, 50));
      const top = rankExactly(q, candidates.map((rowid) => ({ rowid, embedding: all.get(rowid) as Float32Array })), 1);
      if (top[0]?.rowid === exactTop(all, q, 1)[0]) found++;
    }
    expect(found).toBeGreaterThanOrEqual(19);
  });

  it('applies the filter before the approximate stages: only accepted rowids, and their own nearest', () => {
    const codes = codesOf(vectors);
    const accepted = (rowid: number) => rowid % 10 === 3;
    const kept = new Map([...byRowid(vectors)].filter(([rowid]) => accepted(rowid)));
    // A query next to a refused vector: its nearest accepted one must still be found.
    const q = near(vectors[41] as Float32Array, next, 0.05);
    const candidates = selectCandidates(codes, { embedding: q, k: 5, minCandidates: 50, accept: accepted });
    expect(candidates.every(accepted)).toBe(true);
    expect(candidates).toContain(exactTop(kept, q, 1)[0]);
  });
});
