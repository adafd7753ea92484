/**
 * Building large sets fast: through the store's own bulk path (`SqliteStore.insertMemories`, what
 * `agent-memory import` calls), with vectors computed beforehand instead of by the model (see data.ts).
 *
 * Bench-only load settings on the builder's connection: no rollback journal and no fsync (a crash would only
 * lose the benchmark's scratch file), a 256 MiB page cache, and ids assigned in increasing order (a real import
 * draws random ids, whose index inserts cost about three times as much at a million rows). The server that is
 * measured afterwards opens the file with the normal settings (WAL, synchronous=NORMAL).
 */
import { statSync } from 'node:fs';
import type { NewMemory } from '../../src/core/store.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { noisePool, perturb, setRows, type BenchData } from './data.js';
import { rng } from './stats.js';

export interface BuiltSet {
  path: string;
  rows: number;
  users: number;
  seconds: number;
  bytes: number;
}

export const MODEL_DIMENSION = 512;

function fileBytes(path: string): number {
  let total = 0;
  for (const suffix of ['', '-wal']) {
    try {
      total += statSync(path + suffix).size;
    } catch {
      // absent
    }
  }
  return total;
}

export async function buildSet(
  path: string,
  data: BenchData,
  vectors: { target: Float32Array[]; filler: Float32Array[] },
  spec: { users: number; perUser: number; withTarget: boolean; userPrefix: string; seed: number; model: string },
  onProgress?: (done: number, total: number) => void,
): Promise<BuiltSet> {
  const started = performance.now();
  const store = SqliteStore.open({ path });
  try {
    await store.useModel({ model: spec.model, dimension: MODEL_DIMENSION });
    const db = store.database;
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
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
  return { path, rows: spec.users * spec.perUser, users: spec.users, seconds: (performance.now() - started) / 1000, bytes: fileBytes(path) };
}

export { fileBytes };
