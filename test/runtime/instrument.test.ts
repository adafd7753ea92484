import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryService } from '../../src/core/service.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { createMetrics, type Metrics } from '../../src/runtime/metrics.js';
import { openRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { TEST_MODEL } from '../helpers/server.js';
import { tempDir } from '../mcp/helpers.js';

// The service as the runtime hands it out when metrics are on (instrument.ts), over a real SQLite file and the hash
// model. Every public method of MemoryService must work through it exactly as on the plain service: methods that
// reach private members (#keySlot, #upsert, ...) once failed with "Receiver must be an instance of class
// MemoryService" because the wrapper handed them back unbound. The list of methods is read from the class itself,
// so a method added later without a case here fails the first test.

const user = 'instrumented-user';

/** One call per public method, in an order where each finds what the earlier ones left. */
const CALLS: Record<string, (service: MemoryService) => Promise<unknown>> = {
  housekeepingSettled: (s) => s.housekeepingSettled(),
  store: (s) => s.store(LOCAL_CALLER, { userId: user, text: 'The office plant is a fern.' }),
  putByKey: (s) => s.putByKey(LOCAL_CALLER, 'pref:plant', { userId: user, text: 'Waters the fern on Mondays.' }),
  getByKey: (s) => s.getByKey(LOCAL_CALLER, { userId: user, key: 'pref:plant' }),
  get: async (s) => s.get(LOCAL_CALLER, (await s.getByKey(LOCAL_CALLER, { userId: user, key: 'pref:plant' })).id),
  update: async (s) =>
    s.update(LOCAL_CALLER, (await s.getByKey(LOCAL_CALLER, { userId: user, key: 'pref:plant' })).id, { metadata: { room: 'office' } }),
  list: (s) => s.list(LOCAL_CALLER, { userId: user }),
  listUsers: (s) => s.listUsers(LOCAL_CALLER, {}),
  recall: (s) => s.recall(LOCAL_CALLER, { userId: user, query: 'fern' }),
  forgetByKey: (s) => s.forgetByKey(LOCAL_CALLER, { userId: user, key: 'pref:plant' }),
  forget: async (s) => s.forget(LOCAL_CALLER, (await s.list(LOCAL_CALLER, { userId: user })).memories[0]?.id ?? 'mem_missing'),
  forgetMany: (s) => s.forgetMany(LOCAL_CALLER, { ids: ['mem_000000000000'] }),
  forgetAll: (s) => s.forgetAll(LOCAL_CALLER, { userId: user }),
  health: (s) => s.health(),
};

/** The class's public methods: its prototype's functions, less the constructor (private #methods are not on it). */
function publicMethods(): string[] {
  return Object.getOwnPropertyNames(MemoryService.prototype).filter((name) => {
    const descriptor = Object.getOwnPropertyDescriptor(MemoryService.prototype, name);
    return name !== 'constructor' && typeof descriptor?.value === 'function';
  });
}

describe('the service with metrics on', () => {
  let runtime: Runtime;
  let metrics: Metrics;
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    tmp = tempDir();
    metrics = createMetrics();
    runtime = await openRuntime({ dbPath: tmp.dbPath, model: TEST_MODEL, modelDir: undefined }, undefined, metrics);
    await runtime.modelReady;
  });
  afterAll(async () => {
    await runtime.close();
    tmp.remove();
  });

  it('has a case here for every public method of MemoryService', () => {
    expect(publicMethods().length).toBeGreaterThan(10);
    expect(Object.keys(CALLS).sort()).toEqual(publicMethods().sort());
  });

  it('is still a MemoryService, and its storage and embeddings are reachable', () => {
    expect(runtime.service).toBeInstanceOf(MemoryService);
    expect(runtime.service.storage).toBe(runtime.store);
    expect(typeof runtime.service.embeddings.embed).toBe('function');
  });

  it.each(Object.keys(CALLS))('%s works through the instrumented service', async (name) => {
    const call = CALLS[name];
    if (!call) throw new Error(`no case for ${name}`);
    // Each case on its own, so a failure names the method; what a case needs (the keyed memory) is put first.
    await runtime.service.putByKey(LOCAL_CALLER, 'pref:plant', { userId: user, text: 'Waters the fern on Mondays.' });
    await expect(call(runtime.service)).resolves.not.toThrow();
  });

  it('measures the storage time of measured operations, the caller-key ones included', async () => {
    const count = async (operation: string) => {
      const found = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'agent_memory_operation_phase_seconds');
      const values = (found?.values ?? []) as Array<{ metricName?: string; labels: Record<string, string | number>; value: number }>;
      return values.find((v) => v.metricName?.endsWith('_count') && v.labels.operation === operation && v.labels.phase === 'storage')?.value ?? 0;
    };
    for (const operation of ['putByKey', 'getByKey', 'forgetByKey', 'list']) {
      const before = await count(operation);
      const call = CALLS[operation];
      if (!call) throw new Error(`no case for ${operation}`);
      await runtime.service.putByKey(LOCAL_CALLER, 'pref:plant', { userId: user, text: 'Waters the fern on Mondays.' });
      await call(runtime.service);
      expect(await count(operation), operation).toBeGreaterThan(before);
    }
  });
});
