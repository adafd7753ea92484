/**
 * The behaviour every MemoryStore backend owes the core, as one suite: a backend's test file calls
 * `storeContract(name, open)` with a function that opens a fresh, empty store (no model declared yet) and a
 * cleanup for it. Backend-specific checks (files, SQL, outages) stay in the backend's own test files.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryError } from '../../src/core/errors.js';
import { newMemoryId, newUuid } from '../../src/core/ids.js';
import { searchCandidates } from '../../src/core/candidates.js';
import type { AppScope, IdempotencyClaim, KeyedMemory, MemoryScan, MemoryStore, NewMemory } from '../../src/core/store.js';
import type { MemoryRecord } from '../../src/core/types.js';
import { analyzeText, termsOf } from '../../src/core/text/analyze.js';

/** A query word as the word index holds it (its stem), as the ranker's plan hands it to the store. */
function indexTerm(word: string): string {
  return termsOf(analyzeText(word, 'en'))[0] ?? word;
}

export interface OpenedStore {
  store: MemoryStore;
  cleanup: () => Promise<void>;
}

const DIM = 4;
const MODEL = { model: 'test-vectors', dimension: DIM };

export function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values);
  return Float32Array.from(values.map((v) => v / norm));
}

export function storeContract(name: string, open: () => Promise<OpenedStore>): void {
  describe(`MemoryStore contract: ${name}`, () => {
    let opened: OpenedStore;
    let store: MemoryStore;
    let appId: string;

    beforeEach(async () => {
      opened = await open();
      store = opened.store;
      await store.useModel(MODEL);
      appId = (await store.ensureApp('default')).id;
    });
    afterEach(async () => {
      await opened.cleanup();
    });

    function memory(userId: string, text: string, embedding: number[], minute = 0, app = appId): NewMemory {
      return {
        id: newMemoryId(),
        uuid: newUuid(),
        userId,
        appId: app,
        text,
        metadata: {},
        createdAt: new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString(),
        embedding: unit(embedding),
      };
    }

    async function texts(userId: string): Promise<string[]> {
      const { items } = await store.listMemories({ userId, scope: { appId: null }, offset: 0, limit: 100 });
      return items.map((m) => m.text).sort();
    }

    async function collect(scan: MemoryScan): Promise<MemoryRecord[]> {
      const out: MemoryRecord[] = [];
      await store.scanMemories(scan, (page) => {
        out.push(...page.memories);
        return Promise.resolve();
      });
      return out;
    }

    /** Both sides of the search, as recall runs them. */
    async function search(userId: string, terms: string[], options: { embedding?: number[]; vectorK?: number; textK?: number; scope?: AppScope } = {}) {
      const plan = { embedText: '', language: 'en' as const, terms: terms.map(indexTerm), vectorK: options.vectorK ?? 50, textK: options.textK ?? 50, perTerm: 50 };
      const embedding = Promise.resolve(unit(options.embedding ?? [1, 0, 0, 0]));
      return searchCandidates(store, { userId, scope: options.scope ?? { appId: null }, plan, embedding });
    }

    async function recallAll(userId: string, terms: string[]) {
      return search(userId, terms);
    }

    /** The store's lists for query words, given to it as the ranker's plan gives them: index terms (stems). */
    async function wordLists(userId: string, words: string[], perTerm = 50, scope: AppScope = { appId: null }) {
      const lists = await store.findWordMatches({ userId, scope, terms: words.map(indexTerm), perTerm });
      return lists.map((l) => l.ids);
    }

    // ---- Apps ---------------------------------------------------------------------------------------------------

    it('creates an app once even when asked twice at once, and finds it by slug or UUID', async () => {
      const [x, y] = await Promise.all([store.ensureApp('twins'), store.ensureApp('twins')]);
      expect(x).toEqual(y);
      expect(x.slug).toBe('twins');
      expect(await store.findApp('twins')).toEqual(x);
      expect(await store.findApp(x.id.toUpperCase())).toEqual(x);
      expect(await store.findApp('nobody')).toBeUndefined();
      expect(await store.findApp(newUuid())).toBeUndefined();
      expect(x.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    // ---- Memories -----------------------------------------------------------------------------------------------

    it('keeps a memory whole: text, metadata, createdAt and app come back as stored', async () => {
      const m = {
        ...memory('u1', '  Émile said "hi" 👋\nand left  ', [1, 0, 0, 0]),
        metadata: { z: 1, a: { nested: [1, 'two', null, true] }, 'ключ': 'значение', quote: 'it\'s "x" \\ y' },
        createdAt: '2023-05-06T07:08:09.123Z',
      };
      expect(await store.insertMemory(m)).toEqual({ kind: 'created' });
      const byId = await store.getMemory({ kind: 'id', value: m.id }, { appId: null });
      const byUuid = await store.getMemory({ kind: 'uuid', value: m.uuid }, { appId });
      expect(byId).toEqual(byUuid);
      expect(byId).toMatchObject({ id: m.id, uuid: m.uuid, userId: 'u1', text: m.text, createdAt: m.createdAt });
      expect(byId?.metadata).toEqual(m.metadata);
      expect(byId?.app).toEqual(await store.findApp('default'));
      expect(await store.countMemories()).toBe(1);
    });

    it('hides a memory from another app scope', async () => {
      const other = await store.ensureApp('other');
      const m = memory('u1', 'in default', [1, 0, 0, 0]);
      await store.insertMemory(m);
      expect(await store.getMemory({ kind: 'id', value: m.id }, { appId: other.id })).toBeUndefined();
      expect(await store.getMemory({ kind: 'id', value: newMemoryId() }, { appId: null })).toBeUndefined();
      expect(await store.deleteMemories([{ kind: 'id', value: m.id }], { appId: other.id })).toBe(0);
      expect(await store.countMemories()).toBe(1);
    });

    it('lists newest first (then id), pages with a true total, and narrows to an app', async () => {
      const other = await store.ensureApp('other');
      const a = memory('u1', 'a', [1, 0, 0, 0], 1);
      const b = memory('u1', 'b', [1, 0, 0, 0], 2);
      const c = memory('u1', 'c', [1, 0, 0, 0], 2);
      const d = memory('u1', 'd', [1, 0, 0, 0], 3, other.id);
      for (const m of [a, b, c, d, memory('u2', 'x', [1, 0, 0, 0], 9)]) await store.insertMemory(m);
      const tie = [b, c].sort((p, q) => (p.id < q.id ? 1 : -1)).map((m) => m.id);
      const all = await store.listMemories({ userId: 'u1', scope: { appId: null }, offset: 0, limit: 10 });
      expect(all.total).toBe(4);
      expect(all.items.map((m) => m.id)).toEqual([d.id, ...tie, a.id]);
      const page = await store.listMemories({ userId: 'u1', scope: { appId: null }, offset: 1, limit: 2 });
      expect(page.items.map((m) => m.id)).toEqual(tie);
      expect(page.total).toBe(4);
      const past = await store.listMemories({ userId: 'u1', scope: { appId: null }, offset: 50, limit: 10 });
      expect(past).toEqual({ items: [], total: 4 });
      const scoped = await store.listMemories({ userId: 'u1', scope: { appId: other.id }, offset: 0, limit: 10 });
      expect(scoped.items.map((m) => m.id)).toEqual([d.id]);
      expect(scoped.total).toBe(1);
      expect(await store.listMemories({ userId: 'nobody', scope: { appId: null }, offset: 0, limit: 10 })).toEqual({
        items: [],
        total: 0,
      });
    });

    it('lists users, the most recently written to first (then user id byte-wise), paged, with a true total, per app', async () => {
      const other = await store.ensureApp('other');
      // "B" < "a" < "é" byte-wise; b, a and é tie on their newest memory (minute 5), so the tie is broken by id.
      const stored = [
        memory('a', 'a1', [1, 0, 0, 0], 1),
        memory('a', 'a2', [1, 0, 0, 0], 5),
        memory('B', 'b1', [1, 0, 0, 0], 5),
        memory('é', 'e1', [1, 0, 0, 0], 5, other.id),
        memory('old', 'o1', [1, 0, 0, 0], 0),
        memory('new', 'n1', [1, 0, 0, 0], 2),
        memory('new', 'n2', [1, 0, 0, 0], 9, other.id),
      ];
      for (const m of stored) await store.insertMemory(m);
      const at = (minute: number) => new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString();
      const all = await store.listUsers({ scope: { appId: null }, offset: 0, limit: 10 });
      expect(all).toEqual({
        total: 5,
        items: [
          { userId: 'new', memoryCount: 2, newestMemoryAt: at(9) },
          { userId: 'B', memoryCount: 1, newestMemoryAt: at(5) },
          { userId: 'a', memoryCount: 2, newestMemoryAt: at(5) },
          { userId: 'é', memoryCount: 1, newestMemoryAt: at(5) },
          { userId: 'old', memoryCount: 1, newestMemoryAt: at(0) },
        ],
      });
      const page = await store.listUsers({ scope: { appId: null }, offset: 2, limit: 2 });
      expect(page).toEqual({ total: 5, items: all.items.slice(2, 4) });
      expect(await store.listUsers({ scope: { appId: null }, offset: 10, limit: 2 })).toEqual({ total: 5, items: [] });
      const scoped = await store.listUsers({ scope: { appId: other.id }, offset: 0, limit: 10 });
      expect(scoped).toEqual({
        total: 2,
        items: [
          { userId: 'new', memoryCount: 1, newestMemoryAt: at(9) },
          { userId: 'é', memoryCount: 1, newestMemoryAt: at(5) },
        ],
      });
      await store.deleteUserMemories('new', { appId: null });
      expect((await store.listUsers({ scope: { appId: other.id }, offset: 0, limit: 10 })).items.map((u) => u.userId)).toEqual(['é']);
      const empty = await store.ensureApp('empty');
      expect(await store.listUsers({ scope: { appId: empty.id }, offset: 0, limit: 10 })).toEqual({ total: 0, items: [] });
    });

    it('keeps memories and their search entries together through insert and every delete', async () => {
      const a = memory('u1', 'likes hiking in the alps', [1, 0, 0, 0], 1);
      const b = memory('u1', 'owns a red bicycle', [0, 1, 0, 0], 2);
      const c = memory('u2', 'likes hiking too', [1, 0, 0, 0], 3);
      for (const m of [a, b, c]) await store.insertMemory(m);
      expect(await store.countMemories()).toBe(3);
      expect(await store.deleteMemories([{ kind: 'id', value: a.id }], { appId: null })).toBe(1);
      expect((await recallAll('u1', ['hiking'])).map((x) => x.memory.id)).toEqual([b.id]);
      expect(await store.deleteUserMemories('u2', { appId: null })).toBe(1);
      expect(await recallAll('u2', ['hiking'])).toEqual([]);
      expect(await store.deleteMemories([{ kind: 'uuid', value: b.uuid }], { appId })).toBe(1);
      expect(await recallAll('u1', ['bicycle'])).toEqual([]);
      expect(await store.countMemories()).toBe(0);
    });

    it('deletes a batch of ids and UUIDs all at once, skipping unknown ones', async () => {
      const ms = [1, 2, 3].map((i) => memory('u1', `m${i}`, [1, 0, 0, 0], i));
      for (const m of ms) await store.insertMemory(m);
      const [m1, m2] = ms;
      if (!m1 || !m2) throw new Error('setup');
      const deleted = await store.deleteMemories(
        [
          { kind: 'id', value: m1.id },
          { kind: 'uuid', value: m2.uuid },
          { kind: 'id', value: newMemoryId() },
          { kind: 'uuid', value: newUuid() },
        ],
        { appId: null },
      );
      expect(deleted).toBe(2);
      expect(await texts('u1')).toEqual(['m3']);
      expect(await store.deleteMemories([], { appId: null })).toBe(0);
    });

    it("deletes a user's memories, narrowed to one app when asked", async () => {
      const other = await store.ensureApp('other');
      await store.insertMemory(memory('u1', 'default app', [1, 0, 0, 0]));
      await store.insertMemory(memory('u1', 'other app', [1, 0, 0, 0], 1, other.id));
      await store.insertMemory(memory('u2', 'someone else', [1, 0, 0, 0]));
      expect(await store.deleteUserMemories('u1', { appId: other.id })).toBe(1);
      expect(await texts('u1')).toEqual(['default app']);
      expect(await store.deleteUserMemories('u1', { appId: null })).toBe(1);
      expect(await store.deleteUserMemories('u1', { appId: null })).toBe(0);
      expect(await texts('u2')).toEqual(['someone else']);
    });

    it('rolls back the memory when its vector cannot be written', async () => {
      const bad = { ...memory('u1', 'wrong size', [1, 0, 0, 0]), embedding: new Float32Array(DIM + 1).fill(0.5) };
      await expect(store.insertMemory(bad)).rejects.toThrow();
      expect(await store.countMemories()).toBe(0);
      expect(await texts('u1')).toEqual([]);
    });

    // ---- Bulk insert and whole-database moves (import, copy) ------------------------------------------------

    it('inserts a batch at once, searchable, skipping memories whose uuid is stored; a bad batch stores nothing', async () => {
      const batch = [1, 2, 3].map((i) => memory('u1', `hiking trip ${i}`, [1, i / 10, 0, 0], i));
      expect(await store.insertMemories(batch)).toEqual({ inserted: 3 });
      const again = [...batch, memory('u1', 'a fourth one', [0, 1, 0, 0], 4)];
      expect(await store.insertMemories(again)).toEqual({ inserted: 1 });
      expect(await store.insertMemories([])).toEqual({ inserted: 0 });
      expect(await texts('u1')).toEqual(['a fourth one', 'hiking trip 1', 'hiking trip 2', 'hiking trip 3']);
      expect((await wordLists('u1', ['hiking']))[0]).toHaveLength(3);
      // One memory of the wrong dimension fails the batch whole.
      const bad = [memory('u1', 'fine', [1, 0, 0, 0]), { ...memory('u1', 'wrong size', [1, 0, 0, 0]), embedding: new Float32Array(DIM + 1) }];
      await expect(store.insertMemories(bad)).rejects.toThrow();
      // Another memory under a stored id is a clash, not a memory already there: refused, never dropped silently.
      await expect(store.insertMemories([{ ...memory('u1', 'clash', [1, 0, 0, 0]), id: batch[0]!.id }])).rejects.toThrow();
      expect(await store.countMemories()).toBe(4);
    });

    it('lists apps oldest first and imports an app with its own UUID, never moving an existing slug', async () => {
      const other = await store.ensureApp('other');
      // Oldest first; these two may share a millisecond, when the order falls to their (random) UUIDs.
      expect((await store.listApps()).map((a) => a.slug).sort()).toEqual(['default', 'other']);
      const imported = { id: newUuid(), slug: 'imported', createdAt: '2020-02-03T04:05:06.789Z' };
      expect(await store.importApp(imported)).toEqual(imported);
      expect(await store.importApp(imported)).toEqual(imported);
      expect(await store.findApp(imported.id)).toEqual(imported);
      expect((await store.listApps()).map((a) => a.slug)[0]).toBe('imported');
      // A slug that exists keeps its own UUID; a UUID that another slug holds is refused.
      expect(await store.importApp({ id: newUuid(), slug: 'other', createdAt: imported.createdAt })).toEqual(other);
      await expect(store.importApp({ id: other.id, slug: 'renamed', createdAt: imported.createdAt })).rejects.toMatchObject({
        code: 'validation_error',
        message: expect.stringContaining('"other"') as unknown,
      });
      expect(await store.findApp('renamed')).toBeUndefined();
    });

    it('exports every memory whole, vector included, in id order, page by page', async () => {
      const other = await store.ensureApp('other');
      const all = Array.from({ length: 7 }, (_, i) => ({
        ...memory(`u${i % 2}`, `memory ${i} \u00e9 "quoted"`, [1, i, -i / 3, 0.5], i, i % 3 === 0 ? other.id : appId),
        metadata: { i, nested: { list: [i, 'x', null] }, b: true, a: 'first key last' },
        createdAt: `2021-0${1 + (i % 9)}-1${i}T01:02:03.${String(100 + i)}Z`,
        // The lifecycle fields travel too (agent-memory copy): a later update, an expiry ahead.
        updatedAt: `2022-0${1 + (i % 9)}-1${i}T04:05:06.${String(100 + i)}Z`,
        expiresAt: i % 2 === 0 ? null : `2999-01-0${1 + i}T00:00:00.000Z`,
        // A caller's key travels too; null for a memory without one.
        key: i % 3 === 1 ? `key ${i}` : null,
      }));
      // Awkward floats: the export must give back the very float32 values that went in.
      all[0] = { ...all[0]!, embedding: Float32Array.from([1 / 3, -0, 3.4028234663852886e38, -1e-8]) };
      await store.insertMemories(all);
      const pages: string[][] = [];
      const seen = [];
      let after: string | null = null;
      do {
        const page = await store.exportMemories(after, 3);
        pages.push(page.memories.map((m) => m.id));
        seen.push(...page.memories);
        after = page.next;
      } while (after !== null);
      const sorted = [...all].sort((p, q) => (p.id < q.id ? -1 : p.id > q.id ? 1 : 0));
      expect(pages.flat()).toEqual(sorted.map((m) => m.id));
      expect(pages[0]).toHaveLength(3);
      for (const [i, m] of seen.entries()) {
        const want = sorted[i]!;
        expect({ ...m, embedding: Array.from(m.embedding!) }).toEqual({ ...want, embedding: Array.from(want.embedding!) });
        expect(m.embedding).toBeInstanceOf(Float32Array);
      }
      expect(await store.exportMemories(sorted[6]!.id, 3)).toEqual({ memories: [], next: null });
    });

    it('scans every memory oldest first (createdAt, then id), page by page, with the total and the app slug', async () => {
      const other = await store.ensureApp('other');
      const at = (day: number) => `2022-0${day}-01T00:00:00.000Z`;
      // Inserted out of order, across users and apps, with a tie on createdAt that the id settles.
      const all = [
        { ...memory('u2', 'third', [1, 0, 0, 0], 0, other.id), createdAt: at(3) },
        { ...memory('u1', 'first', [1, 0, 0, 0]), createdAt: at(1) },
        { ...memory('u1', 'tie a', [1, 0, 0, 0]), createdAt: at(2) },
        { ...memory('u2', 'tie b', [1, 0, 0, 0]), createdAt: at(2) },
        { ...memory('u1', 'last', [1, 0, 0, 0], 0, other.id), createdAt: at(4) },
      ];
      await store.insertMemories(all);
      const expected = [...all].sort((p, q) => (p.createdAt < q.createdAt ? -1 : p.createdAt > q.createdAt ? 1 : p.id < q.id ? -1 : 1));
      const pages: Array<{ ids: string[]; total: number }> = [];
      const seen = await store.scanMemories({ pageSize: 2 }, async (page) => {
        pages.push({ ids: page.memories.map((m) => m.id), total: page.total });
        await Promise.resolve();
      });
      expect(seen).toBe(5);
      expect(pages.map((p) => p.ids.length)).toEqual([2, 2, 1]);
      expect(pages.every((p) => p.total === 5)).toBe(true);
      expect(pages.flatMap((p) => p.ids)).toEqual(expected.map((m) => m.id));

      const mine: string[] = [];
      const n = await store.scanMemories({ userId: 'u1', pageSize: 10 }, async (page) => {
        expect(page.total).toBe(3);
        mine.push(...page.memories.map((m) => `${m.text}@${m.app.slug}`));
        await Promise.resolve();
      });
      expect(n).toBe(3);
      expect(mine).toEqual(['first@default', 'tie a@default', 'last@other']);
      const [one] = await collect({ userId: 'u2', pageSize: 1 });
      expect(one).toEqual(await store.getMemory({ kind: 'id', value: all[3]!.id }, { appId: null }));
      expect(await store.scanMemories({ userId: 'nobody', pageSize: 10 }, () => Promise.reject(new Error('no page')))).toBe(0);
    });

    it('ends a scan on the error of its page handler, and serves as before afterwards', async () => {
      await store.insertMemories([1, 2, 3].map((i) => memory('u1', `m${i}`, [1, 0, 0, 0], i)));
      // Passed on as it is, even when it looks like a network error (a closed pipe).
      const closedPipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
      await expect(store.scanMemories({ pageSize: 1 }, () => Promise.reject(closedPipe))).rejects.toBe(closedPipe);
      await store.insertMemory(memory('u1', 'after', [1, 0, 0, 0], 9));
      expect((await collect({ pageSize: 2 })).map((m) => m.text)).toEqual(['m1', 'm2', 'm3', 'after']);
    });

    // ---- Recall candidates ------------------------------------------------------------------------------------

    it("finds candidates by vector and by words within one user's memories only", async () => {
      const hiking = memory('u1', 'likes hiking in the alps', [1, 0.1, 0, 0], 1);
      const bike = memory('u1', 'owns a red bicycle', [0, 1, 0, 0], 2);
      const other = memory('u2', 'likes hiking too', [1, 0.1, 0, 0], 3);
      for (const m of [hiking, bike, other]) await store.insertMemory(m);
      const found = await search('u1', ['hiking'], { embedding: [0, 1, 0, 0], vectorK: 1, textK: 5 });
      const byId = new Map(found.map((c) => [c.memory.id, c]));
      expect([...byId.keys()].sort()).toEqual([bike.id, hiking.id].sort());
      expect(byId.get(bike.id)?.cosine).toBeCloseTo(1, 5);
      // The word hit outside the vector top-1 still gets its true cosine.
      expect(byId.get(hiking.id)?.cosine).toBeCloseTo(unit([1, 0.1, 0, 0])[1] ?? 0, 5);
      expect(byId.get(bike.id)?.prevId).toBe(hiking.id);
      expect(byId.get(bike.id)?.nextId).toBeNull();
      expect(byId.get(hiking.id)?.prevId).toBeNull();
      expect(byId.get(hiking.id)?.nextId).toBe(bike.id);
      expect(byId.get(hiking.id)?.memory).toEqual(await store.getMemory({ kind: 'id', value: hiking.id }, { appId: null }));
    });

    it('orders neighbours by time, then by id when memories share a timestamp', async () => {
      const same = ['mem_b', 'mem_a', 'mem_c'].map((id) => ({ ...memory('u1', id, [1, 0, 0, 0], 7), id }));
      for (const m of same) await store.insertMemory(m);
      const found = await store.recallCandidates({ userId: 'u1', scope: { appId: null }, embedding: unit([1, 0, 0, 0]), vectorK: 5, alsoIds: [] });
      const links = found.map((c) => [c.memory.id, c.prevId, c.nextId]).sort((x, y) => String(x[0]).localeCompare(String(y[0])));
      expect(links).toEqual([
        ['mem_a', null, 'mem_b'],
        ['mem_b', 'mem_a', 'mem_c'],
        ['mem_c', 'mem_b', null],
      ]);
    });

    it('lists the memories each term occurs in, most recently stored first, at most perTerm', async () => {
      const garden = [1, 2, 3].map((i) => memory('u1', `the garden, note ${i}`, [0, 0, 1, 0], i));
      for (const m of garden) await store.insertMemory(m);
      await store.insertMemory(memory('u1', 'nothing green here', [0, 0, 0, 1], 4));
      await store.insertMemory(memory('u2', 'their garden', [0, 0, 0, 1], 5));
      const lists = await store.findWordMatches({ userId: 'u1', scope: { appId: null }, terms: ['garden', 'absent', 'green'], perTerm: 2 });
      expect(lists.map((l) => l.term)).toEqual(['garden', 'absent', 'green']);
      expect(lists.map((l) => l.ids)).toEqual([[garden[2]!.id, garden[1]!.id], [], [expect.any(String)]]);
      expect(await wordLists('u1', ['garden'], 10)).toEqual([garden.map((m) => m.id).reverse()]);
      expect(await wordLists('u1', ['garden'], 0)).toEqual([[]]);
      expect(await wordLists('nobody', ['garden'])).toEqual([[]]);
      expect(await store.findWordMatches({ userId: 'u1', scope: { appId: null }, terms: [], perTerm: 5 })).toEqual([]);
    });

    it('matches words through their stems and case, as core\'s analysis gives them', async () => {
      const m = memory('u1', 'We went Hiking in the Alps', [1, 0, 0, 0]);
      await store.insertMemory(m);
      expect(await wordLists('u1', ['hikes', 'alps', 'ALPS'])).toEqual([[m.id], [m.id], [m.id]]);
    });

    it('takes the word side\'s pick beyond the vector top-k, within the scope only', async () => {
      const near = memory('u1', 'close by vector', [1, 0, 0, 0], 1);
      const far = memory('u1', 'far by vector', [0, 0, 0, 1], 2);
      const stranger = memory('u2', 'another user', [1, 0, 0, 0], 3);
      for (const m of [near, far, stranger]) await store.insertMemory(m);
      const found = await store.recallCandidates({
        userId: 'u1',
        scope: { appId: null },
        embedding: unit([1, 0, 0, 0]),
        vectorK: 1,
        alsoIds: [far.id, stranger.id, 'mem_unknown', near.id],
      });
      const byId = new Map(found.map((c) => [c.memory.id, c]));
      expect([...byId.keys()].sort()).toEqual([far.id, near.id].sort());
      expect(byId.get(far.id)?.cosine).toBeCloseTo(0, 5);
      expect(byId.get(near.id)?.cosine).toBeCloseTo(1, 5);
    });

    it('recalls within one app, with neighbours from that app only', async () => {
      const other = await store.ensureApp('other');
      const a = memory('u1', 'alpha in default', [1, 0, 0, 0], 1);
      const b = memory('u1', 'beta in other', [1, 0, 0, 0], 2, other.id);
      const c = memory('u1', 'gamma in default', [1, 0, 0, 0], 3);
      for (const m of [a, b, c]) await store.insertMemory(m);
      expect(await wordLists('u1', ['beta', 'alpha'], 10, { appId })).toEqual([[], [a.id]]);
      const found = await search('u1', ['beta', 'alpha'], { scope: { appId }, vectorK: 10, textK: 10 });
      expect(found.map((x) => x.memory.id).sort()).toEqual([a.id, c.id].sort());
      const byId = new Map(found.map((x) => [x.memory.id, x]));
      expect(byId.get(a.id)?.nextId).toBe(c.id);
      expect(byId.get(c.id)?.prevId).toBe(a.id);
      // The other app's memory, named explicitly, stays out of this app's recall.
      const explicit = await store.recallCandidates({ userId: 'u1', scope: { appId }, embedding: unit([0, 1, 0, 0]), vectorK: 0, alsoIds: [b.id] });
      expect(explicit).toEqual([]);
    });

    it('treats query syntax in terms as plain words', async () => {
      const m = memory('u1', 'quote " and NEAR( stuff', [1, 0, 0, 0]);
      await store.insertMemory(m);
      const nasty = ['"', 'NEAR(', 'AND', '*', 'owner:', "'", "it's", '\\', '|', '&', '!', '<->', ':*', '(', ')', ' ', '\u0000', 'a\u0000b'];
      const lists = await store.findWordMatches({ userId: 'u1', scope: { appId: null }, terms: nasty, perTerm: 5 });
      expect(lists).toHaveLength(nasty.length);
      // Only the word itself matches: no operator took effect (NEAR( matches the word "near").
      for (const l of lists) expect(l.ids.every((id) => id === m.id)).toBe(true);
      expect(await search('u1', nasty, { vectorK: 5, textK: 5 })).toHaveLength(1);
      expect(await recallAll('u1', [])).toHaveLength(1);
      expect(await recallAll('nobody', ['stuff'])).toEqual([]);
    });

    // ---- Idempotency --------------------------------------------------------------------------------------------

    function claim(key: string, requestHash = 'h1', notBefore = '2000-01-01T00:00:00.000Z'): IdempotencyClaim {
      return {
        keyId: 'key_test',
        key,
        requestHash,
        response: JSON.stringify({ key, requestHash }),
        duplicateResponse: (existing) => JSON.stringify({ duplicateOf: existing.id }),
        notBefore,
      };
    }

    it('claims an Idempotency-Key with the insert and replays it afterwards', async () => {
      const first = memory('u1', 'once', [1, 0, 0, 0]);
      expect(await store.insertMemory(first, claim('k1'))).toEqual({ kind: 'created' });
      const again = await store.insertMemory(memory('u1', 'twice', [1, 0, 0, 0]), claim('k1', 'h2'));
      expect(again).toMatchObject({ kind: 'replayed', record: { requestHash: 'h1', response: claim('k1').response } });
      expect(await texts('u1')).toEqual(['once']);
      const found = await store.findIdempotency('key_test', 'k1', '2000-01-01T00:00:00.000Z');
      expect(found).toMatchObject({ requestHash: 'h1', response: claim('k1').response });
      expect(found?.createdAt).toMatch(/Z$/);
      expect(await store.findIdempotency('key_test', 'unknown', '2000-01-01T00:00:00.000Z')).toBeUndefined();
      expect(await store.findIdempotency('key_other', 'k1', '2000-01-01T00:00:00.000Z')).toBeUndefined();
    });

    it('stores one memory when two inserts race with one Idempotency-Key', async () => {
      const outcomes = await Promise.all(
        ['first', 'second', 'third'].map((text) => store.insertMemory(memory('u1', text, [1, 0, 0, 0]), claim('race'))),
      );
      expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'replayed')).toHaveLength(2);
      expect(await store.countMemories()).toBe(1);
    });

    it('forgets an expired claim and lets the key be used again', async () => {
      await store.insertMemory(memory('u1', 'old', [1, 0, 0, 0]), claim('k2'));
      const later = '2999-01-01T00:00:00.000Z';
      expect(await store.findIdempotency('key_test', 'k2', later)).toBeUndefined();
      await store.insertMemory(memory('u1', 'older', [1, 0, 0, 0]), claim('k3'));
      expect(await store.insertMemory(memory('u1', 'new', [1, 0, 0, 0]), claim('k3', 'h9', later))).toEqual({ kind: 'created' });
      expect(await texts('u1')).toEqual(['new', 'old', 'older']);
    });

    it('prunes expired claims in bounded batches and keeps the live ones', async () => {
      for (const key of ['old-1', 'old-2', 'old-3']) await store.insertMemory(memory('u1', key, [1, 0, 0, 0]), claim(key));
      await new Promise((resolve) => setTimeout(resolve, 5));
      const cutoff = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.insertMemory(memory('u1', 'live', [1, 0, 0, 0]), claim('live'));
      const since = '2000-01-01T00:00:00.000Z';
      expect(await store.pruneIdempotency(cutoff, 2)).toBe(2);
      expect(await store.pruneIdempotency(cutoff, 2)).toBe(1);
      expect(await store.pruneIdempotency(cutoff, 2)).toBe(0);
      for (const key of ['old-1', 'old-2', 'old-3']) expect(await store.findIdempotency('key_test', key, since)).toBeUndefined();
      expect(await store.findIdempotency('key_test', 'live', since)).toMatchObject({ requestHash: 'h1' });
      // The memories stay: only the claims expire.
      expect(await store.countMemories()).toBe(4);
    });

    // ---- A memory's life: duplicates, expiry, updates, filters --------------------------------------------------

    const PAST = '2020-01-01T00:00:00.000Z';
    const FUTURE = '2999-01-01T00:00:00.000Z';
    const ids = (items: Array<{ id: string }>) => items.map((m) => m.id).sort();

    it('answers the live memory that holds the same normalised text instead of storing a copy', async () => {
      const other = await store.ensureApp('other');
      const first = memory('u1', 'Dan likes jazz.', [1, 0, 0, 0], 1);
      expect(await store.insertMemory(first)).toEqual({ kind: 'created' });
      const again = await store.insertMemory(memory('u1', '  Dan   likes\n jazz. ', [0, 1, 0, 0], 2));
      expect(again).toMatchObject({ kind: 'duplicate', memory: { id: first.id, text: 'Dan likes jazz.', updatedAt: first.createdAt } });
      // Case, another app and another user are not duplicates.
      expect(await store.insertMemory(memory('u1', 'dan likes jazz.', [1, 0, 0, 0]))).toEqual({ kind: 'created' });
      expect(await store.insertMemory(memory('u1', 'Dan likes jazz.', [1, 0, 0, 0], 3, other.id))).toEqual({ kind: 'created' });
      expect(await store.insertMemory(memory('u2', 'Dan likes jazz.', [1, 0, 0, 0]))).toEqual({ kind: 'created' });
      expect(await store.countMemories()).toBe(4);
    });

    it('stores one copy when duplicates race, and records the duplicate answer for an Idempotency-Key', async () => {
      const racers = Array.from({ length: 6 }, (_, i) => memory('u1', 'raced fact', [1, i, 0, 0], i));
      const outcomes = await Promise.all(racers.map((m) => store.insertMemory(m)));
      const created = outcomes.filter((o) => o.kind === 'created');
      expect(created).toHaveLength(1);
      const winner = racers[outcomes.findIndex((o) => o.kind === 'created')]!;
      for (const o of outcomes) if (o.kind === 'duplicate') expect(o.memory.id).toBe(winner.id);
      expect(await texts('u1')).toEqual(['raced fact']);
      const keyed = await store.insertMemory(memory('u1', 'raced  fact', [1, 0, 0, 0]), claim('dup-key'));
      expect(keyed).toMatchObject({ kind: 'duplicate', memory: { id: winner.id } });
      const replay = await store.insertMemory(memory('u1', 'raced  fact', [1, 0, 0, 0]), claim('dup-key'));
      expect(replay).toMatchObject({ kind: 'replayed', record: { response: JSON.stringify({ duplicateOf: winner.id }) } });
    });

    it('hides expired memories from every read and delete, purges them in bounded batches with their search entries', async () => {
      const live = { ...memory('u1', 'live hiking fact', [1, 0, 0, 0], 1), expiresAt: FUTURE };
      const gone = { ...memory('u1', 'expired hiking fact', [1, 0, 0, 0], 2), expiresAt: PAST };
      const forever = memory('u1', 'forever hiking fact', [1, 0, 0, 0], 3);
      await store.insertMemories([live, gone, forever]);
      expect((await store.getMemory({ kind: 'id', value: live.id }, { appId: null }))?.expiresAt).toBe(FUTURE);
      expect(await store.getMemory({ kind: 'id', value: gone.id }, { appId: null })).toBeUndefined();
      expect(await texts('u1')).toEqual(['forever hiking fact', 'live hiking fact']);
      expect(ids((await recallAll('u1', ['hiking'])).map((c) => c.memory))).toEqual(ids([live, forever]));
      // "now" is the reader's: at a later instant the live one has expired too.
      const later = await store.listMemories({ userId: 'u1', scope: { appId: null }, offset: 0, limit: 10, filter: { now: '3000-01-01T00:00:00.000Z' } });
      expect(later.items.map((m) => m.id)).toEqual([forever.id]);
      // The expired copy does not block storing the text again.
      expect(await store.insertMemory(memory('u1', 'expired hiking fact', [1, 0, 0, 0], 4))).toEqual({ kind: 'created' });
      expect(await store.deleteMemories([{ kind: 'id', value: gone.id }], { appId: null })).toBe(0);
      expect(await store.countMemories()).toBe(4);
      expect(await store.purgeExpired(new Date().toISOString(), 10)).toBe(1);
      expect(await store.countMemories()).toBe(3);
      const many = Array.from({ length: 5 }, (_, i) => ({ ...memory('u3', `old ${i}`, [1, 0, 0, 0], i), expiresAt: PAST }));
      await store.insertMemories(many);
      // A user whose memories have all expired has none to list.
      const users = await store.listUsers({ scope: { appId: null }, offset: 0, limit: 10 });
      expect(users.items.map((u) => [u.userId, u.memoryCount])).toEqual([['u1', 3]]);
      expect(users.total).toBe(1);
      expect(await store.purgeExpired(new Date().toISOString(), 2)).toBe(2);
      expect(await store.purgeExpired(new Date().toISOString(), 10)).toBe(3);
      expect(await store.purgeExpired(new Date().toISOString(), 10)).toBe(0);
      expect(await store.countMemories()).toBe(3);
    });

    it('updates text with its vector and words, metadata with its filter entries, and expiry, keeping id and createdAt', async () => {
      const m = { ...memory('u1', 'Maria lives in Seattle', [1, 0, 0, 0], 1), metadata: { topic: 'home' } };
      await store.insertMemory(m);
      const now = new Date().toISOString();
      const ref = { kind: 'uuid', value: m.uuid } as const;
      const outcome = await store.updateMemory(ref, { appId }, {
        text: { text: 'Maria moved to Lisbon', embedding: unit([0, 0, 1, 0]) },
        metadata: { topic: 'moves', year: 2026 },
        expiresAt: FUTURE,
        updatedAt: '2026-03-02T10:00:00.000Z',
        now,
      });
      expect(outcome).toMatchObject({
        kind: 'updated',
        memory: { id: m.id, createdAt: m.createdAt, updatedAt: '2026-03-02T10:00:00.000Z', expiresAt: FUTURE, text: 'Maria moved to Lisbon' },
      });
      expect(await wordLists('u1', ['seattle', 'lisbon'])).toEqual([[], [m.id]]);
      const found = await search('u1', [], { embedding: [0, 0, 1, 0] });
      expect(found.map((c) => [c.memory.id, Math.round(c.cosine * 1000) / 1000])).toEqual([[m.id, 1]]);
      const byTopic = (topic: string) =>
        store.listMemories({ userId: 'u1', scope: { appId: null }, offset: 0, limit: 10, filter: { metadata: { topic } } });
      expect((await byTopic('home')).total).toBe(0);
      expect((await byTopic('moves')).total).toBe(1);
      // Only the expiry, then cleared: the rest stays.
      const cleared = await store.updateMemory(ref, { appId: null }, { expiresAt: null, updatedAt: '2026-03-03T00:00:00.000Z', now });
      expect(cleared).toMatchObject({ kind: 'updated', memory: { expiresAt: null, text: 'Maria moved to Lisbon', metadata: { topic: 'moves', year: 2026 } } });
      expect(await store.countMemories()).toBe(1);
    });

    it('upserts by caller key: creates, then replaces text with its vector and words, metadata and expiry under one id', async () => {
      const now = () => new Date().toISOString();
      const keyed = (text: string, embedding: number[], extra: Partial<KeyedMemory> = {}): KeyedMemory => ({ ...memory('u1', text, embedding, 1), key: 'home', ...extra });
      const first = await store.upsertMemory(keyed('Maria lives in Seattle', [1, 0, 0, 0], { metadata: { topic: 'home' }, expiresAt: FUTURE }), now());
      expect(first).toMatchObject({ kind: 'created', memory: { key: 'home', text: 'Maria lives in Seattle', expiresAt: FUTURE } });
      const at = now();
      const second = await store.upsertMemory(keyed('Maria moved to Lisbon', [0, 0, 1, 0], { metadata: { topic: 'moves' } }), at);
      expect(second).toMatchObject({
        kind: 'updated',
        memory: { id: first.memory.id, createdAt: first.memory.createdAt, updatedAt: at, key: 'home', text: 'Maria moved to Lisbon', expiresAt: null },
      });
      expect(await wordLists('u1', ['seattle', 'lisbon'])).toEqual([[], [first.memory.id]]);
      const found = await search('u1', [], { embedding: [0, 0, 1, 0] });
      expect(found.map((c) => [c.memory.id, Math.round(c.cosine * 1000) / 1000])).toEqual([[first.memory.id, 1]]);
      const byTopic = (topic: string) => store.listMemories({ userId: 'u1', scope: { appId: null }, offset: 0, limit: 10, filter: { metadata: { topic } } });
      expect((await byTopic('home')).total).toBe(0);
      expect((await byTopic('moves')).total).toBe(1);
      const slot = { userId: 'u1', appId, key: 'home' };
      expect((await store.getMemoryByKey(slot, now()))?.id).toBe(first.memory.id);
      expect(await store.getMemoryByKey({ ...slot, userId: 'u2' }, now())).toBeUndefined();
      // An unkeyed store of its text is its duplicate; a keyed one under another key is not held to that rule.
      expect(await store.insertMemory(memory('u1', 'Maria moved to Lisbon', [0, 1, 0, 0], 2))).toMatchObject({ kind: 'duplicate', memory: { id: first.memory.id } });
      const other = await store.upsertMemory({ ...keyed('Maria moved to Lisbon', [0, 0, 1, 0]), key: 'again' }, now());
      expect(other.kind).toBe('created');
      expect((await store.upsertMemory({ ...keyed('Other user', [0, 1, 0, 0]), userId: 'u2' }, now())).kind).toBe('created');
      expect(await store.countMemories()).toBe(3);
      expect(await store.deleteMemoryByKey(slot, now())).toBe(1);
      expect(await store.deleteMemoryByKey(slot, now())).toBe(0);
      expect(await wordLists('u1', ['lisbon'])).toEqual([[other.memory.id]]);
      expect(await store.countMemories()).toBe(2);
    });

    it('gives an expired key holder\'s key to a new memory, and settles racing upserts of one key to one memory', async () => {
      const expired = { ...memory('u1', 'Old code 1234', [1, 0, 0, 0], 1), key: 'code', expiresAt: '2000-01-01T00:00:00.000Z' };
      await store.insertMemories([expired]);
      const slot = { userId: 'u1', appId, key: 'code' };
      expect(await store.getMemoryByKey(slot, new Date().toISOString())).toBeUndefined();
      expect((await store.findKeyHolder(slot))?.id).toBe(expired.id);
      expect(await store.deleteMemoryByKey(slot, new Date().toISOString())).toBe(0);
      const fresh = await store.upsertMemory({ ...memory('u1', 'New code 9876', [0, 1, 0, 0], 2), key: 'code' }, new Date().toISOString());
      expect(fresh).toMatchObject({ kind: 'created', memory: { expiresAt: null, text: 'New code 9876' } });
      expect(fresh.memory.id).not.toBe(expired.id);
      expect(await wordLists('u1', ['1234', '9876'])).toEqual([[], [fresh.memory.id]]);

      const raced = await Promise.all(
        Array.from({ length: 6 }, (_, i) => store.upsertMemory({ ...memory('u3', `Value ${i}`, [1, i, 0, 0], i), key: 'one' }, new Date().toISOString())),
      );
      expect(raced.filter((o) => o.kind === 'created')).toHaveLength(1);
      expect(new Set(raced.map((o) => o.memory.id)).size).toBe(1);
      expect((await store.listMemories({ userId: 'u3', scope: { appId: null }, offset: 0, limit: 10 })).total).toBe(1);
    });

    it('refuses to update a memory out of scope, expired or unknown, and a text another live memory holds', async () => {
      const other = await store.ensureApp('other');
      const a = memory('u1', 'first fact', [1, 0, 0, 0], 1);
      const b = memory('u1', 'second fact', [0, 1, 0, 0], 2);
      const old = { ...memory('u1', 'old fact', [0, 1, 0, 0], 3), expiresAt: PAST };
      await store.insertMemories([a, b, old]);
      const now = new Date().toISOString();
      const change = { metadata: { x: 1 }, updatedAt: now, now };
      expect(await store.updateMemory({ kind: 'id', value: a.id }, { appId: other.id }, change)).toEqual({ kind: 'not_found' });
      expect(await store.updateMemory({ kind: 'id', value: old.id }, { appId: null }, change)).toEqual({ kind: 'not_found' });
      expect(await store.updateMemory({ kind: 'id', value: newMemoryId() }, { appId: null }, change)).toEqual({ kind: 'not_found' });
      const clash = await store.updateMemory({ kind: 'id', value: b.id }, { appId: null }, {
        text: { text: ' first   fact', embedding: unit([1, 0, 0, 0]) },
        updatedAt: now,
        now,
      });
      expect(clash).toMatchObject({ kind: 'duplicate', memory: { id: a.id } });
      expect((await store.getMemory({ kind: 'id', value: b.id }, { appId: null }))?.text).toBe('second fact');
      // Its own text, re-spaced, is no clash.
      const same = await store.updateMemory({ kind: 'id', value: b.id }, { appId: null }, {
        text: { text: 'second  fact', embedding: unit([0, 1, 0, 0]) },
        updatedAt: now,
        now,
      });
      expect(same).toMatchObject({ kind: 'updated', memory: { text: 'second  fact' } });
    });

    it('filters list, delete-all and both sides of recall by metadata (exact, typed) and creation time', async () => {
      const other = await store.ensureApp('other');
      const tagged = (text: string, metadata: Record<string, unknown>, minute: number, embedding = [1, 0, 0, 0], app = appId) => ({
        ...memory('u1', text, embedding, minute, app),
        metadata,
      });
      const jazz = tagged('jazz concert friday', { topic: 'music', stars: 5 }, 1);
      const rock = tagged('rock concert saturday', { topic: 'music', stars: '5' }, 2);
      const work = tagged('work concert review', { topic: 'work', stars: 5.0, nested: { deep: 1 } }, 3, [1, 0, 0, 0], other.id);
      const untagged = tagged('plain concert note', {}, 4);
      await store.insertMemories([jazz, rock, work, untagged]);
      const list = async (filter: Record<string, unknown>, scope: AppScope = { appId: null }) =>
        ids((await store.listMemories({ userId: 'u1', scope, offset: 0, limit: 10, filter })).items);
      expect(await list({ metadata: { topic: 'music' } })).toEqual(ids([jazz, rock]));
      expect(await list({ metadata: { stars: 5 } })).toEqual(ids([jazz, work]));
      expect(await list({ metadata: { stars: '5' } })).toEqual(ids([rock]));
      expect(await list({ metadata: { topic: 'music', stars: 5 } })).toEqual(ids([jazz]));
      expect(await list({ metadata: { topic: 'nothing' } })).toEqual([]);
      expect(await list({ metadata: { stars: 5 } }, { appId: other.id })).toEqual(ids([work]));
      const minute = (n: number) => new Date(Date.UTC(2024, 0, 1, 0, n)).toISOString();
      expect(await list({ since: minute(2) })).toEqual(ids([rock, work, untagged]));
      expect(await list({ until: minute(2) })).toEqual(ids([jazz]));
      expect(await list({ since: minute(2), until: minute(4), metadata: { stars: 5 } })).toEqual(ids([work]));
      const page = await store.listMemories({ userId: 'u1', scope: { appId: null }, offset: 0, limit: 1, filter: { metadata: { topic: 'music' } } });
      expect(page.total).toBe(2);

      const plan = { embedText: '', language: 'en' as const, terms: ['concert'], vectorK: 50, textK: 50, perTerm: 50 };
      const recall = async (filter: Record<string, unknown>) =>
        ids(
          (await searchCandidates(store, { userId: 'u1', scope: { appId: null }, plan, embedding: Promise.resolve(unit([1, 0, 0, 0])), filter })).map(
            (c) => c.memory,
          ),
        );
      expect(await recall({ metadata: { topic: 'music' } })).toEqual(ids([jazz, rock]));
      expect(await recall({ since: minute(3) })).toEqual(ids([work, untagged]));
      expect(await store.deleteUserMemories('u1', { appId: null }, { metadata: { topic: 'music' } })).toBe(2);
      expect(await texts('u1')).toEqual(['plain concert note', 'work concert review']);
      expect(await store.deleteUserMemories('u1', { appId: null }, { until: minute(4) })).toBe(1);
      expect(await texts('u1')).toEqual(['plain concert note']);
    });

    it("finds a filtered memory by vector even when everybody else's are nearer", async () => {
      const near = Array.from({ length: 400 }, (_, i) => memory('u1', `near ${i}`, [1, 0.01 * (i % 7), 0.001 * i, 0], i % 60));
      const far = { ...memory('u1', 'the far one', [0, 0, 0, 1], 61), metadata: { pick: true } };
      await store.insertMemories([...near, far]);
      const plan = { embedText: '', language: 'en' as const, terms: [], vectorK: 5, textK: 5, perTerm: 5 };
      const found = await searchCandidates(store, {
        userId: 'u1',
        scope: { appId: null },
        plan,
        embedding: Promise.resolve(unit([1, 0, 0, 0])),
        filter: { metadata: { pick: true } },
      });
      expect(found.map((c) => c.memory.id)).toEqual([far.id]);
    });

    // ---- API keys -----------------------------------------------------------------------------------------------

    it('creates, finds, lists, counts and revokes API keys', async () => {
      const app = await store.ensureApp('bound');
      const unbound = await store.createKey({
        id: 'key_AAAAAAAAAAAA',
        prefix: 'amk_AAAA',
        hash: 'a'.repeat(64),
        appId: null,
        label: null,
        createdAt: '2024-01-01T00:00:00.000Z',
        revokedAt: null,
      });
      expect(unbound).toEqual({
        id: 'key_AAAAAAAAAAAA',
        prefix: 'amk_AAAA',
        hash: 'a'.repeat(64),
        app: null,
        label: null,
        createdAt: '2024-01-01T00:00:00.000Z',
        revokedAt: null,
      });
      const bound = await store.createKey({
        id: 'key_BBBBBBBBBBBB',
        prefix: 'amk_BBBB',
        hash: 'b'.repeat(64),
        appId: app.id,
        label: 'ci',
        createdAt: '2024-01-02T00:00:00.000Z',
        revokedAt: null,
      });
      expect(bound.app).toEqual(app);
      expect(await store.findKeyByHash('b'.repeat(64))).toEqual(bound);
      expect(await store.findKeyByHash('c'.repeat(64))).toBeUndefined();
      expect((await store.listKeys()).map((k) => k.id)).toEqual([unbound.id, bound.id]);
      expect(await store.countKeys()).toBe(2);
      expect(await store.revokeKey(bound.id, '2024-02-01T00:00:00.000Z')).toBe(true);
      expect(await store.revokeKey(bound.id, '2024-03-01T00:00:00.000Z')).toBe(true);
      expect((await store.findKeyByHash('b'.repeat(64)))?.revokedAt).toBe('2024-02-01T00:00:00.000Z');
      expect(await store.revokeKey('key_CCCCCCCCCCCC', '2024-02-01T00:00:00.000Z')).toBe(false);
      expect(await store.countKeys()).toBe(1);
    });

    // ---- Reembed's swap ----------------------------------------------------------------------------------------

    /** A memory stored while the embedding endpoint was down: no vector yet. */
    function pending(userId: string, text: string, minute = 0): NewMemory {
      return { ...memory(userId, text, [1, 0, 0, 0], minute), embedding: null };
    }

    it('keeps a memory without its vector (pending): found by its words with no cosine, never by the vector side', async () => {
      await store.insertMemory(memory('u1', 'the cat sleeps', [1, 0, 0, 0], 1));
      const waiting = pending('u1', 'the dog barks', 2);
      await store.insertMemory(waiting);
      expect(await store.countPendingVectors()).toBe(1);
      const read = await store.getMemory({ kind: 'id', value: waiting.id }, { appId: null });
      expect(read?.vectorPending).toBe(true);
      expect((await store.listMemories({ userId: 'u1', scope: { appId: null }, offset: 0, limit: 10 })).items.map((m) => m.vectorPending)).toEqual([true, undefined]);
      // The vector side returns only memories with a vector, however short of k it is.
      const byVector = await search('u1', [], { embedding: [0, 0, 0, 1], vectorK: 10 });
      expect(byVector.map((c) => c.memory.text)).toEqual(['the cat sleeps']);
      const byWords = await search('u1', ['dog'], { vectorK: 0 });
      expect(byWords.map((c) => [c.memory.text, c.cosine, c.memory.vectorPending])).toEqual([['the dog barks', 0, true]]);
      // Moved as pending: a copy's target backfills it.
      const exported = await store.exportMemories(null, 10);
      expect(exported.memories.find((m) => m.id === waiting.id)?.embedding).toBeNull();
    });

    it('claims pending memories once per lease, gives claims back, and fills only those still holding the embedded text', async () => {
      const [a, b, c] = [pending('u1', 'alpha one', 1), pending('u1', 'beta two', 2), pending('u2', 'gamma three', 3)];
      await store.insertMemories([a, b, c]);
      const first = await store.claimPendingVectors(2, 60_000);
      const second = await store.claimPendingVectors(10, 60_000);
      // Oldest change first; no memory in two claims.
      expect(first.map((m) => m.text)).toEqual(['alpha one', 'beta two']);
      expect(second.map((m) => m.text)).toEqual(['gamma three']);
      expect(await store.claimPendingVectors(10, 60_000)).toEqual([]);
      await store.releasePendingVectors([c.id]);
      expect((await store.claimPendingVectors(10, 0)).map((m) => m.id)).toEqual([c.id]);
      // A lease of 0 has run out: the memory may be claimed again (its worker died).
      expect((await store.claimPendingVectors(10, 60_000)).map((m) => m.id)).toEqual([c.id]);

      // beta's text changes while its vector is being made: the stale vector is not written, and beta stays pending.
      const now = new Date().toISOString();
      await store.updateMemory({ kind: 'id', value: b.id }, { appId: null }, { text: { text: 'beta changed', embedding: null }, updatedAt: now, now });
      const filled = await store.fillPendingVectors([
        { id: a.id, text: 'alpha one', embedding: unit([0, 1, 0, 0]) },
        { id: b.id, text: 'beta two', embedding: unit([0, 0, 1, 0]) },
      ]);
      expect(filled).toBe(1);
      expect(await store.countPendingVectors()).toBe(2);
      expect((await store.getMemory({ kind: 'id', value: a.id }, { appId: null }))?.vectorPending).toBeUndefined();
      expect((await store.getMemory({ kind: 'id', value: b.id }, { appId: null }))?.vectorPending).toBe(true);
      // The update voided beta's claim: it is free for its own vector.
      expect((await store.claimPendingVectors(10, 60_000)).map((m) => m.text)).toEqual(['beta changed']);
      const found = await search('u1', [], { embedding: [0, 1, 0, 0], vectorK: 1 });
      expect(found.map((c) => [c.memory.text, c.cosine])).toEqual([['alpha one', expect.closeTo(1, 5)]]);
      // A second fill of the same memory (another worker after the lease ran out) writes nothing.
      expect(await store.fillPendingVectors([{ id: a.id, text: 'alpha one', embedding: unit([1, 0, 0, 0]) }])).toBe(0);
      // An update with a vector ends the wait; a pending upsert starts one.
      await store.updateMemory({ kind: 'id', value: b.id }, { appId: null }, { text: { text: 'beta final', embedding: unit([1, 1, 0, 0]) }, updatedAt: now, now });
      expect(await store.countPendingVectors()).toBe(1);
      const keyed = await store.upsertMemory({ ...pending('u3', 'keyed text'), key: 'k1' }, now);
      expect(keyed.memory.vectorPending).toBe(true);
      const replaced = await store.upsertMemory({ ...memory('u3', 'keyed again', [1, 0, 0, 0]), key: 'k1' }, now);
      expect(replaced.memory.vectorPending).toBeUndefined();
      expect(await store.countPendingVectors()).toBe(1);
    });

    const NEXT = { model: 'next-vectors', dimension: 6 };

    /** A vector of the next model: 6 dimensions, distinct per text. */
    function nextVector(text: string): Float32Array {
      const codes = [...text].map((c) => c.charCodeAt(0));
      return unit(Array.from({ length: NEXT.dimension }, (_, i) => 1 + ((codes[i % codes.length] ?? 0) % 7) + i));
    }

    it('swaps in vectors of another model and dimension, embedding what was stored since, in one go', async () => {
      const stored = [memory('u1', 'alpha', [1, 0, 0, 0], 1), memory('u1', 'beta', [0, 1, 0, 0], 2), memory('u2', 'gamma', [0, 0, 1, 0], 3)];
      await store.insertMemories(stored);
      const vectors = new Map(stored.slice(0, 2).map((m) => [m.id, nextVector(m.text)]));
      vectors.set(newMemoryId(), nextVector('a memory deleted meanwhile'));
      const asked: Array<{ id: string; text: string }> = [];
      const { memories } = await store.replaceEmbeddings({
        model: NEXT,
        vectors,
        embedMissing(missing) {
          asked.push(...missing);
          return Promise.resolve(missing.map((m) => nextVector(m.text)));
        },
      });
      expect(memories).toBe(3);
      expect(asked).toEqual([{ id: stored[2]!.id, text: 'gamma' }]);
      expect(await store.getModel()).toEqual(NEXT);
      // A node still on the old model is refused; one on the new model is welcome.
      await expect(store.useModel(MODEL)).rejects.toThrow(/reembed/);
      await store.useModel(NEXT);
      const exported = await store.exportMemories(null, 10);
      for (const m of exported.memories) expect(Array.from(m.embedding!)).toEqual(Array.from(nextVector(m.text)));
      const [alpha] = await store.findWordMatches({ userId: 'u1', scope: { appId: null }, terms: ['alpha'], perTerm: 5 });
      expect(alpha?.ids).toHaveLength(1);
      const found = await store.recallCandidates({
        userId: 'u1',
        scope: { appId: null },
        embedding: nextVector('beta'),
        vectorK: 1,
        alsoIds: alpha?.ids ?? [],
      });
      const byText = new Map(found.map((c) => [c.memory.text, c]));
      expect(byText.get('beta')?.cosine).toBeCloseTo(1, 5);
      const [a, b] = [nextVector('alpha'), nextVector('beta')];
      expect(byText.get('alpha')?.cosine).toBeCloseTo(a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0), 5);
      // New memories take the new dimension only.
      await store.insertMemory({ ...memory('u1', 'delta', [1, 0, 0, 0], 4), embedding: nextVector('delta') });
      await expect(store.insertMemory(memory('u1', 'old size', [1, 0, 0, 0], 5))).rejects.toThrow();
      expect(await store.countMemories()).toBe(4);
    });

    it('leaves the old model and vectors whole when the swap fails', async () => {
      const stored = [memory('u1', 'alpha', [1, 0, 0, 0], 1), memory('u1', 'beta', [0, 1, 0, 0], 2)];
      await store.insertMemories(stored);
      const failures = [
        // The model fails on what was stored meanwhile.
        { vectors: new Map([[stored[0]!.id, nextVector('alpha')]]), embedMissing: () => Promise.reject(new Error('model crashed')) },
        // A vector of the wrong dimension.
        {
          vectors: new Map(stored.map((m) => [m.id, m.text === 'beta' ? unit([1, 1, 1]) : nextVector(m.text)])),
          embedMissing: () => Promise.resolve([]),
        },
      ];
      for (const failure of failures) {
        const before = await store.exportMemories(null, 10);
        await expect(store.replaceEmbeddings({ model: NEXT, ...failure })).rejects.toThrow();
        expect(await store.getModel()).toEqual(MODEL);
        expect(await store.exportMemories(null, 10)).toEqual(before);
        const found = await search('u1', [], { embedding: [0, 1, 0, 0] });
        expect(found.find((c) => c.memory.text === 'beta')?.cosine).toBeCloseTo(1, 5);
        await store.insertMemory(memory('u1', `still writable ${failures.indexOf(failure)}`, [1, 0, 0, 0], 9));
      }
      expect(await store.countMemories()).toBe(4);
    });

    // ---- Model, health, lifecycle -------------------------------------------------------------------------------

    it('records the model and refuses another one', async () => {
      expect(await store.getModel()).toEqual(MODEL);
      await store.useModel(MODEL);
      const refused = store.useModel({ model: 'model-b', dimension: 16 });
      await expect(refused).rejects.toBeInstanceOf(MemoryError);
      await expect(store.useModel({ model: 'model-b', dimension: DIM })).rejects.toMatchObject({ code: 'unavailable' });
      await expect(store.useModel({ model: 'model-b', dimension: DIM })).rejects.toThrow(/reembed/);
      expect(await store.getModel()).toEqual(MODEL);
    });

    it('answers ping, and refuses work once closed', async () => {
      expect(await store.ping()).toBe(true);
      expect(typeof store.capabilities.backend).toBe('string');
      await store.close();
      await store.close();
      await expect(store.countMemories()).rejects.toMatchObject({ code: 'unavailable' });
    });
  });
}
