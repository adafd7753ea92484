import { statSync } from 'node:fs';
import type { RuntimeConfig } from '../../runtime/config.js';
import { importJsonlFile, STDIN } from '../../runtime/jsonl-file.js';
import type { Output } from '../../runtime/output.js';
import { openRuntime } from '../../runtime/runtime.js';
import { createProgress, formatBytes, formatCount } from '../progress.js';

/** Bad lines printed one by one; past this, only counted. */
const MAX_REPORTED = 50;

/** `agent-memory import FILE.jsonl|-`: the import itself is core/import.ts; this opens the runtime and reports. */
export interface ImportCommandOptions {
  batchSize?: number;
  strict?: boolean;
}

export async function importCommand(config: RuntimeConfig, file: string, options: ImportCommandOptions, out: Output): Promise<number> {
  if (file === STDIN && options.strict) {
    out.notice('agent-memory import: --strict reads the input twice, so it needs a file, not - (stdin).');
    return 2;
  }
  try {
    if (file !== STDIN && !statSync(file).isFile()) throw new Error('not a file');
  } catch {
    out.notice(`agent-memory import: cannot read "${file}" (a JSONL file, one memory per line, or - for stdin).`);
    return 2;
  }
  const runtime = await openRuntime(config);
  const progress = createProgress({ label: 'import', unit: formatBytes });
  let reported = 0;
  try {
    await runtime.modelReady;
    const result = await importJsonlFile(
      { store: runtime.store, embed: (texts) => runtime.service.embeddings.embed(texts, 'document') },
      file,
      {
        ...options,
        onInvalid: (line, message) => {
          reported++;
          if (reported <= MAX_REPORTED) {
            progress.done();
            out.notice(`line ${line}: ${message}`);
          }
        },
        onProgress: (p) =>
          progress.update({
            done: p.bytes,
            total: p.totalBytes,
            detail:
              `${formatCount(p.imported)} imported, ${formatCount(p.present)} already there` +
              `${p.invalid ? `, ${formatCount(p.invalid)} invalid` : ''}${p.collisions ? `, ${formatCount(p.collisions)} id collisions` : ''}`,
          }),
      },
    );
    progress.done();
    if (reported > MAX_REPORTED) out.notice(`... and ${formatCount(reported - MAX_REPORTED)} more bad lines.`);
    if (result.refused) {
      out.notice(`--strict: ${formatCount(result.invalid)} invalid line(s); nothing was imported. Fix them and run again.`);
      return 1;
    }
    const rate = result.seconds > 0 ? result.imported / result.seconds : 0;
    out.notice(
      `Imported ${formatCount(result.imported)} memories from ${file === STDIN ? 'stdin' : file} in ${result.seconds.toFixed(1)} s (${rate.toFixed(1)}/s, ` +
        `model busy ${result.embedSeconds.toFixed(1)} s); ${formatCount(result.present)} were already there` +
        `${result.invalid ? `; ${formatCount(result.invalid)} invalid line(s) skipped` : ''}` +
        `${result.collisions ? `; ${formatCount(result.collisions)} line(s) not imported: their id holds another memory` : ''}.`,
    );
    return result.invalid > 0 || result.collisions > 0 ? 1 : 0;
  } finally {
    progress.done();
    await runtime.close();
  }
}
