import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Runs a tool as `npm run` does (node with tsx), returning its exit code and output. */
function tool(script: string, ...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('the tools answer mistakes in a line, not a stack trace', () => {
  it('bench --help prints the usage and exits 0; an unknown option is one line and the usage, exit 2', () => {
    const help = tool('tools/bench.ts', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run bench/);
    const bad = tool('tools/bench.ts', '--nope');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^bench: Unknown option '--nope'/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });

  it('eval --data /missing says what is missing in one line, exit 1', () => {
    const run = tool('tools/eval.ts', '--data', '/missing');
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe("eval: ENOENT: no such file or directory, open '/missing/memories.jsonl'");
  });
});
