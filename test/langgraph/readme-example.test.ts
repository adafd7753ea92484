/**
 * The README's LangGraph example, run as it is printed: the block is taken from the README, its `agent-memory/...`
 * imports pointed at this checkout's sources, and run by Node (through tsx) against a live server, with the client
 * configured by the environment as the example says: twice, as a user asks twice, and once with a message that also
 * states something.
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

/** The example with its imports pointed at this checkout, and `message` in place of the README's, run once. */
async function runExample(message?: string): Promise<string[]> {
  let source = example()
    .replace("from 'agent-memory/client'", `from '${relative(dir, join(ROOT, 'src/client/index.ts'))}'`)
    .replace("from 'agent-memory/langgraph'", `from '${relative(dir, join(ROOT, 'src/langgraph/index.ts'))}'`);
  expect(source).not.toContain("'agent-memory/");
  if (message !== undefined) {
    expect(source).toContain("message: 'Can I eat peanut butter?'");
    source = source.replace("message: 'Can I eat peanut butter?'", `message: ${JSON.stringify(message)}`);
  }
  const file = join(dir, 'example.ts');
  writeFileSync(file, source);
  const { stdout } = await run(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    timeout: 60_000,
    env: { ...process.env, MEMORY_BASE_URL: server.url, MEMORY_API_KEY: TEST_KEY },
  });
  return stdout.trim().split('\n');
}

it('runs the README LangGraph example against a live server, and it prints what the README says, on every run', async () => {
  const client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url });
  for (const runNumber of [1, 2]) {
    const [first, ...rest] = await runExample();
    // The second run finds the same fact first: the first run's question was not stored to outrank it.
    expect(first, `run ${runNumber}`).toBe('Alice is allergic to peanuts.');
    expect(rest.join('\n')).toMatch(/key: 'allergy'[\s\S]*namespace: \[ 'alice' \][\s\S]*source: 'intake form'/);
    // On the server: the fact under the example's key, and nothing of the question.
    const { memories, total } = await client.list({ userId: 'alice' });
    expect([total, memories[0]?.text]).toEqual([1, 'Alice is allergic to peanuts.']);
  }

  // A message that also states something: the statement is stored (with the example's metadata), the question not.
  const [first] = await runExample('Hi! My sister Carol is visiting next week. Can I eat peanut butter?');
  expect(first).toBe('Alice is allergic to peanuts.');
  const { memories } = await client.list({ userId: 'alice' });
  expect(memories.map((m) => [m.text, m.metadata])).toEqual(
    expect.arrayContaining([
      ['Alice is allergic to peanuts.', { source: 'intake form' }],
      ['My sister Carol is visiting next week.', { source: 'chat' }],
    ]),
  );
  expect(memories).toHaveLength(2);
});
