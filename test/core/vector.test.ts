import { describe, expect, it } from 'vitest';
import { cosineSimilarity, dot, isUnitVector, l2Norm, normalizeInPlace, toUnitVector } from '../../src/core/vector.js';

describe('vector helpers', () => {
  it('normalises to unit length', () => {
    const v = toUnitVector([3, 4]);
    expect(v).toBeInstanceOf(Float32Array);
    expect(Array.from(v)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect(isUnitVector(v)).toBe(true);
    expect(l2Norm(v)).toBeCloseTo(1, 6);
  });

  it('leaves a zero vector as zeros rather than NaN', () => {
    const v = normalizeInPlace(new Float32Array(3));
    expect(Array.from(v)).toEqual([0, 0, 0]);
    expect(isUnitVector(v)).toBe(false);
  });

  it('computes dot and cosine', () => {
    expect(dot([1, 2, 3], [4, 5, 6])).toBe(32);
    expect(cosineSimilarity([1, 0], [10, 0])).toBeCloseTo(1);
    expect(cosineSimilarity([1, 0], [0, 5])).toBeCloseTo(0);
    expect(cosineSimilarity([0, 0], [1, 0])).toBe(0);
    expect(() => dot([1], [1, 2])).toThrow(RangeError);
  });
});
