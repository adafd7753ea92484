/**
 * The README's "Vercel AI SDK" example, run as written (only its package imports pointed at the sources) against a
 * live server, with the SDK's test model standing in for a provider's: the model stores through the tools, and the
 * next turn's model call receives that memory from the middleware.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryClient } from '../../src/client/index.js';
import { TEST_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { answer, callTool, scriptedModel, type Prompt } from './support.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const ROOT = new URL('../../', import.meta.url).pathname;

/** The TypeScript block between the example's markers. */
function exampleSource(): string {
  const block = /<!-- readme-ai-sdk-example:start -->\s*```ts\n([\s\S]*?)```\s*<!-- readme-ai-sdk-example:end -->/.exec(README);
  if (!block?.[1]) throw new Error('the README has no AI SDK example between its markers');
  return block[1];
}

type Chat = (model: unknown, userId: string, message: string) => Promise<string>;

let server: TestServer;
let file: string;

beforeAll(async () => {
  server = await startTestServer();
  // The example's client reads these, as the README says.
  process.env.MEMORY_API_KEY = TEST_KEY;
  process.env.MEMORY_BASE_URL = server.url;
  const dir = join(ROOT, '.tmp');
  mkdirSync(dir, { recursive: true });
  file = join(dir, `readme-ai-sdk-${process.pid}.ts`);
  const source = exampleSource()
    .replace("from 'agent-memory/client'", "from '../src/client/index.js'")
    .replace("from 'agent-memory/ai-sdk'", "from '../src/ai-sdk/index.js'");
  expect(source).toContain("'../src/ai-sdk/index.js'");
  writeFileSync(file, source);
});
afterAll(async () => {
  rmSync(file, { force: true });
  delete process.env.MEMORY_API_KEY;
  delete process.env.MEMORY_BASE_URL;
  await server.stop();
});

describe('the README\u2019s AI SDK example', () => {
  it('stores through the tools in one turn and hands the memory to the model in the next', async () => {
    const { chat } = (await import(file)) as { chat: Chat };
    const fact = "Alice's sister Ana lives in Porto.";

    const first = scriptedModel([() => callTool('store_memory', { text: fact }), () => answer('Noted.')]);
    expect(await chat(first, 'alice', 'My sister Ana lives in Porto.')).toBe('Noted.');
    const client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url });
    expect((await client.list({ userId: 'alice' })).memories.map((m) => m.text)).toEqual([fact]);

    let seen: Prompt = [];
    const second = scriptedModel([
      (prompt) => {
        seen = prompt;
        return answer('In Porto.');
      },
    ]);
    expect(await chat(second, 'alice', 'Where does my sister Ana live, in Porto?')).toBe('In Porto.');
    const system = seen.flatMap((m) => (m.role === 'system' ? [m.content] : []));
    expect(system[0]).toMatch(/^You are a helpful assistant/);
    expect(system[1]).toContain(`] ${fact}`);
  });
});
