import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The bundled off-topic questions (`off-topic.txt` beside this file), or another list in the same format. */
export function readOffTopic(path: string = fileURLToPath(new URL('./off-topic.txt', import.meta.url))): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
}
