/** The test counts a vitest run prints at its end ("      Tests  3 failed | 1022 passed | 4 skipped (1029)"). */
export interface TestCount {
  passed: number;
  failed: number;
  skipped: number;
}

// eslint-disable-next-line no-control-regex -- colour codes are control characters by definition
const COLOUR = /\u001b\[[0-9;]*m/g;

/** Sums every vitest summary in a lane's output; undefined when there is none (the run never got that far). */
export function countTests(output: string): TestCount | undefined {
  let found = false;
  const total: TestCount = { passed: 0, failed: 0, skipped: 0 };
  for (const line of output.replace(COLOUR, '').split('\n')) {
    const summary = /^\s*Tests\s+(.*)\(\d+\)\s*$/.exec(line);
    if (!summary) continue;
    found = true;
    for (const part of (summary[1] ?? '').split('|')) {
      const m = /(\d+)\s+(passed|failed|skipped|todo)/.exec(part);
      if (!m) continue;
      const n = Number(m[1]);
      if (m[2] === 'passed') total.passed += n;
      else if (m[2] === 'failed') total.failed += n;
      else total.skipped += n;
    }
  }
  return found ? total : undefined;
}

/**
 * The failed tests a vitest run names (" FAIL  |unit| test/a.test.ts > suite > case"), in order and once each. The
 * closing table repeats them, so a log that keeps only its end (CI's) still says which test failed.
 */
export function failedTests(output: string): string[] {
  const names = new Set<string>();
  for (const line of output.replace(COLOUR, '').split('\n')) {
    const m = /^\s*FAIL\s+(.+?)\s*$/.exec(line);
    if (m?.[1]) names.add(m[1]);
  }
  return [...names];
}
