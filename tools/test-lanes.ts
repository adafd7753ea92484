/**
 * `npm test`: every lane of the suite, one after the other, each run whatever happened to the ones before it (a
 * failing vitest run used to hide both PostgreSQL lanes behind `&&`). Prints each lane's result and time in a closing
 * table and exits non-zero when any lane failed. The last line counts the tests of every lane, as
 * `tests: N passed, N failed` (a lane that failed without a vitest count, a build say, counts as one failed test).
 *
 *   npm test                      every lane
 *   npm test -- --only vitest,metrics   the named lanes (the build and lane install still run first)
 *   npm test -- --list            the lanes and their commands
 */
import { spawn } from 'node:child_process';
import { LANES, type Lane } from './test-lanes/lanes.js';
import { countTests, failedTests, type TestCount } from './test-lanes/count.js';
import { LINES_NOT_IN_NPM_TEST } from './node-lines/lines.js';

interface LaneResult {
  lane: Lane;
  code: number;
  seconds: number;
  count: TestCount | undefined;
  /** The failed tests the lane's output names. */
  failures: string[];
}

function parseArgs(argv: readonly string[]): { only: Set<string> | undefined; list: boolean } {
  let only: Set<string> | undefined;
  let list = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--list') list = true;
    else if (arg === '--only') only = new Set((argv[++i] ?? '').split(',').filter(Boolean));
    else if (arg?.startsWith('--only=')) only = new Set(arg.slice('--only='.length).split(',').filter(Boolean));
    else {
      process.stderr.write(`test lanes: unknown argument ${arg ?? ''} (--only a,b or --list)\n`);
      process.exit(2);
    }
  }
  const unknown = [...(only ?? [])].filter((name) => !LANES.some((lane) => lane.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`test lanes: no lane named ${unknown.join(', ')} (${LANES.map((l) => l.name).join(', ')})\n`);
    process.exit(2);
  }
  return { only, list };
}

/** Runs one lane with its output passed through as it comes, and kept to read the test count from. */
function run(lane: Lane): Promise<LaneResult> {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const child = spawn(lane.command[0] as string, lane.command.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...lane.env },
    });
    let output = '';
    // Failures are read line by line as they come: vitest names a failed test near its end, but a lane's whole log
    // can be many megabytes and only its end is kept.
    let partial = '';
    const failures = new Set<string>();
    const keep = (chunk: Buffer, to: NodeJS.WriteStream): void => {
      to.write(chunk);
      const text = chunk.toString('utf8');
      output = (output + text).slice(-200_000);
      const lines = (partial + text).split('\n');
      partial = (lines.pop() ?? '').slice(-10_000);
      for (const name of failedTests(lines.join('\n'))) failures.add(name);
    };
    child.stdout.on('data', (chunk: Buffer) => keep(chunk, process.stdout));
    child.stderr.on('data', (chunk: Buffer) => keep(chunk, process.stderr));
    const done = (code: number): void => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      for (const name of failedTests(partial)) failures.add(name);
      resolve({ lane, code, seconds, count: lane.counts ? countTests(output) : undefined, failures: [...failures] });
    };
    child.on('error', (error) => {
      process.stderr.write(`test lanes: ${lane.name} could not start: ${error.message}\n`);
      done(127);
    });
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

const { only, list } = parseArgs(process.argv.slice(2));
if (list) {
  for (const lane of LANES) process.stdout.write(`${lane.name.padEnd(16)} ${lane.command.join(' ')}  (${lane.about})\n`);
  process.exit(0);
}

const results: LaneResult[] = [];
for (const lane of LANES) {
  if (only && !lane.always && !only.has(lane.name)) continue;
  process.stderr.write(`\n=== lane ${lane.name}: ${lane.command.join(' ')}\n`);
  const result = await run(lane);
  results.push(result);
  // Without a build or the lane packages every later lane fails for the same reason: say it once and stop.
  if (result.code !== 0 && lane.always) break;
}

let passed = 0;
let failed = 0;
const rows = results.map(({ lane, code, seconds, count }) => {
  if (count) {
    passed += count.passed;
    failed += count.failed;
  }
  if (code !== 0 && (!count || count.failed === 0)) failed += 1;
  const tests = count ? `${count.passed} passed, ${count.failed} failed${count.skipped ? `, ${count.skipped} skipped` : ''}` : '';
  return `${lane.name.padEnd(16)} ${(code === 0 ? 'ok' : `FAILED (${code})`).padEnd(12)} ${`${seconds.toFixed(0)} s`.padStart(7)}  ${tests}`;
});
const skipped = LANES.filter((lane) => !results.some((r) => r.lane === lane)).map((lane) => lane.name);
process.stdout.write(`\n${'lane'.padEnd(16)} ${'result'.padEnd(12)} ${'time'.padStart(7)}  tests\n${rows.join('\n')}\n`);
if (skipped.length > 0) process.stdout.write(`not run: ${skipped.join(', ')}\n`);
for (const { lane, failures } of results) for (const name of failures) process.stdout.write(`failed in ${lane.name}: ${name}\n`);
for (const [line, why] of Object.entries(LINES_NOT_IN_NPM_TEST)) process.stdout.write(`node${line}: not in npm test: ${why}\n`);
const laneFailures = results.filter((r) => r.code !== 0).length;
process.stdout.write(`lanes: ${results.length - laneFailures} ok, ${laneFailures} failed\n`);
process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
process.exit(laneFailures > 0 ? 1 : 0);
