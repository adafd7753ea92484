/**
 * memoryTools in a real AI SDK tool loop (`generateText` with the SDK's test model) against a live server: what the
 * model stores is really stored, what it recalls comes from the server, and every failure reaches the model as a
 * result it can read, never as a thrown error that ends the turn.
 */
import { generateText, isStepCount } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryTools } from '../../src/ai-sdk/index.js';
import { MemoryClient } from '../../src/client/index.js';
import { TOOL_TEXTS } from '../../src/core/tool-texts.js';
import { TEST_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { answer, callTool, lastToolOutput, scriptedModel } from './support.js';

let server: TestServer;
let client: MemoryClient;

beforeAll(async () => {
  server = await startTestServer();
  client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url });
});
afterAll(() => server.stop());

interface RawItem {
  id: string;
  text: string;
}

describe('memoryTools in a generateText tool loop', () => {
  it('stores, recalls, updates and forgets through the tools, scoped to one user and app', async () => {
    const tools = memoryTools({ client, userId: 'alice', appId: 'chat' });
    const seen: unknown[] = [];
    const model = scriptedModel([
      () => callTool('store_memory', { text: "Alice's favourite colour is teal", metadata: { topic: 'colours' } }),
      (prompt) => {
        seen.push(lastToolOutput(prompt));
        return callTool('recall_memories', { query: "What is Alice's favourite colour?", format: 'raw', minScore: 0 });
      },
      (prompt) => {
        const { memories } = lastToolOutput(prompt) as { memories: RawItem[] };
        seen.push(memories);
        return callTool('update_memory', { id: memories[0]?.id, text: "Alice's favourite colour is now orange" });
      },
      (prompt) => {
        seen.push(lastToolOutput(prompt));
        return callTool('recall_memories', { query: "Alice's favourite colour", minScore: 0 });
      },
      (prompt) => {
        const { context } = lastToolOutput(prompt) as { context: string };
        return answer(`From memory: ${context}`);
      },
    ]);

    const result = await generateText({ model, tools, prompt: 'What is my favourite colour?', stopWhen: isStepCount(6) });

    const [stored, recalled, updated] = seen as [{ id: string; duplicate: boolean }, RawItem[], RawItem];
    expect(stored.duplicate).toBe(false);
    expect(recalled.map((m) => m.text)).toEqual(["Alice's favourite colour is teal"]);
    expect(recalled[0]?.id).toBe(stored.id);
    expect(updated.text).toBe("Alice's favourite colour is now orange");
    expect(result.text).toMatch(/^From memory: - \[\d{4}-\d{2}-\d{2}\] Alice's favourite colour is now orange$/);

    // On the server: one memory of alice in app chat, with the updated text and the model's metadata.
    const listed = await client.list({ userId: 'alice', appId: 'chat' });
    expect(listed.memories.map((m) => [m.text, m.metadata])).toEqual([["Alice's favourite colour is now orange", { topic: 'colours' }]]);

    const forget = scriptedModel([() => callTool('forget_memory', { id: stored.id }), (prompt) => answer(JSON.stringify(lastToolOutput(prompt)))]);
    const forgotten = await generateText({ model: forget, tools, prompt: 'Forget my colour.', stopWhen: isStepCount(3) });
    expect(JSON.parse(forgotten.text)).toEqual({ deleted: 1 });
    expect((await client.list({ userId: 'alice', appId: 'chat' })).total).toBe(0);
  });

  it('tells the model what each tool is for, in the MCP tools\u2019 words, under the same names', () => {
    const tools = memoryTools({ client, userId: 'alice' });
    expect(Object.keys(tools).sort()).toEqual(['forget_memory', 'list_memories', 'recall_memories', 'store_memory', 'update_memory']);
    for (const [name, definition] of Object.entries(tools)) {
      expect(definition.description).toBe(TOOL_TEXTS[name as keyof typeof TOOL_TEXTS].description);
    }
  });

  it('cannot touch another user\u2019s memory, even with its id: update is not_found, forget deletes nothing', async () => {
    const bobs = await client.store({ userId: 'bob', appId: 'chat', text: 'Bob keeps bees' });
    const tools = memoryTools({ client, userId: 'mallory', appId: 'chat' });
    const outputs: unknown[] = [];
    const model = scriptedModel([
      () => callTool('update_memory', { id: bobs.id, text: 'Bob keeps nothing' }),
      (prompt) => {
        outputs.push(lastToolOutput(prompt));
        return callTool('forget_memory', { ids: [bobs.id] });
      },
      (prompt) => {
        outputs.push(lastToolOutput(prompt));
        return answer('done');
      },
    ]);
    await generateText({ model, tools, prompt: 'x', stopWhen: isStepCount(4) });
    expect(outputs[0]).toMatchObject({ error: { code: 'not_found' } });
    expect(outputs[1]).toEqual({ deleted: 0 });
    expect((await client.get(bobs.id)).text).toBe('Bob keeps bees');
  });

  it('returns failures as results the model reads: a bad argument, a duplicate text, the server out of reach', async () => {
    const tools = memoryTools({ client, userId: 'carol' });
    const first = await client.store({ userId: 'carol', text: 'Carol plays the cello' });
    const second = await client.store({ userId: 'carol', text: 'Carol plays chess' });
    const outputs: unknown[] = [];
    const model = scriptedModel([
      // A field the tool does not take (the model may not choose the user): the SDK's input check refuses it.
      () => callTool('store_memory', { text: 'x', userId: 'bob' }),
      (prompt) => {
        outputs.push(lastToolOutput(prompt));
        // The server refuses: that text is another memory's.
        return callTool('update_memory', { id: second.id, text: 'Carol plays the cello' });
      },
      (prompt) => {
        outputs.push(lastToolOutput(prompt));
        return answer('ok');
      },
    ]);
    const result = await generateText({ model, tools, prompt: 'x', stopWhen: isStepCount(4) });
    expect(result.text).toBe('ok');
    expect(JSON.stringify(outputs[0])).toMatch(/userId/);
    expect(outputs[1]).toMatchObject({ error: { code: 'duplicate_memory' } });
    expect((await client.get(first.id)).text).toBe('Carol plays the cello');
    expect((await client.get(second.id)).text).toBe('Carol plays chess');
    expect((await client.list({ userId: 'bob' })).memories.map((m) => m.text)).not.toContain('x');
    expect((await client.list({ userId: 'carol' })).total).toBe(2);

    // Nothing listens on the client's address: a connection error, as a result.
    const down = new MemoryClient({ apiKey: TEST_KEY, baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    const offline = scriptedModel([
      () => callTool('recall_memories', { query: 'cello' }),
      (prompt) => answer(JSON.stringify(lastToolOutput(prompt))),
    ]);
    const reply = await generateText({ model: offline, tools: memoryTools({ client: down, userId: 'carol' }), prompt: 'x', stopWhen: isStepCount(3) });
    const output: unknown = JSON.parse(reply.text);
    expect(output).toMatchObject({ error: { code: 'connection_error' } });
  });
});
