import { statSync } from 'node:fs';

/** A file's bytes with its SQLite WAL, if any (0 for what is absent). */
export function fileBytes(path: string): number {
  let total = 0;
  for (const suffix of ['', '-wal']) {
    try {
      total += statSync(path + suffix).size;
    } catch {
      // absent
    }
  }
  return total;
}
