import { statSync } from 'node:fs';
import { MemoryError } from '../../core/errors.js';
import { printable } from '../../core/printable.js';
import { mcpMemoryLine } from '../../core/import-sources/mcp-memory.js';
import { mem0Entry } from '../../core/import-sources/mem0.js';
import { importJsonl, type ImportLine, type ImportScope, type JsonlInput } from '../../core/import.js';
import type { RuntimeConfig } from '../../runtime/config.js';
import { jsonlFile, mem0File, STDIN } from '../../runtime/jsonl-file.js';
import type { Output } from '../../runtime/output.js';
import { openRuntime } from '../../runtime/runtime.js';
import { createProgress, formatBytes, formatCount } from '../progress.js';

/** Bad lines printed one by one; past this, only counted. */
const MAX_REPORTED = 50;

/** What FILE holds: the project's own JSONL (the default), or another memory tool's export. */
export const IMPORT_SOURCES = ['mcp-memory', 'mem0'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

export function isImportSource(value: string): value is ImportSource {
  return (IMPORT_SOURCES as readonly string[]).includes(value);
}

/** `agent-memory import FILE.jsonl|-`: the import itself is core/import.ts; this opens the runtime and reports. */
export interface ImportCommandOptions {
  batchSize?: number;
  strict?: boolean;
  /** Another tool's export, read by core/import-sources; undefined: the project's own JSONL. */
  from?: ImportSource | undefined;
  /** For --from: whose memories the file's become (mem0: instead of each entry's user_id). */
  scope?: ImportScope;
}

/** How each format is read: its input, how a line becomes memories, what a "line" is called, what FILE should be. */
interface Format {
  open(file: string): Promise<JsonlInput> | JsonlInput;
  parseLine?: (raw: string) => ImportLine[];
  unit: 'line' | 'entry';
  expected: string;
}

function format(options: ImportCommandOptions): Format {
  const scope = options.scope ?? {};
  switch (options.from) {
    case 'mcp-memory':
      return {
        open: (file) => jsonlFile(file),
        parseLine: (raw) => mcpMemoryLine(raw, scope),
        unit: 'line',
        expected: "the MCP memory server's memory.jsonl",
      };
    case 'mem0':
      return { open: (file) => mem0File(file), parseLine: (raw) => mem0Entry(raw, scope), unit: 'entry', expected: "mem0's get_all JSON" };
    case undefined:
      return { open: (file) => jsonlFile(file), unit: 'line', expected: 'a JSONL file, one memory per line' };
  }
}

export async function importCommand(config: RuntimeConfig, file: string, options: ImportCommandOptions, out: Output): Promise<number> {
  const { batchSize, strict } = options;
  const source = format(options);
  if (file === STDIN && strict) {
    out.notice('agent-memory import: --strict reads the input twice, so it needs a file, not - (stdin).');
    return 2;
  }
  if (options.from === 'mcp-memory' && options.scope?.userId === undefined) {
    out.notice('agent-memory import: --from mcp-memory needs --user-id: the file names no user.');
    return 2;
  }
  try {
    if (file !== STDIN && !statSync(file).isFile()) throw new Error('not a file');
  } catch {
    out.notice(`agent-memory import: cannot read "${printable(file)}" (${source.expected}, or - for stdin).`);
    return 2;
  }
  let input: JsonlInput;
  try {
    // Before the runtime opens: a file that is not what --from says is refused at once.
    input = await source.open(file);
  } catch (error) {
    if (!(error instanceof MemoryError)) throw error;
    // The message may quote the file (a JSON parser's excerpt), escapes and all.
    out.notice(`agent-memory import: "${printable(file)}" is not ${source.expected}: ${printable(error.message)}`);
    return 2;
  }
  const runtime = await openRuntime(config);
  const progress = createProgress({ label: 'import', unit: formatBytes });
  let reported = 0;
  try {
    await runtime.modelReady;
    const result = await importJsonl({ store: runtime.store, embed: (texts) => runtime.service.embeddings.embed(texts, 'document') }, input, {
      ...(batchSize === undefined ? {} : { batchSize }),
      ...(strict === undefined ? {} : { strict }),
      ...(source.parseLine ? { parseLine: source.parseLine } : {}),
      onInvalid: (line, message) => {
        reported++;
        if (reported <= MAX_REPORTED) {
          progress.done();
          out.notice(`${source.unit} ${line}: ${message}`);
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
    });
    progress.done();
    if (reported > MAX_REPORTED) out.notice(`... and ${formatCount(reported - MAX_REPORTED)} more bad ${source.unit}s.`);
    if (result.refused) {
      out.notice(`--strict: ${formatCount(result.invalid)} invalid ${source.unit}(s); nothing was imported. Fix them and run again.`);
      return 1;
    }
    const rate = result.seconds > 0 ? result.imported / result.seconds : 0;
    out.notice(
      `Imported ${formatCount(result.imported)} memories from ${file === STDIN ? 'stdin' : printable(file)} in ${result.seconds.toFixed(1)} s (${rate.toFixed(1)}/s, ` +
        `model busy ${result.embedSeconds.toFixed(1)} s); ${formatCount(result.present)} were already there` +
        `${result.invalid ? `; ${formatCount(result.invalid)} invalid ${source.unit}(s) skipped` : ''}` +
        `${result.collisions ? `; ${formatCount(result.collisions)} ${source.unit}(s) not imported: their id holds another memory` : ''}.`,
    );
    return result.invalid > 0 || result.collisions > 0 ? 1 : 0;
  } finally {
    progress.done();
    await runtime.close();
  }
}
