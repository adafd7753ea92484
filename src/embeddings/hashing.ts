/**
 * The `hash` model: a deterministic embedder with no model files, for tests, CI and development (`--model hash`).
 * Each text becomes a bag of features (its words, and the character trigrams of each word) hashed into a fixed
 * number of signed dimensions (the "hashing trick"), then L2-normalised. So the same text always gives the same
 * vector, and texts sharing words or word stems ("allergy", "allergic") give close vectors; it knows nothing of
 * meaning ("peanut" and "nut" are close, "car" and "automobile" are not). It runs in-process in microseconds,
 * which is what lets the REST, MCP and client suites test the real app without loading a neural model.
 */
import type { EmbedKind, Embedder, EmbedderInfo } from '../core/embedder.js';
import { normalizeInPlace } from '../core/vector.js';

export const HASH_MODEL = 'hash';
/** Enough dimensions that unrelated short texts rarely collide (expected |cosine| about 1/sqrt(dimension)). */
export const HASH_DIMENSION = 256;

/**
 * A word's own feature and its trigrams weigh the same (each trigram 1/sqrt(count), so the trigrams together have
 * length 1): a shared word counts fully, a shared stem ("allerg-") about half.
 */
const WORD_WEIGHT = 1;

/** FNV-1a, 32 bits: stable across platforms and Node versions, unlike anything seeded per process. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Lower-cased runs of letters and digits (any script), NFKC-normalised so that equivalent spellings agree. */
export function words(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function add(vector: Float32Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  // The lowest bit picks the sign, so that collisions cancel on average instead of piling up.
  const sign = hash & 1 ? -1 : 1;
  const index = (hash >>> 1) % vector.length;
  vector[index] = (vector[index] ?? 0) + sign * weight;
}

/** The unit vector of one text. A text without any word (punctuation only, empty) gets one fixed direction. */
export function hashEmbedding(text: string, dimension = HASH_DIMENSION): Float32Array {
  const vector = new Float32Array(dimension);
  const tokens = words(text);
  if (tokens.length === 0) add(vector, '\u0000no-words', 1);
  for (const word of tokens) {
    add(vector, `w:${word}`, WORD_WEIGHT);
    const padded = `<${word}>`;
    const weight = 1 / Math.sqrt(padded.length - 2);
    for (let i = 0; i + 3 <= padded.length; i++) add(vector, `g:${padded.slice(i, i + 3)}`, weight);
  }
  // A text whose features all cancelled out has no direction; fall back to the fixed one rather than a zero vector.
  if (vector.every((value) => value === 0)) add(vector, '\u0000no-words', 1);
  return normalizeInPlace(vector);
}

/** The `hash` model behind the Embedder interface: ready at once, symmetric (queries and documents alike). */
export class HashingEmbedder implements Embedder {
  readonly model = HASH_MODEL;
  #closed = false;

  constructor(readonly dimension = HASH_DIMENSION) {}

  ready(): Promise<EmbedderInfo> {
    if (this.#closed) return Promise.reject(this.#closedError());
    return Promise.resolve({ model: this.model, dimension: this.dimension });
  }

  embed(texts: readonly string[], _kind: EmbedKind): Promise<Float32Array[]> {
    if (this.#closed) return Promise.reject(this.#closedError());
    return Promise.resolve(texts.map((text) => hashEmbedding(text, this.dimension)));
  }

  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  #closedError(): Error {
    return new Error(`The embedder for model "${this.model}" is closed`);
  }
}
