import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryClient } from '../../src/client/index.js';
import { TEST_KEY, startTestServer, type TestServer } from '../helpers/server.js';

/** Every method against a real server: real SQLite file, real embedding model, real HTTP. */
let server: TestServer;
let client: MemoryClient;
beforeAll(async () => {
  server = await startTestServer();
  client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: `${server.url}/` });
});
afterAll(async () => {
  await server.stop();
});

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('MemoryClient against a live server', () => {
  it('store answers the store response, createdAt as the wire string', async () => {
    const stored = await client.store({ userId: 'alice', text: 'Alice is allergic to peanuts.' });
    expect(Object.keys(stored).sort()).toEqual(['appId', 'createdAt', 'duplicate', 'id', 'userId']);
    expect(stored.duplicate).toBe(false);
    expect(stored.id).toMatch(/^mem_[0-9A-Za-z]{12}$/);
    expect(stored.userId).toBe('alice');
    expect(stored.appId).toBe('default');
    expect(typeof stored.createdAt).toBe('string');
    expect(stored.createdAt).toMatch(ISO_MS);
  });

  it('store sends metadata, app and an imported createdAt; the client appId is the fallback', async () => {
    const stored = await client.store({
      userId: 'bob',
      text: 'Bob\u2019s cat is called \u201cMiso\u201d.',
      appId: 'pets',
      metadata: { tags: ['cat'], n: 1 },
      createdAt: '2023-05-08T13:56:00+02:00',
    });
    expect(stored.appId).toBe('pets');
    expect(stored.createdAt).toBe('2023-05-08T11:56:00.000Z');

    const scoped = new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url, appId: 'chat-app' });
    expect((await scoped.store({ userId: 'bob', text: 'Bob works nights.' })).appId).toBe('chat-app');
    expect((await scoped.store({ userId: 'bob', text: 'Bob likes jazz.', appId: 'music' })).appId).toBe('music');

    const page = await client.list({ userId: 'bob', appId: 'pets' });
    expect(page.memories).toHaveLength(1);
    expect(page.memories[0]).toMatchObject({ id: stored.id, metadata: { tags: ['cat'], n: 1 }, appId: 'pets' });
  });

  it('list answers the page envelope, newest first, with paging', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await client.store({ userId: 'pager', text: `Fact number ${i}.`, createdAt: `2024-01-0${i + 1}T00:00:00Z` })).id);
    }
    const first = await client.list({ userId: 'pager', pageSize: 2 });
    expect(first).toMatchObject({ total: 5, page: 0, pageSize: 2 });
    expect(first.memories.map((m) => m.id)).toEqual([ids[4], ids[3]]);
    expect(first.memories[0]?.createdAt).toBe('2024-01-05T00:00:00.000Z');
    const last = await client.list({ userId: 'pager', page: 2, pageSize: 2 });
    expect(last.memories.map((m) => m.id)).toEqual([ids[0]]);
    const past = await client.list({ userId: 'pager', page: 9 });
    expect(past).toEqual({ memories: [], total: 5, page: 9, pageSize: 20 });
  });

  it('list reaches users whose ids look like routes or need encoding', async () => {
    for (const userId of ['recall', 'a/b c?&x=1', 'batch-delete', 'ünïcødé 🐱']) {
      await client.store({ userId, text: `Belongs to ${userId}.` });
      const page = await client.list({ userId });
      expect(page.total).toBe(1);
      expect(page.memories[0]?.text).toBe(`Belongs to ${userId}.`);
    }
  });

  it('recall answers the context string; recallRaw the scored items', async () => {
    await client.store({ userId: 'carol', text: 'Carol is allergic to peanuts.' });
    await client.store({ userId: 'carol', text: 'Carol drives a red bicycle to work.' });
    // Thresholds are the ranker's business (tested with the REST routes); minScore 0 keeps this about the client.
    const query = 'What food is Carol allergic to?';
    const today = new Date().toISOString().slice(0, 10);
    expect(await client.recall({ userId: 'carol', query, limit: 1, minScore: 0 })).toBe(`- [${today}] Carol is allergic to peanuts.`);

    const items = await client.recallRaw({ userId: 'carol', query, minScore: 0 });
    expect(items.map((m) => m.text)).toEqual(['Carol is allergic to peanuts.', 'Carol drives a red bicycle to work.']);
    expect(items[0]?.score).toBeGreaterThan(items[1]?.score ?? 1);
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(['appId', 'createdAt', 'expiresAt', 'id', 'metadata', 'score', 'text', 'updatedAt']);
      expect(item.score).toBeGreaterThanOrEqual(0);
      expect(item.score).toBeLessThanOrEqual(1);
      expect(item.createdAt).toMatch(ISO_MS);
    }
    expect(await client.recallRaw({ userId: 'carol', query, limit: 1, minScore: 0 })).toHaveLength(1);

    expect(await client.recall({ userId: 'carol', query, minScore: 1 })).toBe('');
    expect(await client.recallRaw({ userId: 'nobody-here', query: 'anything' })).toEqual([]);
  });

  it('recall takes a query far longer than a URL should carry (sent by POST)', async () => {
    const query = `What food is Carol allergic to? ${'Please be thorough. '.repeat(600)}`;
    expect(query.length).toBeGreaterThan(10_000);
    const items = await client.recallRaw({ userId: 'carol', query, minScore: 0 });
    expect(items.length).toBeGreaterThan(0);
  });

  it('forget deletes one memory, then reports 0 (idempotent)', async () => {
    const { id } = await client.store({ userId: 'dave', text: 'Dave has two sisters.' });
    expect(await client.forget(id)).toEqual({ deleted: 1 });
    expect(await client.forget(id)).toEqual({ deleted: 0 });
    expect(await client.forget('3f1c2a9e-0000-4000-8000-000000000000')).toEqual({ deleted: 0 });
    expect((await client.list({ userId: 'dave' })).total).toBe(0);
  });

  it('forgetMany deletes several in one call, skipping unknown ids', async () => {
    const a = await client.store({ userId: 'erin', text: 'Erin plays chess.' });
    const b = await client.store({ userId: 'erin', text: 'Erin speaks Welsh.' });
    const c = await client.store({ userId: 'erin', text: 'Erin owns a kayak.' });
    expect(await client.forgetMany([a.id, b.id, 'mem_000000000000'])).toEqual({ deleted: 2 });
    const left = await client.list({ userId: 'erin' });
    expect(left.memories.map((m) => m.id)).toEqual([c.id]);
  });

  it('forgetAll deletes a user\u2019s memories, narrowed by appId when given', async () => {
    await client.store({ userId: 'fay', text: 'Fay likes tea.', appId: 'app-one' });
    await client.store({ userId: 'fay', text: 'Fay likes coffee.', appId: 'app-two' });
    await client.store({ userId: 'fay', text: 'Fay likes cocoa.', appId: 'app-two' });
    await client.store({ userId: 'gus', text: 'Gus likes tea.', appId: 'app-one' });
    expect(await client.forgetAll('fay', { appId: 'app-two' })).toEqual({ deleted: 2 });
    expect((await client.list({ userId: 'fay' })).total).toBe(1);
    expect(await client.forgetAll('fay')).toEqual({ deleted: 1 });
    expect((await client.list({ userId: 'gus' })).total).toBe(1);
  });

  it('get reads one memory; update changes it; a duplicate store answers the existing one', async () => {
    const stored = await client.store({ userId: 'hal', text: 'Hal lives in Seattle.', metadata: { topic: 'home' } });
    expect(await client.store({ userId: 'hal', text: 'Hal  lives in Seattle.' })).toEqual({ ...stored, duplicate: true });
    expect(await client.get(stored.id)).toMatchObject({ id: stored.id, userId: 'hal', text: 'Hal lives in Seattle.', expiresAt: null });
    const updated = await client.update(stored.id, { text: 'Hal moved to Lisbon.', metadata: { topic: 'moves' }, ttlSeconds: 600 });
    expect(updated).toMatchObject({ id: stored.id, createdAt: stored.createdAt, text: 'Hal moved to Lisbon.', metadata: { topic: 'moves' } });
    expect(updated.expiresAt).not.toBeNull();
    await expect(client.get('mem_000000000000')).rejects.toMatchObject({ name: 'NotFoundError', status: 404, code: 'not_found' });
    await expect(client.update(stored.id, {})).rejects.toMatchObject({ name: 'MemoryValidationError' });
    const other = await client.store({ userId: 'hal', text: 'Hal has a dog.' });
    await expect(client.update(other.id, { text: 'Hal moved to Lisbon.' })).rejects.toMatchObject({
      name: 'ConflictError',
      code: 'duplicate_memory',
    });
  });

  it('list, recall and forgetAll take the metadata and time filters', async () => {
    await client.store({ userId: 'ivy', text: 'Ivy went to a jazz concert.', metadata: { topic: 'music' }, createdAt: '2026-01-01T00:00:00Z' });
    await client.store({ userId: 'ivy', text: 'Ivy went to a rock concert.', metadata: { topic: 'music' }, createdAt: '2026-02-01T00:00:00Z' });
    await client.store({ userId: 'ivy', text: 'Ivy reviewed a concert for work.', metadata: { topic: 'work', n: 1 } });
    const music = await client.list({ userId: 'ivy', metadata: { topic: 'music' }, since: '2026-01-15T00:00:00Z' });
    expect(music.memories.map((m) => m.text)).toEqual(['Ivy went to a rock concert.']);
    const work = await client.recallRaw({ userId: 'ivy', query: 'concert', minScore: 0, metadata: { n: 1 } });
    expect(work.map((m) => m.text)).toEqual(['Ivy reviewed a concert for work.']);
    expect(await client.forgetAll('ivy', { metadata: { topic: 'music' }, until: '2026-01-15T00:00:00Z' })).toEqual({ deleted: 1 });
    expect((await client.list({ userId: 'ivy' })).total).toBe(2);
  });

  it('putByKey creates then replaces under one id; getByKey reads; deleteByKey deletes; the client appId applies', async () => {
    const created = await client.putByKey('city', { userId: 'kc', text: 'Kc lives in Oslo.', metadata: { v: 1 } });
    expect(created).toMatchObject({ key: 'city', userId: 'kc', appId: 'default', text: 'Kc lives in Oslo.', metadata: { v: 1 } });
    const replaced = await client.putByKey('city', { userId: 'kc', text: 'Kc moved to Bergen.' });
    expect(replaced).toMatchObject({ id: created.id, createdAt: created.createdAt, text: 'Kc moved to Bergen.', metadata: {} });
    expect(await client.getByKey('city', { userId: 'kc' })).toEqual(replaced);
    expect((await client.list({ userId: 'kc' })).total).toBe(1);
    // A key with characters a URL must encode travels as the one path segment.
    const odd = await client.putByKey('a b?c#d%e', { userId: 'kc', text: 'Odd key.' });
    expect((await client.getByKey('a b?c#d%e', { userId: 'kc' })).id).toBe(odd.id);

    const scoped = new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url, appId: 'notes' });
    const inNotes = await scoped.putByKey('city', { userId: 'kc', text: 'Notes app city.' });
    expect(inNotes.appId).toBe('notes');
    expect(inNotes.id).not.toBe(created.id);
    expect((await scoped.getByKey('city', { userId: 'kc' })).id).toBe(inNotes.id);
    expect(await scoped.deleteByKey('city', { userId: 'kc' })).toEqual({ deleted: 1 });
    expect(await client.deleteByKey('city', { userId: 'kc' })).toEqual({ deleted: 1 });
    expect(await client.deleteByKey('city', { userId: 'kc' })).toEqual({ deleted: 0 });
    await expect(client.getByKey('city', { userId: 'kc' })).rejects.toMatchObject({ name: 'NotFoundError', status: 404, code: 'not_found' });
  });

  it('refuses bad keys before sending anything (MemoryValidationError on the field key)', async () => {
    for (const key of ['', 'a/b', 'x'.repeat(257), 'c\u0001']) {
      await expect(client.putByKey(key, { userId: 'kc', text: 'Never sent.' })).rejects.toMatchObject({
        name: 'MemoryValidationError',
        details: [expect.objectContaining({ path: 'key' })],
      });
      await expect(client.getByKey(key, { userId: 'kc' })).rejects.toMatchObject({ name: 'MemoryValidationError' });
      await expect(client.deleteByKey(key, { userId: 'kc' })).rejects.toMatchObject({ name: 'MemoryValidationError' });
    }
  });
});
