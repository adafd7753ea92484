import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { MemoryError } from '../core/errors.js';
import { mem0Entries } from '../core/import-sources/mem0.js';
import { importJsonl, MAX_LINE_BYTES, type ImportOptions, type ImportResult, type ImportTarget, type JsonlInput } from '../core/import.js';
import { nestingWithin } from '../core/json-depth.js';
import { readJsonlLines } from '../core/jsonl-lines.js';
import { LIMITS } from '../core/limits.js';

/** The FILE argument that means standard input. */
export const STDIN = '-';

/** A JSONL file (or `-`: `stdin`, by default process.stdin) as an import reads it, line by line, never whole. */
export function jsonlFile(file: string, stdin?: Readable): JsonlInput {
  let totalBytes: number | undefined;
  try {
    totalBytes = file === STDIN ? undefined : statSync(file).size;
  } catch {
    totalBytes = undefined;
  }
  return {
    totalBytes,
    rereadable: file !== STDIN,
    async *lines() {
      const input = file === STDIN ? (stdin ?? process.stdin) : createReadStream(file);
      try {
        yield* readJsonlLines(input, MAX_LINE_BYTES);
      } finally {
        if (input !== process.stdin && input !== stdin) input.destroy();
      }
    },
  };
}

/** `importJsonl` over a file, for the CLI, the tests and the benchmarks. */
export function importJsonlFile(
  target: ImportTarget,
  file: string,
  options: ImportOptions & { stdin?: Readable } = {},
): Promise<ImportResult> {
  return importJsonl(target, jsonlFile(file, options.stdin), options);
}

/** The largest mem0 export read: one JSON document, so it is read whole (mem0's get_all answers fit many times over). */
export const MAX_MEM0_FILE_BYTES = 256 * 1024 * 1024;

/**
 * A mem0 export (`get_all`'s JSON, or `-` for stdin) as an import input: read and parsed whole, here and not during
 * the import, so that a file that is not mem0's is refused before anything opens. Each entry is one "line",
 * numbered from 1 in the file's order (errors say "entry N").
 */
export async function mem0File(file: string, stdin?: Readable): Promise<JsonlInput> {
  const input = file === STDIN ? (stdin ?? process.stdin) : createReadStream(file);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const data of input) {
      const chunk = typeof data === 'string' ? Buffer.from(data) : (data as Buffer);
      size += chunk.length;
      if (size > MAX_MEM0_FILE_BYTES) {
        throw new MemoryError('validation_error', `the file is larger than ${MAX_MEM0_FILE_BYTES / 1024 / 1024} MiB; split mem0's export (e.g. one file per user).`);
      }
      chunks.push(chunk);
    }
  } finally {
    if (input !== process.stdin && input !== stdin) input.destroy();
  }
  const entries = mem0Entries(Buffer.concat(chunks, size).toString('utf8'));
  return {
    totalBytes: size,
    rereadable: true,
    async *lines() {
      for (const [i, entry] of entries.entries()) {
        // Progress in bytes, as for a JSONL file: each entry's share of the file.
        const endOffset = Math.round((size * (i + 1)) / entries.length);
        // JSON.stringify recurses: an entry nested thousands of levels deep overflowed the stack and ended the whole
        // import. Deeper than an entry (1) holding the deepest metadata allowed can never be stored: reported here.
        if (!nestingWithin(entry, LIMITS.metadataMaxDepth + 1)) yield { lineNo: i + 1, raw: undefined, problem: 'too-deep', endOffset };
        else yield { lineNo: i + 1, raw: JSON.stringify(entry), endOffset };
      }
    },
  };
}
