/**
 * The evaluation's bridge to the real service: store a dataset's memories through `MemoryService.store` (the
 * dataset id kept in metadata) and ask `MemoryService.recall`, mapping the service's ids back to dataset ids.
 */
import type { MemoryService } from '../../src/core/service.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import type { EvalMemory } from './dataset.js';

/** The metadata key that carries a memory's dataset id. */
export const DATASET_ID_KEY = 'datasetId';

/** A recall as the evaluation sees it: dataset ids, best first, with their scores. */
export interface RecallHit {
  id: string;
  score: number;
}

export type RecallFn = (userId: string, query: string, limit: number, minScore: number) => Promise<RecallHit[]>;

export function serviceRecall(service: MemoryService): RecallFn {
  return async (userId, query, limit, minScore) => {
    const result = await service.recall(LOCAL_CALLER, { userId, query, limit, minScore });
    return result.memories.map((m) => ({ id: String(m.metadata[DATASET_ID_KEY]), score: m.score }));
  };
}

/** Dataset ids already stored for a user (so that a reused database is only topped up). */
async function storedIds(service: MemoryService, userId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let page = 0; ; page++) {
    const result = await service.list(LOCAL_CALLER, { userId, page, pageSize: 100 });
    for (const m of result.memories) ids.add(String(m.metadata[DATASET_ID_KEY]));
    if ((page + 1) * 100 >= result.total) return ids;
  }
}

/**
 * Stores the memories not stored yet; returns how many were stored. A few stores run at once so that the
 * embedding worker always has the next text queued; more would only pad its batches to their longest text.
 */
export async function storeMissing(
  service: MemoryService,
  memories: readonly EvalMemory[],
  onProgress?: (done: number, total: number) => void,
  concurrency = 2,
): Promise<number> {
  const present = new Map<string, Set<string>>();
  const missing: EvalMemory[] = [];
  for (const m of memories) {
    let ids = present.get(m.userId);
    if (ids === undefined) {
      ids = await storedIds(service, m.userId);
      present.set(m.userId, ids);
    }
    if (!ids.has(m.id)) missing.push(m);
  }
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < missing.length; i = next++) {
      const m = missing[i] as EvalMemory;
      await service.store(LOCAL_CALLER, { userId: m.userId, text: m.text, createdAt: m.createdAt, metadata: { [DATASET_ID_KEY]: m.id } });
      done++;
      if (done % 100 === 0 || done === missing.length) onProgress?.(done, missing.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return missing.length;
}
