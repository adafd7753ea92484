import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { importJsonl, MAX_LINE_BYTES, type ImportOptions, type ImportResult, type ImportTarget, type JsonlInput } from '../core/import.js';
import { readJsonlLines } from '../core/jsonl-lines.js';

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
