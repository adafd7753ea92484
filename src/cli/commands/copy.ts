import { copyStore, describeModel } from '../../core/copy.js';
import type { MemoryStore } from '../../core/store.js';
import { ConfigError } from '../../runtime/config.js';
import { locateCopyEnd, openCopyEnd } from '../../runtime/copy-ends.js';
import type { Output } from '../../runtime/output.js';
import { createProgress, formatCount } from '../progress.js';

/** `agent-memory copy --from SOURCE --to TARGET`: the copy itself is core/copy.ts; this opens both ends and reports. */
export async function copyCommand(from: string, to: string, options: { batchSize?: number }, out: Output): Promise<number> {
  const source = locateCopyEnd(from, 'source');
  const target = locateCopyEnd(to, 'target');
  if (source.identity === target.identity) throw new ConfigError('The source and the target are the same database.');
  const sourceStore = await openCopyEnd(source, 'source');
  let targetStore: MemoryStore | undefined;
  const progress = createProgress({ label: 'copy' });
  try {
    targetStore = await openCopyEnd(target, 'target');
    out.notice(`Copying ${source.label} to ${target.label}`);
    const result = await copyStore(sourceStore, targetStore, {
      ...options,
      onNotice: (line) => {
        progress.done();
        out.notice(line);
      },
      onProgress: (p) =>
        progress.update({ done: p.done, total: p.total, detail: `${formatCount(p.copied)} copied, ${formatCount(p.present)} already there` }),
    });
    progress.done();
    const { memories, apps, keys } = result;
    const rate = result.seconds > 0 ? memories.copied / result.seconds : 0;
    const appWord = apps.copied === 1 ? 'app' : 'apps';
    const keyWord = keys.copied === 1 ? 'key' : 'keys';
    out.notice(
      `Copied ${formatCount(memories.copied)} memories (${formatCount(memories.present)} were already there), ` +
        `${formatCount(apps.copied)} ${appWord} (${formatCount(apps.present)} there), ${formatCount(keys.copied)} ${keyWord} ` +
        `(${formatCount(keys.present)} there${keys.revoked ? `, ${formatCount(keys.revoked)} newly revoked` : ''}) ` +
        `in ${result.seconds.toFixed(1)} s (${rate.toFixed(0)} memories/s)` +
        `${result.model ? `; embedding model ${describeModel(result.model)}` : ''}.`,
    );
    return 0;
  } finally {
    progress.done();
    await Promise.allSettled([sourceStore.close(), targetStore?.close()]);
  }
}
