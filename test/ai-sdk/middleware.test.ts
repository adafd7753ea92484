/**
 * memoryMiddleware on a real model wrapper (`wrapLanguageModel`) and the SDK's test model, against a live server:
 * the model receives the recalled memories as a system message; a recall that fails or is slow is logged and the
 * model is called anyway, without them; with `store: true` what the user said is stored after the call. On `ai` 7,
 * and on `ai` 6 (installed as the alias `ai6`), whose middleware specification is v3.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateText, isStepCount, simulateReadableStream, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { generateText as generateText6, wrapLanguageModel as wrapLanguageModel6, type LanguageModelMiddleware as Middleware6 } from 'ai6';
import { MockLanguageModelV3 } from 'ai6/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryMiddleware, type MemoryLogger } from '../../src/ai-sdk/index.js';
import { MemoryClient, type StoreInput } from '../../src/client/index.js';
import { z } from 'zod';
import { TEST_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { answer, callTool, scriptedModel, type Prompt } from './support.js';

let server: TestServer;
let client: MemoryClient;

beforeAll(async () => {
  server = await startTestServer();
  client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url });
  await client.store({ userId: 'dana', text: 'Dana is allergic to peanuts' });
});
afterAll(() => server.stop());

/** A logger that keeps what it was told. */
function recordingLogger(): MemoryLogger & { lines: Array<{ message: string; fields: Record<string, unknown> | undefined }> } {
  const lines: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
  return { lines, warn: (message, fields) => lines.push({ message, fields }) };
}

const systemTexts = (prompt: Prompt): string[] => prompt.flatMap((m) => (m.role === 'system' ? [m.content] : []));

async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('memoryMiddleware', () => {
  it('adds the recalled memories as a system message after the caller\u2019s own, before the conversation', async () => {
    const model = new MockLanguageModelV4({ doGenerate: async () => answer('No, you should not.') });
    const logger = recordingLogger();
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware({ client, userId: 'dana', minScore: 0, logger }) });
    const result = await generateText({ model: wrapped, system: 'You are a careful cook.', prompt: 'Can I eat a peanut butter sandwich?' });
    expect(result.text).toBe('No, you should not.');
    const prompt = model.doGenerateCalls[0]?.prompt ?? [];
    expect(prompt.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect(systemTexts(prompt)[0]).toBe('You are a careful cook.');
    expect(systemTexts(prompt)[1]).toMatch(/earlier conversations[^\n]*\n- \[\d{4}-\d{2}-\d{2}\] Dana is allergic to peanuts$/);
    expect(logger.lines).toEqual([]);
    // Off by default: what the user said is not stored.
    expect((await client.list({ userId: 'dana' })).total).toBe(1);
  });

  it('adds nothing when nothing is recalled, and only this user\u2019s memories', async () => {
    const model = new MockLanguageModelV4({ doGenerate: async () => answer('ok') });
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware({ client, userId: 'erin', minScore: 0 }) });
    await generateText({ model: wrapped, prompt: 'Can I eat peanuts?' });
    expect(model.doGenerateCalls[0]?.prompt.map((m) => m.role)).toEqual(['user']);
  });

  it('stores what the user said after the call when store is on, also when streaming', async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: '1' },
            { type: 'text-delta', id: '1', delta: 'Noted.' },
            { type: 'text-end', id: '1' },
            {
              type: 'finish',
              finishReason: { unified: 'stop', raw: undefined },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: 1, text: 1, reasoning: undefined },
              },
            },
          ],
        }),
      }),
    });
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware({ client, userId: 'dana', appId: 'kitchen', store: true, minScore: 0 }) });
    const result = streamText({ model: wrapped, prompt: 'Frank, my brother, is vegan.' });
    expect(await result.text).toBe('Noted.');
    await until(async () => (await client.list({ userId: 'dana', appId: 'kitchen' })).total === 1);
    expect((await client.list({ userId: 'dana', appId: 'kitchen' })).memories[0]?.text).toBe('Frank, my brother, is vegan.');
  });

  it('stores the statements of a mixed message, not its greeting, question or thanks', async () => {
    const model = new MockLanguageModelV4({ doGenerate: async () => answer('How about Tasca do Chico?') });
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware({ client, userId: 'ines', store: true }) });
    const prompt = "Hi! I'm vegetarian now, and my sister Marta lives in Porto. Can you suggest a restaurant for Saturday? Thanks!";
    expect((await generateText({ model: wrapped, prompt })).text).toBe('How about Tasca do Chico?');
    await until(async () => (await client.list({ userId: 'ines' })).total === 1);
    expect((await client.list({ userId: 'ines' })).memories.map((m) => m.text)).toEqual(["I'm vegetarian now, and my sister Marta lives in Porto."]);
  });

  it('stores nothing of a message of questions and small talk, and everything with keep: everything', async () => {
    const stores: string[] = [];
    const counting = { recall: client.recall.bind(client), store: (input: StoreInput) => (stores.push(input.text), client.store(input)) };
    const model = new MockLanguageModelV4({ doGenerate: async () => answer('ok') });
    const filtered = wrapLanguageModel({ model, middleware: memoryMiddleware({ client: counting, userId: 'jo', store: true }) });
    for (const prompt of ['Hey! Can I eat peanut butter?', 'thanks, bye!', 'suggest a restaurant for dinner with my sister']) {
      await generateText({ model: filtered, prompt });
    }
    // The store is called (not awaited) as the call returns: none was.
    expect(stores).toEqual([]);
    const everything = wrapLanguageModel({ model, middleware: memoryMiddleware({ client: counting, userId: 'jo', store: true, keep: 'everything' }) });
    await generateText({ model: everything, prompt: 'Hey! Can I eat peanut butter?' });
    const own = wrapLanguageModel({ model, middleware: memoryMiddleware({ client: counting, userId: 'jo', store: true, keep: (m) => m.toUpperCase() }) });
    await generateText({ model: own, prompt: 'Jo likes kites.' });
    expect(stores).toEqual(['Hey! Can I eat peanut butter?', 'JO LIKES KITES.']);
    await until(async () => (await client.list({ userId: 'jo' })).total === 2);
  });

  it('stores the user message once per turn, not once per step of a tool loop', async () => {
    const stores: string[] = [];
    const counting = { recall: client.recall.bind(client), store: (input: StoreInput) => (stores.push(input.text), client.store(input)) };
    const model = scriptedModel([() => callTool('ping', {}), () => callTool('ping', {}), () => answer('done')]);
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware({ client: counting, userId: 'ivy', store: true }) });
    const tools = { ping: tool({ description: 'ping', inputSchema: z.object({}), execute: async () => 'pong' }) };
    expect((await generateText({ model: wrapped, tools, prompt: 'Ivy likes kites.', stopWhen: isStepCount(4) })).text).toBe('done');
    expect(model.doGenerateCalls).toHaveLength(3);
    await until(async () => (await client.list({ userId: 'ivy' })).total === 1);
    expect(stores).toEqual(['Ivy likes kites.']);
  });

  it('calls the model without memories, and logs why, when the recall times out', async () => {
    // A server that takes requests and never answers.
    const hanging: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    try {
      const slow = new MemoryClient({ apiKey: TEST_KEY, baseUrl: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`, maxRetries: 0 });
      const model = new MockLanguageModelV4({ doGenerate: async () => answer('answered anyway') });
      const logger = recordingLogger();
      const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware({ client: slow, userId: 'dana', timeoutMs: 200, logger }) });
      const started = performance.now();
      const result = await generateText({ model: wrapped, prompt: 'Can I eat peanuts?' });
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(result.text).toBe('answered anyway');
      expect(model.doGenerateCalls[0]?.prompt.map((m) => m.role)).toEqual(['user']);
      expect(logger.lines).toEqual([{ message: expect.stringMatching(/without memories/), fields: expect.objectContaining({ reason: 'timeout', userId: 'dana' }) }]);
    } finally {
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });

  it('calls the model without memories, and logs why, when the server is out of reach', async () => {
    const down = new MemoryClient({ apiKey: TEST_KEY, baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    const model = new MockLanguageModelV4({ doGenerate: async () => answer('answered anyway') });
    const logger = recordingLogger();
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware({ client: down, userId: 'dana', store: true, logger }) });
    expect((await generateText({ model: wrapped, prompt: 'Dana likes kites.' })).text).toBe('answered anyway');
    await until(async () => logger.lines.length === 2);
    expect(logger.lines.map((l) => [l.message, l.fields?.reason])).toEqual([
      ['recall failed; the model is called without memories', 'error'],
      ['could not store the user message', undefined],
    ]);
  });

  it('works on ai 6 (middleware specification v3, a v3 model)', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'v3 answer' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
        warnings: [],
      }),
    });
    // Typed here against ai 7 (the devDependency `ai`); an ai 6 project resolves the same declaration to ai 6's
    // LanguageModelMiddleware, which this object satisfies at run time (checked by the call below).
    const middleware = memoryMiddleware({ client, userId: 'dana', minScore: 0 }) as Middleware6;
    expect(middleware.specificationVersion).toBe('v3');
    const result = await generateText6({ model: wrapLanguageModel6({ model, middleware }), prompt: 'Can I eat peanuts?' });
    expect(result.text).toBe('v3 answer');
    const prompt = model.doGenerateCalls[0]?.prompt ?? [];
    expect(prompt.map((m) => m.role)).toEqual(['system', 'user']);
    expect(prompt[0]?.role === 'system' && prompt[0].content).toMatch(/Dana is allergic to peanuts/);
  });
});

// On the real model (USE-lite), as a new user meets it: recall at the server's defaults (limit 5, minScore 0.7) for a
// message whose need is its second sentence. Before recall read a message as its parts, the first sentence pulled the
// allergy under the threshold (0.6955) and the model got no memory at all.
describe('memoryMiddleware on the real model', () => {
  let real: TestServer;
  let realClient: MemoryClient;
  beforeAll(async () => {
    real = await startTestServer({ model: 'use-lite' });
    realClient = new MemoryClient({ apiKey: TEST_KEY, baseUrl: real.url });
    for (const text of ['Ines is allergic to shellfish.', 'Ines runs 10 km every Sunday morning.', "User's sister Marta lives in Porto."]) {
      await realClient.store({ userId: 'ines', text });
    }
  });
  afterAll(() => real.stop());

  // Recall reads the message as its parts (core/ranking/query-parts.ts): the allergy scores as its question alone.
  it('adds the allergy for "Can I order the prawn curry? What am I allergic to?"', async () => {
    const model = new MockLanguageModelV4({ doGenerate: async () => answer('Better not: prawns are shellfish.') });
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware({ client: realClient, userId: 'ines' }) });
    await generateText({ model: wrapped, prompt: 'Can I order the prawn curry? What am I allergic to?' });
    const added = systemTexts(model.doGenerateCalls[0]?.prompt ?? []);
    expect(added).toHaveLength(1);
    expect(added[0]).toContain('Ines is allergic to shellfish.');
    expect(added[0]).not.toContain('Porto');
  });
});
