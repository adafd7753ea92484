/**
 * Exporting memories as JSON lines, the format `importJsonl` (./import.ts) reads: `userId`, `text`, `appId` as the
 * app slug, `metadata`, `createdAt`, `updatedAt`, `expiresAt` when it expires and `key` when it has one, so export then import is a round
 * trip that keeps every memory. Expired memories are not exported; memory ids are not exported (an import assigns
 * its own). Written once over the MemoryStore interface, so the same on every backend: pages of one read snapshot
 * (MemoryStore.scanMemories). Where the lines go (a file, stdout) is the caller's: a sink that resolves when it can
 * take more.
 */
import type { MemoryRecordStore } from './store.js';
import type { MemoryRecord } from './types.js';

const PAGE = 1000;

export interface ExportOptions {
  /** Only this user's memories. */
  userId?: string | undefined;
  /** Only this app's memories (its UUID). */
  appId?: string | undefined;
  onProgress?: (done: number, total: number) => void;
}

/** Takes a chunk of lines; resolves when it can take the next (back-pressure). */
export type ExportSink = (chunk: string) => Promise<void>;

/**
 * One export line (no trailing newline). An external id stays in `metadata.externalId` and is not written as `id`:
 * memories may share one (stored through the API with the same metadata), and as `id` they would import as one
 * memory, the others dropped.
 */
export function exportLine(memory: MemoryRecord): string {
  return JSON.stringify({
    userId: memory.userId,
    text: memory.text,
    appId: memory.app.slug,
    metadata: memory.metadata,
    createdAt: memory.createdAt,
    updatedAt: memory.updatedAt,
    ...(memory.expiresAt === null ? {} : { expiresAt: memory.expiresAt }),
    ...(memory.key == null ? {} : { key: memory.key }),
  });
}

/** Writes the memories to the sink, a page at a time, oldest first; returns how many. */
export function exportJsonl(store: Pick<MemoryRecordStore, 'scanMemories'>, sink: ExportSink, options: ExportOptions = {}): Promise<number> {
  let done = 0;
  return store.scanMemories({ userId: options.userId, appId: options.appId, pageSize: PAGE }, async ({ memories, total }) => {
    await sink(memories.map((m) => `${exportLine(m)}\n`).join(''));
    done += memories.length;
    options.onProgress?.(done, total);
  });
}
