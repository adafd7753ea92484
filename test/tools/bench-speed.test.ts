import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseOptions, workerCounts } from '../../tools/bench/plan.js';
import { MARK_PAUSE_MS, summarizeProfile } from '../../tools/bench/profile.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A .cpuprofile of the given samples: [function, url, milliseconds until the next sample]. */
function profile(samples: Array<[string, string, number]>): string {
  const names = [...new Set(samples.map(([f, u]) => `${f}|${u}`))];
  const nodes = names.map((name, i) => {
    const [functionName, url] = name.split('|') as [string, string];
    return { id: i + 1, callFrame: { functionName, url, lineNumber: 9 } };
  });
  const ids = samples.map(([f, u]) => names.indexOf(`${f}|${u}`) + 1);
  // timeDeltas[i] is the time before sample i; the time after sample i is timeDeltas[i + 1].
  const timeDeltas = [0, ...samples.map(([, , ms]) => ms * 1000)].slice(0, samples.length);
  const dir = mkdtempSync(join(tmpdir(), 'bench-profile-test-'));
  dirs.push(dir);
  const file = join(dir, 'CPU.1.2.3.0.001.cpuprofile');
  writeFileSync(file, JSON.stringify({ nodes, startTime: 0, endTime: 1, samples: ids, timeDeltas }));
  return file;
}

describe('bench profile summary', () => {
  const store = '/x/dist/storage/sqlite/sqlite-store.js';
  const rank = '/x/dist/core/ranking/coverage.js';
  const file = () =>
    profile([
      ['compileSourceTextModule', 'node:internal/modules/esm/utils', 50],
      ['(idle)', '', MARK_PAUSE_MS],
      ['findWordMatches', store, 6],
      ['(idle)', '', 10],
      ['coverage', rank, 3],
      ['(garbage collector)', '', 1],
      ['findWordMatches', store, 4],
    ]);

  it('sums self time by part and by function, idle left out', () => {
    const s = summarizeProfile(file());
    expect(s.busyMs).toBeCloseTo(50 + 6 + 3 + 1);
    expect(s.categories.map((c) => [c.name, c.ms])).toEqual([
      ['Node.js runtime (http, streams, timers, JSON)', 50],
      ['storage: SQL and its code (src/storage; native SQLite time counts here)', 6],
      ['ranking (src/core/ranking)', 3],
      ['garbage collection', 1],
    ]);
  });

  it('from the mark, leaves out everything up to the end of the marking pause', () => {
    const s = summarizeProfile(file(), 5, true);
    expect(s.wallMs).toBeCloseTo(6 + 10 + 3 + 1);
    expect(s.busyMs).toBeCloseTo(10);
    expect(s.functions[0]).toEqual({ name: 'findWordMatches (dist/storage/sqlite/sqlite-store.js:10)', ms: 6 });
  });
});

describe('bench options for speed', () => {
  it('the scaling curve goes 1, 2, 4, ... up to --cpus', () => {
    expect(workerCounts(1)).toEqual([1]);
    expect(workerCounts(2)).toEqual([1, 2]);
    expect(workerCounts(6)).toEqual([1, 2, 4, 6]);
    expect(workerCounts(16)).toEqual([1, 2, 4, 8, 16]);
    expect(parseOptions(['--cpus', '4'])?.plan.workerCounts).toEqual([1, 2, 4]);
  });

  it('refuses a bad --cpus or --filter-rows, and --postgres-server with --database-url', () => {
    expect(() => parseOptions(['--cpus', '0'])).toThrow(/--cpus takes integers from 1/);
    expect(() => parseOptions(['--filter-rows', '10'])).toThrow(/--filter-rows takes 0 \(none\) or at least 1,000/);
    expect(parseOptions(['--filter-rows', '0'])?.plan.filterRows).toBe(0);
    expect(() => parseOptions(['--postgres-server', '--database-url', 'postgres://x@h/db'])).toThrow(/not both/);
    expect(parseOptions(['--postgres-server'])?.postgresServer).toBe(true);
  });
});
