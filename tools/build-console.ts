/**
 * `npm run build`'s last step: assembles dist/console, which `agent-memory serve` serves at /console. tsc compiled
 * the console's modules into .tmp/console-build (beside the server's schemas they import types from, which are not
 * copied: the browser never loads them); this takes the modules from there and the static files (page, stylesheet,
 * icon) from src/console. The folder is rebuilt whole, so a renamed module leaves nothing stale behind.
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../.tmp/console-build/console/', import.meta.url));
const sources = fileURLToPath(new URL('../src/console/', import.meta.url));
const target = fileURLToPath(new URL('../dist/console/', import.meta.url));

if (!existsSync(compiled)) throw new Error(`${compiled} is missing: run \`tsc -p tsconfig.console.json\` first.`);
rmSync(target, { recursive: true, force: true });
cpSync(compiled, target, { recursive: true });
cpSync(sources, target, { recursive: true, filter: (path) => !path.endsWith('.ts') });
