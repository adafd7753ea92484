import { once } from 'node:events';
import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import type { Writable } from 'node:stream';
import { exportJsonl, type ExportSink } from '../../core/export.js';
import { printable } from '../../core/printable.js';
import { userIdSchema } from '../../core/schemas.js';
import { sqliteFileMissing } from '../storage-checks.js';
import type { RuntimeConfig } from '../../runtime/config.js';
import type { Output } from '../../runtime/output.js';
import { createProgress, formatCount } from '../progress.js';
import { openStoreOnly } from '../../runtime/runtime.js';

/**
 * `agent-memory export FILE.jsonl` (or `-` for stdout): every memory, in the format `agent-memory import` reads
 * (core/export.ts). The file is written under a temporary name and renamed at the end, so an interrupted export
 * leaves no partial file.
 */

/** A sink over a Node stream: waits for 'drain' when the stream's buffer is full. */
export function streamSink(out: Writable): ExportSink {
  return async (chunk) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
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
  // The API's own rule for user ids (NFC, no invisible-only id): `--user-id cafe\u0301` exports the user "café".
  let userId: string | undefined;
  if (options.userId !== undefined) {
    const parsed = userIdSchema.safeParse(options.userId);
    if (!parsed.success) {
      out.notice(`agent-memory export: --user-id: ${parsed.error.issues[0]?.message ?? 'invalid user id.'}`);
      return 1;
    }
    userId = parsed.data;
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
    out.notice(`agent-memory export: no app is called "${printable(options.appId)}".`);
    return 1;
  }
  const progress = createProgress({ label: 'export' });
  const temp = toStdout ? undefined : join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  const started = performance.now();
  let stream: Writable | undefined;
  try {
    stream = temp === undefined ? process.stdout : createWriteStream(temp, { flags: 'wx' });
    const n = await exportJsonl(store, streamSink(stream), {
      userId,
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
      `Exported ${formatCount(n)} memories${userId === undefined ? '' : ` of user "${printable(userId)}"`}` +
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
