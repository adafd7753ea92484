/**
 * `npm run lanes:install`: installs the lane packages (tools/lanes/packages.json) at their pinned versions when any is
 * absent, with `npm install --no-save` (package.json and the lock are left as they are). Run by `npm test` and the
 * lanes that need them; a no-op, in milliseconds, once they are there.
 *
 * `--save-dev` with `--no-save`: the root declares transformers.js an optional peer (for those who install the
 * package), and npm leaves an optional peer named on its command line uninstalled unless told which kind of
 * dependency it is; `--no-save` still keeps that from being written. All of them in one command: npm removes what is in neither the lock nor its command line, so installing one lane
 * package alone would remove another installed before. `--prefer-offline` takes them from npm's cache when there,
 * so a machine that has installed them once needs no network. A later plain `npm install` or `npm ci` removes them
 * again (they are not in the lock); the next lane run puts them back.
 */
import { execFileSync } from 'node:child_process';
import { lanePackages, missingLanePackages, removeNodeBinLink, ROOT } from './packages.js';

const missing = missingLanePackages();
if (missing.length === 0) {
  process.stderr.write('lane packages: all installed\n');
} else {
  const all = Object.entries(lanePackages()).map(([name, version]) => `${name}@${version}`);
  process.stderr.write(`lane packages: installing ${all.join(', ')} (missing: ${missing.join(', ')})\n`);
  execFileSync('npm', ['install', '--no-save', '--save-dev', '--no-audit', '--no-fund', '--prefer-offline', ...all], { cwd: ROOT, stdio: 'inherit' });
  const still = missingLanePackages();
  if (still.length > 0) {
    process.stderr.write(`lane packages: still missing after npm install: ${still.join(', ')}\n`);
    process.exit(1);
  }
}
// After an install, and on every run: an earlier install (or npm itself) may have left the link behind.
if (removeNodeBinLink()) process.stderr.write('lane packages: removed node_modules/.bin/node (the Node line packages are called by their paths)\n');
