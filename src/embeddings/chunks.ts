/**
 * Texts longer than one model call should carry are split into chunks, embedded as separate items, and put back
 * together as the length-weighted mean of the chunks' vectors, made unit length again.
 *
 * Why chunk rather than cut: a memory may be up to 16,000 characters and all of it should count in recall.
 * transformers.js models read at most 512 tokens (the pipeline cuts the rest silently), and USE-lite's time grows
 * with the text (a 16,000-character text held the model for about half a second, and every caller behind it).
 * Chunks of about 2,000 characters keep each item's cost bounded, so a query waits for at most one chunk ahead of
 * it, and a long text's chunks spread over the pool's workers.
 */
import { normalizeInPlace } from './vector.js';

/** About 2,000 characters: ~400 English words, within the 512 tokens of the usual transformers.js models. */
export const DEFAULT_CHUNK_CHARS = 2_000;

export interface ChunkPlan {
  /** Every chunk of every text, in order. */
  pieces: string[];
  /** Rebuilds one vector per text from the pieces' vectors (in `pieces` order). */
  combine(vectors: readonly Float32Array[]): Float32Array[];
}

/**
 * Splits `text` into pieces of at most `maxChars`, at the last whitespace before the limit when there is one in its
 * second half (so that words stay whole), else hard at the limit.
 */
export function splitText(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > maxChars) {
    let end = start + maxChars;
    const space = text.lastIndexOf(' ', end);
    const newline = text.lastIndexOf('\n', end);
    const cut = Math.max(space, newline);
    if (cut > start + maxChars / 2) end = cut;
    pieces.push(text.slice(start, end));
    start = end;
  }
  pieces.push(text.slice(start));
  return pieces.filter((piece) => piece.trim().length > 0);
}

export function chunkTexts(texts: readonly string[], maxChars: number): ChunkPlan {
  const split = texts.map((text) => {
    const pieces = splitText(text, maxChars);
    // A text of blanks only still needs a vector: it goes whole, as before chunking existed.
    return pieces.length > 0 ? pieces : [text];
  });
  return {
    pieces: split.flat(),
    combine(vectors) {
      let next = 0;
      return split.map((pieces) => {
        const first = vectors[next];
        if (first === undefined) throw new Error('Fewer vectors than chunks');
        if (pieces.length === 1) {
          next += 1;
          return first;
        }
        const sum = new Float32Array(first.length);
        for (const piece of pieces) {
          const vector = vectors[next++];
          if (vector === undefined) throw new Error('Fewer vectors than chunks');
          for (let d = 0; d < sum.length; d++) sum[d] = (sum[d] ?? 0) + (vector[d] ?? 0) * piece.length;
        }
        return normalizeInPlace(sum);
      });
    },
  };
}
