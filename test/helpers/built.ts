/**
 * The end-to-end project's global setup: the tests there spawn the compiled CLI (bin/agent-memory.js over dist/),
 * so dist/ must exist and be newer than every source file. It is built here, once, before any of them runs, when
 * missing or stale (`npm test` builds first, so then this does nothing); a failed build fails the run. Never a skip.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { newestFile } from '../../tools/shared/freshness.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** Written by the build's first step (tsc); the console assets come later in the same build. */
const BUILT = join(ROOT, 'dist/cli/main.js');

/** Why dist/ cannot be used as it is, or undefined when it is up to date. */
export function staleBuild(): string | undefined {
  if (!existsSync(BUILT) || !existsSync(join(ROOT, 'dist/console/index.html'))) return 'dist/ is missing';
  return statSync(BUILT).mtimeMs < newestFile(join(ROOT, 'src')) ? 'dist/ is older than src/' : undefined;
}

export default function setup(): void {
  const reason = staleBuild();
  if (reason === undefined) return;
  console.error(`${reason}: running npm run build before the end-to-end tests`);
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
}
