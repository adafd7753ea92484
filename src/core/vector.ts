/**
 * Small vector helpers. Every embedder returns unit-length vectors so that the store can rank by dot product;
 * normalising here, once, means no model has to be trusted to do it exactly.
 */

/** Euclidean length, accumulated in double precision so that long vectors do not drift. */
export function l2Norm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const value = vector[i] ?? 0;
    sum += value * value;
  }
  return Math.sqrt(sum);
}

/**
 * Scales `vector` in place to unit length and returns it. A zero (or non-finite) vector has no direction: it is
 * left as it is rather than filled with NaN, and `isUnitVector` reports it.
 */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  const norm = l2Norm(vector);
  if (norm > 0 && Number.isFinite(norm)) {
    for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) / norm;
  }
  return vector;
}

/** A new unit-length Float32Array from any numeric array (models hand back number[] or typed arrays). */
export function toUnitVector(values: ArrayLike<number>): Float32Array {
  return normalizeInPlace(Float32Array.from(values));
}

/** Dot product; for unit vectors this is the cosine similarity. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`Vector lengths differ: ${a.length} and ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

/** Cosine similarity of two vectors of any length scale (0 when either is a zero vector). */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const denominator = l2Norm(a) * l2Norm(b);
  return denominator > 0 ? dot(a, b) / denominator : 0;
}

/** True when the vector's length is 1 within `tolerance` (float32 rounding leaves about 1e-7 per component). */
export function isUnitVector(vector: ArrayLike<number>, tolerance = 1e-4): boolean {
  return Math.abs(l2Norm(vector) - 1) <= tolerance;
}
