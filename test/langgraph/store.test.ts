/**
 * agent-memory/langgraph against the real packages: a LangGraph StateGraph compiled with `graph.compile({ store })`
 * whose nodes put, search and delete through AgentMemoryStore, over MemoryClient, against a live server, on SQLite
 * and on PostgreSQL (PGlite, or the real server of the Postgres lanes).
 */
import { Annotation, END, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { InvalidNamespaceError, type SearchItem } from '@langchain/langgraph-checkpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryClient, MemoryValidationError } from '../../src/client/index.js';
import { AgentMemoryStore, UnsupportedFilterError } from '../../src/langgraph/index.js';
import { startTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';

describe.each(['sqlite', 'postgres'] as const)('AgentMemoryStore on %s', (backend) => {
  let db: TestDatabase | undefined;
  let server: TestServer;
  let client: MemoryClient;
  let store: AgentMemoryStore;

  beforeAll(async () => {
    db = backend === 'postgres' ? await startTestDatabase() : undefined;
    server = await startTestServer(db ? { databaseUrl: db.url } : { databaseUrl: undefined });
    client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url, maxRetries: 0 });
    store = new AgentMemoryStore({ client });
  });
  afterAll(async () => {
    await server.stop();
    await db?.close();
  });

  it('gives a compiled StateGraph long-term memory: a node puts, searches, reads and deletes through the store', async () => {
    const State = Annotation.Root({
      userId: Annotation<string>,
      recalled: Annotation<SearchItem[]>,
      listed: Annotation<SearchItem[]>,
      afterDelete: Annotation<unknown>,
    });
    const graph = new StateGraph(State)
      .addNode('remember', async (state: typeof State.State, config: LangGraphRunnableConfig) => {
        const memory = config.store;
        if (!memory) throw new Error('no store');
        await memory.put([state.userId], 'diet', { text: 'Noor is vegetarian and avoids fish.', source: 'chat', confidence: 0.9 });
        await memory.put([state.userId], 'pet', { text: 'Noor has a cat named Miso.', source: 'form' });
        await memory.put([state.userId, 'travel'], 'trip', { text: 'Noor flies to Oslo in May.', source: 'chat' });
        return {};
      })
      .addNode('recall', async (state: typeof State.State, config: LangGraphRunnableConfig) => {
        const memory = config.store;
        if (!memory) throw new Error('no store');
        // The test server runs the hash model (shared words, close vectors): the query shares the fact's words.
        const recalled = await memory.search([state.userId], { query: 'Is Noor vegetarian, avoiding fish?', limit: 3 });
        const listed = await memory.search([state.userId], { filter: { source: { $eq: 'chat' } } });
        return { recalled, listed };
      })
      .addNode('forget', async (state: typeof State.State, config: LangGraphRunnableConfig) => {
        const memory = config.store;
        if (!memory) throw new Error('no store');
        await memory.delete([state.userId], 'diet');
        return { afterDelete: await memory.get([state.userId], 'diet') };
      })
      .addEdge(START, 'remember')
      .addEdge('remember', 'recall')
      .addEdge('recall', 'forget')
      .addEdge('forget', END)
      .compile({ store });

    const out = await graph.invoke({ userId: 'noor' });
    // Recall by meaning, best first, with its score; the value comes back as it was put.
    expect(out.recalled[0]).toMatchObject({
      key: 'diet',
      namespace: ['noor'],
      value: { text: 'Noor is vegetarian and avoids fish.', source: 'chat', confidence: 0.9 },
    });
    expect(out.recalled[0]?.score).toBeGreaterThan(0);
    const scores = out.recalled.map((item) => item.score ?? -1);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    expect(out.recalled[0]?.createdAt).toBeInstanceOf(Date);
    // The metadata filter, across the user's apps (a prefix of both namespaces).
    expect(out.listed.map((item) => [item.key, item.namespace]).sort()).toEqual([
      ['diet', ['noor']],
      ['trip', ['noor', 'travel']],
    ]);
    expect(out.afterDelete).toBeNull();
    expect(await store.get(['noor'], 'pet')).toMatchObject({ key: 'pet', value: { text: 'Noor has a cat named Miso.', source: 'form' } });
    expect((await client.list({ userId: 'noor' })).total).toBe(2);
  });

  it('replaces the value under a key (put twice: one memory, the same createdAt), and put null deletes', async () => {
    await store.put(['kim', 'prefs'], 'drink', { text: 'Kim drinks tea.', strength: 'strong' });
    const first = await store.get(['kim', 'prefs'], 'drink');
    await store.put(['kim', 'prefs'], 'drink', { text: 'Kim switched to coffee.' });
    const second = await store.get(['kim', 'prefs'], 'drink');
    expect(second).toMatchObject({ key: 'drink', namespace: ['kim', 'prefs'], value: { text: 'Kim switched to coffee.' } });
    expect(second?.value).not.toHaveProperty('strength');
    expect(second?.createdAt.getTime()).toBe(first?.createdAt.getTime());
    expect((await client.list({ userId: 'kim', appId: 'prefs' })).total).toBe(1);
    // The new text is what search by meaning finds.
    expect((await store.search(['kim', 'prefs'], { query: 'coffee' }))[0]?.key).toBe('drink');
    await store.batch([{ namespace: ['kim', 'prefs'], key: 'drink', value: null }]);
    expect(await store.get(['kim', 'prefs'], 'drink')).toBeNull();
  });

  it('pages a search with limit and offset, newest first, and lists the namespaces that hold memories', async () => {
    for (let i = 0; i < 7; i++) await store.put(['pager', 'book'], `k${i}`, { text: `Fact number ${i} about chapter ${i}.`, i });
    const all = await store.search(['pager', 'book'], { limit: 50 });
    expect(all.map((item) => item.key)).toEqual(['k6', 'k5', 'k4', 'k3', 'k2', 'k1', 'k0']);
    expect((await store.search(['pager', 'book'], { limit: 3, offset: 2 })).map((item) => item.key)).toEqual(['k4', 'k3', 'k2']);
    expect((await store.search(['pager'], { filter: { i: 3 } })).map((item) => item.key)).toEqual(['k3']);
    expect(await store.listNamespaces({ prefix: ['pager', 'book'] })).toEqual([['pager', 'book']]);
    expect(await store.listNamespaces({ prefix: ['pager'] })).toEqual([['pager']]);
    expect(await store.listNamespaces({ prefix: ['nobody'] })).toEqual([]);
  });

  it('shows a memory stored without a key (over REST) with its id as its key; get and delete find it by that id', async () => {
    const stored = await client.store({ userId: 'plain', appId: 'notes', text: 'Stored over REST without a key.', metadata: { via: 'rest' } });
    const [item] = await store.search(['plain', 'notes']);
    expect(item).toMatchObject({ key: stored.id, namespace: ['plain', 'notes'], value: { text: 'Stored over REST without a key.', via: 'rest' } });
    expect(await store.get(['plain', 'notes'], stored.id)).toMatchObject({ key: stored.id });
    // Only in its own namespace.
    expect(await store.get(['plain'], stored.id)).toBeNull();
    expect(await store.get(['someone-else', 'notes'], stored.id)).toBeNull();
    await store.delete(['someone-else', 'notes'], stored.id);
    expect(await store.get(['plain', 'notes'], stored.id)).not.toBeNull();
    await store.delete(['plain', 'notes'], stored.id);
    expect(await store.get(['plain', 'notes'], stored.id)).toBeNull();
  });

  it('refuses what cannot map, with a clear error and nothing stored', async () => {
    await expect(store.put(['a', 'b', 'c'], 'k', { text: 'Too deep.' })).rejects.toBeInstanceOf(InvalidNamespaceError);
    await expect(store.search([], { query: 'anything' })).rejects.toThrow(/at least the user/);
    await expect(store.put(['refused'], 'k', { title: 'No text field.' })).rejects.toThrow(/non-empty string "text"/);
    await expect(store.put(['refused'], 'a/b', { text: 'A key with a slash.' })).rejects.toBeInstanceOf(MemoryValidationError);
    await expect(store.put(['refused', 'Not A Slug'], 'k', { text: 'Bad app.' })).rejects.toBeInstanceOf(MemoryValidationError);
    for (const op of ['$gt', '$ne', '$lte']) {
      await expect(store.search(['refused'], { filter: { n: { [op]: 1 } } })).rejects.toThrow(
        new UnsupportedFilterError(`The filter operator ${op} (on "n") is not supported: agent-memory filters metadata by equality ($eq, or a plain value).`),
      );
    }
    await expect(store.search(['refused'], { filter: { tags: ['x'] } })).rejects.toBeInstanceOf(UnsupportedFilterError);
    await expect(store.search(['refused'], { query: 'q', limit: 90, offset: 20 })).rejects.toBeInstanceOf(RangeError);
    expect((await client.list({ userId: 'refused' })).total).toBe(0);
  });
});
