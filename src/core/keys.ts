import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from './ids.js';

/** `amk_` + 40 base62 characters: about 238 bits of randomness. */
export const API_KEY_PATTERN = /^amk_[0-9A-Za-z]{40}$/;
const PREFIX_LENGTH = 8;

export interface NewApiKey {
  /** The secret, shown once. */
  key: string;
  id: string;
  prefix: string;
  hash: string;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(): NewApiKey {
  const key = `amk_${randomBase62(40)}`;
  return { key, id: `key_${randomBase62(12)}`, prefix: key.slice(0, PREFIX_LENGTH), hash: hashApiKey(key) };
}

/**
 * Compares two hex digests in constant time. Keys are found by their SHA-256 (which reveals nothing about how much
 * of a guessed key was right); this guards the final comparison the same way for stored and configured keys.
 */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
