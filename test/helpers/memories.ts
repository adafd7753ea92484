/** Test stand-ins: a deterministic "model" (a unit vector from a hash of the text) and memories ready to insert. */
import { createHash } from 'node:crypto';
import { newMemoryId, newUuid } from '../../src/core/ids.js';
import type { NewMemory } from '../../src/core/store.js';

/** A unit vector of `dimension` components derived from `text` (and `salt`, to tell two fake models apart). */
export function hashVector(text: string, dimension: number, salt = ''): Float32Array {
  const bytes: number[] = [];
  for (let block = 0; bytes.length < dimension; block++) {
    bytes.push(...createHash('sha256').update(`${block}\u0000${salt}\u0000${text}`).digest());
  }
  const v = Float32Array.from({ length: dimension }, (_, i) => ((bytes[i] as number) - 127.5) / 128);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** A memory stored at `minute` past midnight on 2024-01-01 (so that their order is known), with fresh ids. */
export function newMemory(
  fields: Pick<NewMemory, 'userId' | 'appId' | 'text' | 'embedding'> & { minute?: number; metadata?: Record<string, unknown> },
): NewMemory {
  const { minute = 0, metadata = {}, ...rest } = fields;
  return { id: newMemoryId(), uuid: newUuid(), metadata, createdAt: new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString(), ...rest };
}
