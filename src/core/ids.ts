import { randomBytes, randomUUID } from 'node:crypto';
import { MEMORY_ID_PATTERN, UUID_PATTERN } from './patterns.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 string: rejection sampling keeps every character equally likely (no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (const byte of bytes) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export { MEMORY_ID_PATTERN, UUID_PATTERN };

export function newMemoryId(): string {
  return `mem_${randomBase62(12)}`;
}

export function newUuid(): string {
  return randomUUID();
}

/** A memory reference as accepted in paths and bulk forget: the short id or the UUID (lower-cased). */
export type MemoryRef = { kind: 'id'; value: string } | { kind: 'uuid'; value: string };

export function parseMemoryRef(value: string): MemoryRef | undefined {
  if (MEMORY_ID_PATTERN.test(value)) return { kind: 'id', value };
  if (UUID_PATTERN.test(value)) return { kind: 'uuid', value: value.toLowerCase() };
  return undefined;
}

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
