/**
 * The tools and the middleware over an in-process MemoryService (serviceBackend), no server in between: the same
 * tool loop stores and recalls, the service's own errors reach the model as results, and the scope holds.
 */
import { generateText, isStepCount, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryMiddleware, memoryTools, serviceBackend } from '../../src/ai-sdk/index.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { openRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { TEST_MODEL } from '../helpers/server.js';
import { answer, callTool, lastToolOutput, scriptedModel } from './support.js';

let runtime: Runtime;

beforeAll(async () => {
  runtime = await openRuntime({ dbPath: ':memory:', model: TEST_MODEL, modelDir: undefined });
  await runtime.modelReady;
});
afterAll(() => runtime.close());

describe('memoryTools and memoryMiddleware over an in-process service', () => {
  it('stores and recalls through the tools, and the middleware hands the memory to the next call', async () => {
    const backend = serviceBackend(runtime.service);
    const tools = memoryTools({ client: backend, userId: 'gus', appId: 'garden' });
    const outputs: unknown[] = [];
    const model = scriptedModel([
      () => callTool('store_memory', { text: 'Gus grows tomatoes on his balcony' }),
      (prompt) => {
        outputs.push(lastToolOutput(prompt));
        return callTool('update_memory', { id: 'mem_AAAAAAAAAAAA', text: 'x' });
      },
      (prompt) => {
        outputs.push(lastToolOutput(prompt));
        return callTool('store_memory', { text: 'Gus grows tomatoes on his balcony' });
      },
      (prompt) => {
        outputs.push(lastToolOutput(prompt));
        return answer('ok');
      },
    ]);
    await generateText({ model, tools, prompt: 'I grow tomatoes on my balcony.', stopWhen: isStepCount(5) });
    const [stored, unknown, again] = outputs as [{ id: string; duplicate: boolean }, unknown, { id: string; duplicate: boolean }];
    expect(stored.duplicate).toBe(false);
    expect(unknown).toMatchObject({ error: { code: 'not_found' } });
    // The service's exact-duplicate rule, as over REST: the same text answers the same memory.
    expect(again).toEqual({ ...stored, duplicate: true });
    const listed = await runtime.service.list(LOCAL_CALLER, { userId: 'gus', appId: 'garden' });
    expect(listed.memories.map((m) => m.text)).toEqual(['Gus grows tomatoes on his balcony']);

    const next = new MockLanguageModelV4({ doGenerate: async () => answer('Tomatoes.') });
    const wrapped = wrapLanguageModel({ model: next, middleware: memoryMiddleware({ client: backend, userId: 'gus', appId: 'garden', minScore: 0 }) });
    await generateText({ model: wrapped, prompt: 'What grows on my balcony? Tomatoes?' });
    const system = next.doGenerateCalls[0]?.prompt.find((m) => m.role === 'system');
    expect(system?.role === 'system' && system.content).toMatch(/\] Gus grows tomatoes on his balcony$/);
  });

  it('answers a service error (a text another memory holds) as a result in the contract\u2019s shape', async () => {
    const backend = serviceBackend(runtime.service);
    const a = await backend.store({ userId: 'hana', text: 'Hana runs marathons' });
    const b = await backend.store({ userId: 'hana', text: 'Hana swims' });
    const model = scriptedModel([
      () => callTool('update_memory', { id: b.id, text: 'Hana runs marathons' }),
      (prompt) => answer(JSON.stringify(lastToolOutput(prompt))),
    ]);
    const result = await generateText({ model, tools: memoryTools({ client: backend, userId: 'hana' }), prompt: 'x', stopWhen: isStepCount(3) });
    expect(JSON.parse(result.text)).toMatchObject({ error: { code: 'duplicate_memory', message: expect.stringContaining(a.id) } });
    expect((await backend.get(b.id)).text).toBe('Hana swims');
  });
});
