import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ZodType } from 'zod';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createApiKey } from '../../src/core/key-admin.js';
import { LIMITS } from '../../src/core/limits.js';
import type { Logger } from '../../src/core/logger.js';
import {
  forgetManyInputSchema,
  listFields,
  memoryRefSchema,
  memoryTextSchema,
  metadataSchema,
  recallFields,
  type ListResult,
  type RecallItem,
  type RecallResult,
  type MemoryView,
  type StoreResult,
} from '../../src/core/schemas.js';
import { LOCAL_CALLER, type Caller } from '../../src/core/types.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { call, connectInMemory, errorOf, ok, openTestRuntime, textOf } from './helpers.js';
import { TOOL_NAMES } from './tool-names.js';

let runtime: Runtime;
let closeRuntime: () => Promise<void>;
let client: Client; // local caller, default user "u1"
let bare: Client; // local caller, no defaults
let boundA: Client; // a key bound to app-a
let callerA: Caller;

/** What the core schema itself says about a value: the SDK's argument errors carry these same messages. */
function messagesOf(schema: ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  if (result.success) throw new Error(`${JSON.stringify(value)} is valid`);
  return result.error.issues.map((issue) => issue.message);
}

beforeAll(async () => {
  ({ runtime, close: closeRuntime } = await openTestRuntime());
  client = await connectInMemory(runtime, LOCAL_CALLER, { userId: 'u1' });
  bare = await connectInMemory(runtime, LOCAL_CALLER);
  const { record } = await createApiKey(runtime.store, { app: 'app-a', label: 'a' });
  callerA = { keyId: record.id, boundApp: record.app };
  boundA = await connectInMemory(runtime, callerA, { userId: 'shared' });
  await runtime.service.store(LOCAL_CALLER, { userId: 'shared', appId: 'app-b', text: 'App B: the user likes jazz.' });
});
afterAll(async () => {
  await Promise.all([client.close(), bare.close(), boundA.close()]);
  await closeRuntime();
});

describe('tools/list', () => {
  it('lists exactly the six tools, with titles, honest annotations and both schemas', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual([...TOOL_NAMES]);
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.description?.length).toBeGreaterThan(100);
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.annotations?.openWorldHint).toBe(false);
    }
    expect(byName.store_memory?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(byName.recall_memories?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(byName.list_memories?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(byName.forget_memory?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.get_memory?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    // An update overwrites what was there: destructive, and the same update twice leaves the same memory.
    expect(byName.update_memory?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.update_memory?.inputSchema.required).toEqual(['id']);
    // userId falls back to the configured user, so no tool requires it.
    expect(byName.store_memory?.inputSchema.required).toEqual(['text']);
    expect(byName.recall_memories?.inputSchema.required).toEqual(['query']);
    expect(byName.list_memories?.inputSchema.required ?? []).toEqual([]);
    // Limits come from the core schemas.
    expect(byName.list_memories?.inputSchema.properties?.pageSize).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(byName.recall_memories?.inputSchema.properties?.format).toMatchObject({ enum: ['context', 'raw'], default: 'context' });
  });
});

describe('store_memory', () => {
  it('stores for the configured user in the default app, as text and structured content', async () => {
    const result = await call(client, 'store_memory', { text: 'Alice is allergic to peanuts.' });
    const stored = ok<StoreResult>(result);
    expect(stored).toMatchObject({ userId: 'u1', appId: 'default' });
    expect(stored.id).toMatch(/^mem_[0-9A-Za-z]{12}$/);
    expect(JSON.parse(textOf(result))).toEqual(stored);
  });

  it('takes userId, appId, metadata and createdAt from the call over the defaults', async () => {
    const stored = ok<StoreResult>(
      await call(client, 'store_memory', {
        text: 'Bob keeps bees.',
        userId: 'bob',
        appId: 'garden',
        metadata: { source: 'chat' },
        createdAt: '2023-05-08T13:56:00+02:00',
      }),
    );
    expect(stored).toMatchObject({ userId: 'bob', appId: 'garden', createdAt: '2023-05-08T11:56:00.000Z' });
    const page = await runtime.service.list(LOCAL_CALLER, { userId: 'bob', appId: 'garden' });
    expect(page.memories[0]).toMatchObject({ text: 'Bob keeps bees.', metadata: { source: 'chat' } });
  });

  it('uses the configured app when the call names none', async () => {
    const withApp = await connectInMemory(runtime, LOCAL_CALLER, { userId: 'carol', appId: 'notes' });
    expect(ok<StoreResult>(await call(withApp, 'store_memory', { text: 'Carol runs marathons.' })).appId).toBe('notes');
    await withApp.close();
  });

  it('refuses a call with no userId when no default user is configured', async () => {
    const error = errorOf(await call(bare, 'store_memory', { text: 'Nobody owns this.' }));
    expect(error.code).toBe('validation_error');
    expect(error.message).toMatch(/pass userId.*--user-id/);
    expect(error.details).toEqual([{ path: 'userId', message: error.message }]);
  });

  it('answers a bad argument with the contract\u2019s validation_error, as REST does: code, message, details', async () => {
    const empty = errorOf(await call(client, 'store_memory', { text: '' }));
    expect(empty).toEqual({
      code: 'validation_error',
      message: messagesOf(memoryTextSchema, '')[0],
      details: messagesOf(memoryTextSchema, '').map((message) => ({ path: 'text', message })),
    });
    expect(errorOf(await call(client, 'store_memory', {}))).toEqual({
      code: 'validation_error',
      message: 'text is required.',
      details: [{ path: 'text', message: 'text is required.' }],
    });
    const long = 'x'.repeat(LIMITS.textMaxLength + 1);
    expect(errorOf(await call(client, 'store_memory', { text: long })).message).toBe(messagesOf(memoryTextSchema, long)[0]);
    expect(errorOf(await call(client, 'store_memory', { text: 'x', metadata: [1] })).message).toBe(messagesOf(metadataSchema, [1])[0]);
    // What storage could not keep exactly is refused as over REST.
    expect(errorOf(await call(client, 'store_memory', { text: 'x', metadata: { n: 2 ** 60 } })).details?.[0]?.path).toBe('metadata.n');
  });

  it('refuses a misspelt field instead of storing for the default user', async () => {
    const error = errorOf(await call(client, 'store_memory', { text: 'Dave likes tea.', user_id: 'dave' }));
    expect(error).toEqual({ code: 'validation_error', message: 'Unknown field: user_id.', details: [{ path: '', message: 'Unknown field: user_id.' }] });
  });

  it('answers the service\u2019s own errors with the contract code and message', async () => {
    const error = errorOf(await call(client, 'store_memory', { text: 'x', appId: '123e4567-e89b-12d3-a456-426614174000' }));
    expect(error).toEqual({
      code: 'validation_error',
      message: 'No app has the UUID "123e4567-e89b-12d3-a456-426614174000".',
      details: [{ path: 'appId', message: 'No app has this UUID; name a new app by slug to create it.' }],
    });
  });

  it('keeps a bound key in its app: its app by default, forbidden for another', async () => {
    expect(ok<StoreResult>(await call(boundA, 'store_memory', { text: 'App A: the user likes tea.' })).appId).toBe('app-a');
    const error = errorOf(await call(boundA, 'store_memory', { text: 'x', appId: 'app-b' }));
    expect(error).toEqual({ code: 'forbidden', message: 'This API key is bound to the app "app-a" and cannot use the app "app-b".' });
  });

  it('keeps a bound key in its own app when the server has another default app (serve --app-id)', async () => {
    const withDefault = await connectInMemory(runtime, callerA, { userId: 'shared', appId: 'app-b' });
    try {
      expect(ok<StoreResult>(await call(withDefault, 'store_memory', { text: 'App A: the user likes green tea.' })).appId).toBe('app-a');
      const page = ok<ListResult>(await call(withDefault, 'list_memories', {}));
      expect(page.memories.map((m) => m.appId)).toEqual(expect.arrayContaining(['app-a']));
      expect(page.memories.every((m) => m.appId === 'app-a')).toBe(true);
      // An unbound caller still gets the server's default app.
      const local = await connectInMemory(runtime, LOCAL_CALLER, { userId: 'someone-else', appId: 'app-b' });
      expect(ok<StoreResult>(await call(local, 'store_memory', { text: 'App B: the user likes blues.' })).appId).toBe('app-b');
      await local.close();
    } finally {
      await withDefault.close();
    }
  });
});

describe('recall_memories', () => {
  beforeAll(async () => {
    await call(client, 'store_memory', { text: 'Alice moved to Lisbon in 2024.' });
    await call(client, 'store_memory', { text: 'Alice plays the cello on weekends.' });
  });

  it('finds a memory from a paraphrased question, as the context text by default', async () => {
    const result = await call(client, 'recall_memories', { query: 'Which foods must Alice stay away from?', minScore: 0 });
    const recalled = ok<RecallResult>(result);
    expect(recalled.memories.map((m) => m.text)).toContain('Alice is allergic to peanuts.');
    expect(textOf(result)).toBe(recalled.context);
    expect(recalled.context.split('\n')).toEqual(recalled.memories.map((m) => `- [${m.updatedAt.slice(0, 10)}] ${m.text}`));
    for (const m of recalled.memories) expect(m.score).toBeGreaterThanOrEqual(0);
  });

  it('returns the scored items as text with format "raw"', async () => {
    const result = await call(client, 'recall_memories', { query: 'Which city did Alice move to?', minScore: 0, limit: 2, format: 'raw' });
    const recalled = ok<RecallResult>(result);
    const items = JSON.parse(textOf(result)) as RecallItem[];
    expect(items).toEqual(recalled.memories);
    expect(items.length).toBeLessThanOrEqual(2);
    expect(items[0]).toEqual(expect.objectContaining({ id: expect.stringMatching(/^mem_/), score: expect.any(Number) }));
    expect(items.map((i) => i.text)).toContain('Alice moved to Lisbon in 2024.');
  });

  it('says so in text when nothing matched, with an empty context', async () => {
    const result = await call(client, 'recall_memories', { query: 'favourite colour', userId: 'nobody-here' });
    expect(ok<RecallResult>(result)).toEqual({ memories: [], context: '' });
    expect(textOf(result)).toBe('No memories matched this query.');
  });

  it('refuses out-of-range numbers and an unknown format (validation_error)', async () => {
    expect(errorOf(await call(client, 'recall_memories', { query: 'q', limit: 0 })).message).toBe(messagesOf(recallFields.limit, 0)[0]);
    expect(errorOf(await call(client, 'recall_memories', { query: 'q', minScore: 2 })).message).toBe(messagesOf(recallFields.minScore, 2)[0]);
    expect(errorOf(await call(client, 'recall_memories', { query: 'q', format: 'xml' })).details).toEqual([
      { path: 'format', message: 'format must be "context" or "raw".' },
    ]);
    expect(errorOf(await call(bare, 'recall_memories', { query: 'q' })).code).toBe('validation_error');
  });

  it('confines a bound key to its app', async () => {
    const own = ok<RecallResult>(await call(boundA, 'recall_memories', { query: 'What does the user like to drink?', minScore: 0 }));
    expect(own.memories.map((m) => m.appId)).toEqual(own.memories.map(() => 'app-a'));
    expect(errorOf(await call(boundA, 'recall_memories', { query: 'music', appId: 'app-b' })).code).toBe('forbidden');
  });
});

describe('list_memories', () => {
  it('pages newest first with the true total', async () => {
    const pager = await connectInMemory(runtime, LOCAL_CALLER, { userId: 'pager' });
    for (const n of [1, 2, 3]) await call(pager, 'store_memory', { text: `Fact number ${n}.`, createdAt: `2024-01-0${n}T00:00:00Z` });
    const first = ok<ListResult>(await call(pager, 'list_memories', { pageSize: 2 }));
    expect(first).toMatchObject({ total: 3, page: 0, pageSize: 2 });
    expect(first.memories.map((m) => m.text)).toEqual(['Fact number 3.', 'Fact number 2.']);
    const second = ok<ListResult>(await call(pager, 'list_memories', { pageSize: 2, page: 1 }));
    expect(second.memories.map((m) => m.text)).toEqual(['Fact number 1.']);
    const past = ok<ListResult>(await call(pager, 'list_memories', { pageSize: 2, page: 5 }));
    expect(past).toEqual({ memories: [], total: 3, page: 5, pageSize: 2 });
    // Defaults from the core schema.
    expect(ok<ListResult>(await call(pager, 'list_memories', {}))).toMatchObject({ page: 0, pageSize: 20, total: 3 });
    await pager.close();
  });

  it('refuses a bad page size (validation_error) and a missing user', async () => {
    expect(errorOf(await call(client, 'list_memories', { pageSize: 101 })).message).toBe(messagesOf(listFields.pageSize, 101)[0]);
    expect(errorOf(await call(client, 'list_memories', { page: 1.5 })).message).toBe(messagesOf(listFields.page, 1.5)[0]);
    expect(errorOf(await call(bare, 'list_memories', {})).code).toBe('validation_error');
  });

  it('shows a bound key only its app', async () => {
    const page = ok<ListResult>(await call(boundA, 'list_memories', {}));
    expect(page.total).toBeGreaterThan(0);
    expect(new Set(page.memories.map((m) => m.appId))).toEqual(new Set(['app-a']));
    expect(errorOf(await call(boundA, 'list_memories', { appId: 'app-b' })).code).toBe('forbidden');
  });
});

describe('forget_memory', () => {
  it('deletes one memory by id, then answers 0 for it (idempotent)', async () => {
    const { id } = ok<StoreResult>(await call(client, 'store_memory', { text: 'Temporary fact.' }));
    expect(ok(await call(client, 'forget_memory', { id }))).toEqual({ deleted: 1 });
    expect(ok(await call(client, 'forget_memory', { id }))).toEqual({ deleted: 0 });
  });

  it('deletes several by ids, skipping unknown ones', async () => {
    const a = ok<StoreResult>(await call(client, 'store_memory', { text: 'Fact A.' }));
    const b = ok<StoreResult>(await call(client, 'store_memory', { text: 'Fact B.' }));
    const result = await call(client, 'forget_memory', { ids: [a.id, b.id, 'mem_000000000000'] });
    expect(ok(result)).toEqual({ deleted: 2 });
    expect(JSON.parse(textOf(result))).toEqual({ deleted: 2 });
  });

  it('needs exactly one of id, ids and key, well-formed (validation_error)', async () => {
    const rule = 'Pass one of id (one memory), ids (several memories) or key (the memory stored under it).';
    expect(errorOf(await call(client, 'forget_memory', {}))).toEqual({ code: 'validation_error', message: rule, details: [{ path: '', message: rule }] });
    expect(errorOf(await call(client, 'forget_memory', { id: 'mem_000000000000', ids: ['mem_000000000001'] })).message).toBe('Give id or ids, not both.');
    // Both given and both malformed: one sentence says what to fix, the details still list every field.
    const both = errorOf(await call(client, 'forget_memory', { id: 'x', ids: ['y'] }));
    expect(both.message).toBe('Give id or ids, not both.');
    expect(both.details?.map((d) => d.path)).toEqual(['', 'id', 'ids.0']);
    expect(errorOf(await call(client, 'forget_memory', { id: 'mem_000000000000', key: 'k' })).message).toBe('Give id or key, not both.');
    expect(errorOf(await call(client, 'forget_memory', { id: 'mem_000000000000', ids: ['mem_000000000001'], key: 'k' })).message).toBe('Give only one of id, ids, key.');
    expect(errorOf(await call(client, 'forget_memory', { id: 'bad' })).details).toEqual([{ path: 'id', message: messagesOf(memoryRefSchema, 'bad')[0] }]);
    expect(errorOf(await call(client, 'forget_memory', { ids: [] })).message).toBe(messagesOf(forgetManyInputSchema, { ids: [] })[0]);
  });

  it('does not let a bound key delete another app\u2019s memory, and leaks nothing', async () => {
    const page = await runtime.service.list(LOCAL_CALLER, { userId: 'shared', appId: 'app-b' });
    const other = page.memories[0]?.id;
    expect(other).toBeDefined();
    expect(ok(await call(boundA, 'forget_memory', { id: other }))).toEqual({ deleted: 0 });
    expect((await runtime.service.list(LOCAL_CALLER, { userId: 'shared', appId: 'app-b' })).total).toBe(1);
  });
});

describe('failures outside the contract', () => {
  it('answers an unknown tool with the SDK\u2019s isError text', async () => {
    const result = await call(client, 'remember_everything', {});
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: 'MCP error -32602: Tool remember_everything not found' }] });
  });

  it('turns an unexpected failure into a generic server_error and logs the real one', async () => {
    const logged: string[] = [];
    const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message, fields) => logged.push(`${message} ${JSON.stringify(fields)}`) };
    const spy = vi.spyOn(runtime.service, 'list').mockRejectedValueOnce(new Error('SQLITE_CORRUPT: secret internals'));
    const server = createMcpServer({ service: runtime.service, caller: LOCAL_CALLER, defaults: { userId: 'u1' }, logger });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const probe = new Client({ name: 'probe', version: '0.0.0' });
    await probe.connect(clientSide);
    const result = await call(probe, 'list_memories', {});
    expect(errorOf(result)).toEqual({ code: 'server_error', message: 'The server failed to handle this request.' });
    expect(JSON.stringify(result)).not.toContain('SQLITE');
    expect(logged.join('\n')).toContain('SQLITE_CORRUPT: secret internals');
    spy.mockRestore();
    await probe.close();
  });
});

describe('get_memory and update_memory', () => {
  it('reads a memory, updates its text, metadata and expiry, and finds it by the new text', async () => {
    const stored = ok<StoreResult>(await call(client, 'store_memory', { text: 'Maria lives in Seattle.', metadata: { topic: 'home' } }));
    const read = ok<MemoryView>(await call(client, 'get_memory', { id: stored.id }));
    expect(read).toMatchObject({ id: stored.id, userId: 'u1', text: 'Maria lives in Seattle.', updatedAt: stored.createdAt, expiresAt: null });
    const updated = ok<MemoryView>(
      await call(client, 'update_memory', { id: stored.id, text: 'Maria moved to Lisbon.', metadata: { topic: 'moves' }, ttlSeconds: 3600 }),
    );
    expect(updated).toMatchObject({ id: stored.id, createdAt: stored.createdAt, text: 'Maria moved to Lisbon.', metadata: { topic: 'moves' } });
    expect(updated.updatedAt >= stored.createdAt).toBe(true);
    expect(Date.parse(updated.expiresAt ?? '') - Date.now()).toBeGreaterThan(3500_000);
    const recalled = ok<RecallResult>(
      await call(client, 'recall_memories', { query: 'Where does Maria live now?', minScore: 0, metadata: { topic: 'moves' } }),
    );
    expect(recalled.memories.map((m) => m.id)).toEqual([stored.id]);
  });

  it('answers a duplicate store with the existing memory, and refuses an update onto another memory\u2019s text', async () => {
    const first = ok<StoreResult>(await call(client, 'store_memory', { text: 'Dan likes jazz.' }));
    expect(first.duplicate).toBe(false);
    const again = ok<StoreResult>(await call(client, 'store_memory', { text: ' Dan  likes jazz. ' }));
    expect(again).toEqual({ ...first, duplicate: true });
    const other = ok<StoreResult>(await call(client, 'store_memory', { text: 'Dan likes blues.' }));
    const clash = errorOf(await call(client, 'update_memory', { id: other.id, text: 'Dan likes jazz.' }));
    expect(clash).toMatchObject({ code: 'duplicate_memory' });
    expect(clash.message).toContain(first.id);
  });

  it('answers not_found for an unknown id and for another app\u2019s memory, and refuses an empty update', async () => {
    const foreign = await runtime.service.store(LOCAL_CALLER, { userId: 'shared', appId: 'app-b', text: 'App B: private.' });
    expect(errorOf(await call(boundA, 'get_memory', { id: foreign.result.id })).code).toBe('not_found');
    expect(errorOf(await call(boundA, 'update_memory', { id: foreign.result.id, metadata: {} })).code).toBe('not_found');
    expect(errorOf(await call(client, 'get_memory', { id: 'mem_AAAAAAAAAAAA' })).code).toBe('not_found');
    expect(errorOf(await call(client, 'update_memory', { id: foreign.result.id }))).toMatchObject({
      code: 'validation_error',
      message: 'Pass at least one of text, metadata, expiresAt or ttlSeconds.',
    });
  });

  it('answers their bad arguments with the contract\u2019s validation_error, not the SDK\u2019s text', async () => {
    expect(errorOf(await call(client, 'get_memory', { id: 'bad' }))).toEqual({
      code: 'validation_error',
      message: messagesOf(memoryRefSchema, 'bad')[0],
      details: [{ path: 'id', message: messagesOf(memoryRefSchema, 'bad')[0] }],
    });
    expect(errorOf(await call(client, 'get_memory', {})).details).toEqual([{ path: '', message: 'Pass either id or key.' }]);
    expect(errorOf(await call(client, 'get_memory', { id: 'mem_AAAAAAAAAAAA', key: 'k' })).message).toBe('Give id or key, not both.');
    const update = errorOf(await call(client, 'update_memory', { id: 'mem_AAAAAAAAAAAA', ttlSeconds: 0, userId: 'x' }));
    expect(update.code).toBe('validation_error');
    expect(update.details?.map((d) => d.path).sort()).toEqual(['', 'ttlSeconds']);
  });
});
