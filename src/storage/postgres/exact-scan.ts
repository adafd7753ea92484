import { bytesVector } from './vector-storage.js';

/**
 * Cosine similarity in the node, for databases that keep plain vectors (vector-storage.ts): what pgvector's
 * `1 - (a <=> b)` gives, accumulated in double precision. A zero vector has no direction: its cosine is 0.
 */
export function cosineFrom(query: Float32Array): (stored: Buffer) => number {
  let queryNorm = 0;
  for (let i = 0; i < query.length; i++) queryNorm += query[i]! * query[i]!;
  queryNorm = Math.sqrt(queryNorm);
  return (stored) => {
    const vector = bytesVector(stored);
    if (vector.length !== query.length) {
      throw new Error(`A stored vector has ${vector.length} dimensions, the query ${query.length}.`);
    }
    let dot = 0;
    let norm = 0;
    for (let i = 0; i < vector.length; i++) {
      const value = vector[i]!;
      dot += value * query[i]!;
      norm += value * value;
    }
    const denominator = Math.sqrt(norm) * queryNorm;
    return denominator > 0 ? dot / denominator : 0;
  };
}

/**
 * The ids of the `k` rows nearest to `query`, by cosine descending then id ascending: the order of pgvector's exact
 * scan (`ORDER BY distance, id`), so both modes pick the same candidates.
 */
export function nearestIds(rows: ReadonlyArray<{ id: string; embedding: Buffer }>, query: Float32Array, k: number): string[] {
  const cosine = cosineFrom(query);
  const scored = rows.map((row) => ({ id: row.id, score: cosine(row.embedding) }));
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, k).map((s) => s.id);
}
