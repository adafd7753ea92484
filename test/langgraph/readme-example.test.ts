/**
 * The README's LangGraph example, run as it is printed: the block is taken from the README, its `agent-memory/...`
 * imports pointed at this checkout's sources, and run by Node (through tsx) against a live server, with the client
 * configured by the environment as the example says.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryClient } from '../../src/client/index.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const run = promisify(execFile);

/** The ```ts block after the marker comment. */
function example(): string {
  const marker = README.indexOf('<!-- readme-example: langgraph');
  expect(marker).toBeGreaterThan(0);
  const block = /```ts\n([\s\S]*?)```/.exec(README.slice(marker));
  if (!block?.[1]) throw new Error('No ```ts block after the LangGraph marker in README.md');
  return block[1];
}

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  // Under the repository (.tmp/ is ignored by git), so that the example's bare imports find node_modules.
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  dir = mkdtempSync(join(ROOT, '.tmp', 'readme-langgraph-'));
});
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('runs the README LangGraph example against a live server, and it prints what the README says', async () => {
  const source = example()
    .replace("from 'agent-memory/client'", `from '${relative(dir, join(ROOT, 'src/client/index.ts'))}'`)
    .replace("from 'agent-memory/langgraph'", `from '${relative(dir, join(ROOT, 'src/langgraph/index.ts'))}'`);
  expect(source).not.toContain("'agent-memory/");
  const file = join(dir, 'example.ts');
  writeFileSync(file, source);
  const { stdout } = await run(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    timeout: 60_000,
    env: { ...process.env, MEMORY_BASE_URL: server.url, MEMORY_API_KEY: TEST_KEY },
  });
  const [first, ...rest] = stdout.trim().split('\n');
  expect(first).toBe('Alice is allergic to peanuts.');
  expect(rest.join('\n')).toMatch(/key: 'allergy'[\s\S]*namespace: \[ 'alice' \][\s\S]*source: 'intake form'/);
  // What the graph put is on the server, under the example's key.
  const client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url });
  expect(await client.getByKey('last-message', { userId: 'alice' })).toMatchObject({ text: 'Can I eat peanut butter?', metadata: { source: 'chat' } });
  expect((await client.list({ userId: 'alice' })).total).toBe(2);
});
