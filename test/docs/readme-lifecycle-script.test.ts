/**
 * The README's "A memory's life" block is a script: this test runs it, as printed, with bash and curl against a real
 * server on the default model, and checks every output the README shows under a command against what the command
 * printed. So the walk-through cannot drift from the product (issue 33: it showed {"deleted":2} where the server
 * answers 1, and PATCHed an id deleted earlier in the walk-through). Ids, times and scores differ from run to run
 * and are matched by their shape; `...` in the README stands for anything.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The block after the paragraph that begins "A memory's life". */
function lifecycleBlock(): string {
  const start = README.indexOf("A memory's life");
  const open = README.indexOf('```sh\n', start);
  const close = README.indexOf('\n```', open + 6);
  if (start < 0 || open < 0 || close < 0) throw new Error('the README has no "A memory\'s life" block');
  return README.slice(open + 6, close);
}

interface Step {
  commands: string;
  /** The README's outputs under the command (comment lines, "# " taken off, continuation lines joined). */
  expected: string[];
}

/** Commands and the outputs printed under them; a comment before a command is prose, not output. */
function stepsOf(block: string): Step[] {
  const steps: Step[] = [];
  let current: Step | undefined;
  for (const line of block.split('\n')) {
    if (line.startsWith('#')) {
      const text = line.replace(/^# ?/, '');
      if (current && current.commands !== '' && /^\s*[{"[]|^HTTP\/|^[A-Z][A-Za-z]*(-[A-Z][A-Za-z]*)+: /.test(text)) {
        // A line that continues the one before (indented) belongs to the same output.
        if (/^\s/.test(text) && current.expected.length > 0) current.expected[current.expected.length - 1] += text.trim();
        else current.expected.push(text);
      } else if (current && current.expected.length > 0) {
        current = undefined; // prose after an output: the next command starts a new step
      }
      continue;
    }
    if (line.trim() === '') continue;
    if (!current || current.expected.length > 0) {
      current = { commands: '', expected: [] };
      steps.push(current);
    }
    current.commands += `${line}\n`;
  }
  return steps;
}

/** An output as printed in the README, as a pattern: ids, times and scores by their shape, `...` anything. */
function patternOf(expected: string): RegExp {
  const escaped = expected
    .split('...')
    .map((piece) =>
      piece
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replace(/mem_[A-Za-z0-9]{12}/g, 'mem_[A-Za-z0-9]{12}')
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\\\.\d{3}Z/g, '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z')
        .replace(/\\\[\d{4}-\d\d-\d\d\\\]/g, '\\[\\d{4}-\\d\\d-\\d\\d\\]')
        .replace(/"score":\d(?:\\\.\d+)?/g, '"score":[0-9.]+'),
    )
    .join('.*?');
  return new RegExp(escaped, 's');
}

describe('README: a memory\u2019s life, run as printed', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ model: 'use-lite' });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('reads the block as commands with the outputs printed under them', () => {
    const steps = stepsOf(lifecycleBlock());
    expect(steps.length).toBeGreaterThan(10);
    expect(steps.filter((s) => s.expected.length > 0).length).toBeGreaterThan(10);
  });

  it('prints what the README shows under every command', async () => {
    const steps = stepsOf(lifecycleBlock());
    // One bash, as a reader pastes it; a marker between steps tells whose output is whose.
    const script = steps.map((s, i) => `${s.commands}echo; echo "@@step ${i}"\n`).join('');
    // Not spawnSync: the server answers in this process, whose event loop must keep running.
    const run = await new Promise<{ status: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn('bash', ['-c', `exec 2>&1\n${script}`], { env: { ...process.env, URL: server.url, KEY: TEST_KEY } });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout }));
    });
    expect(run.status, run.stdout).toBe(0);
    const outputs = run.stdout.split(/@@step \d+\n?/);
    const mismatches: string[] = [];
    steps.forEach((step, i) => {
      const printed = outputs[i] ?? '';
      for (const expected of step.expected) {
        if (!patternOf(expected).test(printed)) mismatches.push(`${step.commands.trim()}\n  README: ${expected}\n  server: ${printed.trim()}`);
      }
    });
    expect(mismatches, mismatches.join('\n\n')).toEqual([]);
  });
});
