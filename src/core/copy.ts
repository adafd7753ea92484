import { MemoryError } from './errors.js';
import type { MemoryStore, MemoryPage, ModelRecord } from './store.js';
import type { App } from './types.js';

/**
 * Copies a whole database between two stores (`agent-memory copy --from SOURCE --to TARGET`, each a SQLite file or
 * a postgres:// URL, opened by runtime/copy-ends.ts): moves a whole database,
 * e.g. from the single-node SQLite file to the PostgreSQL that several nodes will share, or back.
 *
 * - Everything as it is: apps (UUID, slug, creation time), API keys (hash, prefix, app, label, times: the same keys
 *   keep working), memories (id, UUID, user, app, text, metadata, creation time) and their vectors, which are not
 *   recomputed: no model is loaded, so the copy runs at database speed.
 * - The target's schema is created (opening migrates it) and the source's embedding model is declared on it; a
 *   target whose vectors come from another model is refused before anything is written.
 * - In batches (one transaction each) by memory id; a memory whose UUID the target holds is skipped. So running it
 *   again changes nothing, and an interrupted copy is resumed by running it again.
 * - It adds, never removes or overwrites: a memory deleted from the source after a first copy stays in the target;
 *   an app whose slug the target already has keeps the target's UUID (its memories and keys follow it there);
 *   a key revoked in the source is revoked in the target too. Idempotency records (24 hours) and rate-limit state
 *   are not copied.
 * - Consistent once writes have stopped: a memory stored in the source while the copy runs may be missed (one with
 *   an id before the copy's position); stop the writers, or copy again after switching them over.
 */

export const DEFAULT_COPY_BATCH = 500;
export const MAX_COPY_BATCH = 5_000;
/** A batch that fails as `unavailable` (a dropped connection, a failover) is tried again this many times. */
const ATTEMPTS = 4;

export interface CopyProgress {
  /** Memories handled (copied or already there) out of `total`. */
  done: number;
  total: number;
  copied: number;
  present: number;
}

export interface CopyOptions {
  batchSize?: number;
  /** Wait before retrying a batch that failed as unavailable (default 1 s, doubling). */
  retryDelayMs?: number;
  onProgress?: (progress: CopyProgress) => void;
  /** Told about anything worth a line (an app that keeps the target's UUID, a key revoked). */
  onNotice?: (line: string) => void;
}

export interface CopyResult {
  model: ModelRecord | undefined;
  apps: { copied: number; present: number };
  keys: { copied: number; present: number; revoked: number };
  memories: { copied: number; present: number; total: number };
  seconds: number;
}

export function describeModel(model: ModelRecord): string {
  return `"${model.model}" (${model.dimension} dimensions)`;
}

/** Copies `source` into `target` (both open); see the file's comment for what that means. */
export async function copyStore(source: MemoryStore, target: MemoryStore, options: CopyOptions = {}): Promise<CopyResult> {
  const started = performance.now();
  const batchSize = Math.min(MAX_COPY_BATCH, Math.max(1, Math.floor(options.batchSize ?? DEFAULT_COPY_BATCH)));
  const notice = options.onNotice ?? (() => undefined);
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  /** Batches are idempotent (reads, and inserts that skip what is there), so a transient failure is retried. */
  const retrying = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (!(error instanceof MemoryError) || error.code !== 'unavailable' || attempt >= ATTEMPTS) throw error;
        const wait = retryDelayMs * 2 ** (attempt - 1);
        notice(`${what} failed: ${error.message} Trying again in ${(wait / 1000).toFixed(1)} s.`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  };

  // The model first: a refused copy must not have written anything.
  const model = await source.getModel();
  const total = await source.countMemories();
  if (model === undefined && total > 0) throw new Error('The source holds memories but no embedding model: it is damaged.');
  const targetModel = await target.getModel();
  if (model !== undefined && targetModel !== undefined && (targetModel.model !== model.model || targetModel.dimension !== model.dimension)) {
    throw new MemoryError(
      'validation_error',
      `The target's vectors were made with the embedding model ${describeModel(targetModel)}, the source's with ` +
        `${describeModel(model)}. copy moves vectors as they are, without re-embedding, so both must use the same ` +
        'model: copy into an empty database, or first run `agent-memory reembed --model ' +
        `${targetModel.model}\` on (a copy of) the source.`,
    );
  }
  if (model !== undefined) await target.useModel(model);

  // Apps, by slug: the target's own app of that slug wins (it may have memories already).
  const result: CopyResult = {
    model,
    apps: { copied: 0, present: 0 },
    keys: { copied: 0, present: 0, revoked: 0 },
    memories: { copied: 0, present: 0, total },
    seconds: 0,
  };
  const targetSlugs = new Set((await target.listApps()).map((a) => a.slug));
  const appMap = new Map<string, App>();
  for (const app of await source.listApps()) {
    const there = await target.importApp(app);
    appMap.set(app.id, there);
    if (!targetSlugs.has(app.slug)) result.apps.copied++;
    else {
      result.apps.present++;
      if (there.id !== app.id) {
        notice(`The app "${app.slug}" exists in the target with another UUID (${there.id}); its memories and keys go to that app.`);
      }
    }
  }
  const appIdThere = (id: string): string => {
    const app = appMap.get(id);
    if (!app) throw new Error(`The source refers to an app (${id}) that it does not list: it is damaged.`);
    return app.id;
  };

  // Keys, by id: a key is its hash, so the same secret keeps working against the target.
  const targetKeys = new Map((await target.listKeys()).map((k) => [k.id, k]));
  for (const key of await source.listKeys()) {
    const there = targetKeys.get(key.id);
    if (there === undefined) {
      await target.createKey({
        id: key.id,
        prefix: key.prefix,
        hash: key.hash,
        appId: key.app === null ? null : appIdThere(key.app.id),
        label: key.label,
        createdAt: key.createdAt,
        revokedAt: key.revokedAt,
      });
      result.keys.copied++;
      continue;
    }
    if (there.hash !== key.hash) {
      throw new MemoryError('validation_error', `The key id ${key.id} names another key in the target: these databases cannot be merged by copy.`);
    }
    result.keys.present++;
    if (key.revokedAt !== null && there.revokedAt === null) {
      await target.revokeKey(key.id, key.revokedAt);
      result.keys.revoked++;
      notice(`The key ${key.id} was revoked in the source since the last copy: revoked in the target too.`);
    }
  }

  // Memories, a page at a time: the next page is read while the current one is written.
  const report = () =>
    options.onProgress?.({ done: result.memories.copied + result.memories.present, total, copied: result.memories.copied, present: result.memories.present });
  report();
  const read = (after: string | null) => retrying('Reading the source', () => source.exportMemories(after, batchSize));
  let pending: Promise<MemoryPage> | undefined = read(null);
  while (pending !== undefined) {
    const page: MemoryPage = await pending;
    pending = page.next === null ? undefined : read(page.next);
    // A failed read ahead surfaces when it is awaited, not as an unhandled rejection meanwhile.
    pending?.catch(() => undefined);
    if (page.memories.length > 0) {
      const batch = page.memories.map((m) => ({ ...m, appId: appIdThere(m.appId) }));
      const { inserted } = await retrying('Writing to the target', () => target.insertMemories(batch));
      result.memories.copied += inserted;
      result.memories.present += batch.length - inserted;
      report();
    }
  }
  result.seconds = (performance.now() - started) / 1000;
  return result;
}
