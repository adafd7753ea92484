import { once } from 'node:events';
import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import type { Writable } from 'node:stream';
import type { MemoryStore } from '../../core/store.js';
import type { MemoryRecord } from '../../core/types.js';
import { sqliteFileMissing } from '../storage-checks.js';
import type { RuntimeConfig } from '../../runtime/config.js';
import type { Output } from '../../runtime/output.js';
import { createProgress, formatCount } from '../progress.js';
import { openStoreOnly } from '../../runtime/runtime.js';

/**
 * `agent-memory export FILE.jsonl` (or `-` for stdout): every memory, oldest first, one JSON object per line in
 * the format `agent-memory import` reads (`userId`, `text`, `appId` as the app slug, `metadata`, `createdAt`,
 * `updatedAt`, and `expiresAt` when it expires), so export then import is a round trip that keeps every memory.
 * Expired memories are not exported. Memory ids are not exported:
 * an import assigns its own. Written once over the MemoryStore interface, so the same on every backend: pages of
 * one read snapshot (MemoryStore.scanMemories), the file written under a temporary name and renamed at the end,
 * so an interrupted export leaves no partial file.
 */

const PAGE = 1000;

export interface ExportOptions {
  /** Only this user's memories. */
  userId?: string | undefined;
  /** Only this app's memories (its UUID). */
  appId?: string | undefined;
  onProgress?: (done: number, total: number) => void;
}

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
  });
}

async function write(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/** Writes the memories to `out` (not closed here); returns how many. */
export function exportJsonl(store: MemoryStore, out: Writable, options: ExportOptions = {}): Promise<number> {
  let done = 0;
  return store.scanMemories({ userId: options.userId, appId: options.appId, pageSize: PAGE }, async ({ memories, total }) => {
    await write(out, memories.map((m) => `${exportLine(m)}\n`).join(''));
    done += memories.length;
    options.onProgress?.(done, total);
  });
}

export async function exportCommand(
  config: RuntimeConfig,
  target: string,
  options: { userId?: string | undefined; appId?: string | undefined },
  out: Output,
): Promise<number> {
  if (sqliteFileMissing(config)) {
    out.notice(`agent-memory export: no database at ${config.dbPath}.`);
    return 1;
  }
  const toStdout = target === '-';
  if (!toStdout && existsSync(target)) {
    out.notice(`${target} already exists; choose a new path (an export never overwrites a file).`);
    return 1;
  }
  const store = await openStoreOnly(config);
  // --app-id names the app by slug or UUID; an app that does not exist is a mistake, not an empty export.
  const app = options.appId === undefined ? undefined : await store.findApp(options.appId);
  if (options.appId !== undefined && app === undefined) {
    await store.close();
    out.notice(`agent-memory export: no app is called "${options.appId}".`);
    return 1;
  }
  const progress = createProgress({ label: 'export' });
  const temp = toStdout ? undefined : join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  const started = performance.now();
  let stream: Writable | undefined;
  try {
    stream = temp === undefined ? process.stdout : createWriteStream(temp, { flags: 'wx' });
    const n = await exportJsonl(store, stream, {
      userId: options.userId,
      appId: app?.id,
      onProgress: (done, total) => progress.update({ done, total }),
    });
    if (temp !== undefined) {
      stream.end();
      await once(stream, 'finish');
      renameSync(temp, target);
    }
    progress.done();
    out.notice(
      `Exported ${formatCount(n)} memories${options.userId === undefined ? '' : ` of user "${options.userId}"`}` +
        `${app === undefined ? '' : ` of app "${app.slug}"`} to ` +
        `${toStdout ? 'stdout' : target} in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
    );
    return 0;
  } catch (error) {
    if (temp !== undefined) {
      stream?.destroy();
      rmSync(temp, { force: true });
    }
    throw error;
  } finally {
    progress.done();
    await store.close();
  }
}
