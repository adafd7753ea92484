import { createHash } from 'node:crypto';

/**
 * The text as duplicates are compared: runs of whitespace (as JavaScript's `\s` counts it) become one space, and
 * the ends are trimmed. Case and punctuation count: "Dan likes jazz." and "dan likes jazz" are two memories.
 */
export function normaliseText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * What the stores index to find a duplicate: the SHA-256 of the normalised text (hex), computed here once so that
 * every backend, and every migration that fills it in, agree on it to the bit.
 */
export function textKey(text: string): string {
  return createHash('sha256').update(normaliseText(text), 'utf8').digest('hex');
}
