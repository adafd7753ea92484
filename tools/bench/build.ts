/**
 * Building large sets fast: through the store's own bulk path (`insertMemories`, what `agent-memory import`
 * calls), with vectors computed beforehand instead of by the model (see data.ts), on a store opened with the
 * backend's load settings (see sqlite-backend.ts, postgres-backend.ts). Ids are assigned in increasing order: a
 * real import draws random ids, whose index inserts cost about three times as much at a million rows.
 */
import type { MemoryStore, NewMemory } from '../../src/core/store.js';
import type { SetTarget } from './backends.js';
import { noisePool, perturb, setRows, type BenchData } from './data.js';
import { rng } from './stats.js';

export interface BuiltSet {
  target: SetTarget;
  rows: number;
  users: number;
  /** Time of the inserts (the store's bulk path), without what follows the load (afterLoad). */
  seconds: number;
  bytes: number;
}

export const MODEL_DIMENSION = 512;

export async function buildSet(
  target: SetTarget,
  data: BenchData,
  vectors: { target: Float32Array[]; filler: Float32Array[] },
  spec: { users: number; perUser: number; withTarget: boolean; userPrefix: string; seed: number; model: string },
  onProgress?: (done: number, total: number) => void,
): Promise<BuiltSet> {
  const started = performance.now();
  const store = await target.openForLoad();
  try {
    await store.useModel({ model: spec.model, dimension: MODEL_DIMENSION });
    const app = await store.ensureApp('default');
    const next = rng(spec.seed ^ 0x5eed);
    const pool = noisePool(MODEL_DIMENSION, 512, next);
    const total = spec.users * spec.perUser;
    const prefix = (spec.seed % 0xffff).toString(16).padStart(4, '0');
    let n = 0;
    let batch: NewMemory[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await store.insertMemories(batch);
      batch = [];
      onProgress?.(n, total);
    };
    for (const row of setRows(data, spec)) {
      const embedding =
        row.source >= 0 ? (vectors.target[row.source] as Float32Array) : perturb(vectors.filler[-1 - row.source] as Float32Array, pool, next);
      batch.push({
        id: `mem_${n.toString(36).padStart(12, '0')}`,
        uuid: `${prefix}0000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
        userId: row.userId,
        appId: app.id,
        text: row.text,
        metadata: row.source >= 0 ? { externalId: row.key } : {},
        createdAt: row.createdAt,
        embedding,
      });
      n++;
      if (batch.length >= 5000) await flush();
    }
    await flush();
  } finally {
    await store.close();
  }
  const seconds = (performance.now() - started) / 1000;
  await target.afterLoad();
  return { target, rows: spec.users * spec.perUser, users: spec.users, seconds, bytes: await target.bytes() };
}

/** The vectors of a store's memories by their external id (the import's `id`), read through the store's export. */
export async function vectorsByExternalId(store: MemoryStore): Promise<Map<string, Float32Array>> {
  const byKey = new Map<string, Float32Array>();
  let after: string | null = null;
  do {
    const page = await store.exportMemories(after, 1_000);
    for (const m of page.memories) {
      const key = m.metadata.externalId;
      if (typeof key === 'string' && m.embedding !== null) byKey.set(key, m.embedding);
    }
    after = page.next;
  } while (after !== null);
  return byKey;
}
