import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newMemoryId, newUuid } from '../../../src/core/ids.js';
import type { NewMemory } from '../../../src/core/store.js';
import { openDatabase } from '../../../src/storage/sqlite/connection.js';
import { hammingTable, jsHammingTable } from '../../../src/storage/sqlite/hamming.js';
import { migrate } from '../../../src/storage/sqlite/migrations.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';
import { CENTER_FIRST, candidateCount, searchVectors, vectorOf } from '../../../src/storage/sqlite/vector-search.js';
import { DIM, exactTop, near, rng, unitVector } from './vectors.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-vectors-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function openStore(path = join(dir, 'v.db'), dimension = DIM) {
  const store = SqliteStore.open({ path });
  await store.useModel({ model: 'test-vectors', dimension });
  return store;
}

type VectorMemory = NewMemory & { embedding: Float32Array };

function memory(userId: string, appId: string, embedding: Float32Array, n: number): VectorMemory {
  return {
    id: newMemoryId(),
    uuid: newUuid(),
    userId,
    appId,
    text: `memory ${n}`,
    metadata: {},
    createdAt: new Date(Date.UTC(2024, 0, 1) + n * 1000).toISOString(),
    embedding,
  };
}

function rowidsOf(store: SqliteStore, userId: string): Map<string, number> {
  const rows = store.database.prepare('SELECT id, rowid FROM memories WHERE user_id = ?').all(userId) as Array<{ id: string; rowid: number }>;
  return new Map(rows.map((r) => [r.id, r.rowid]));
}

describe('hamming tables', () => {
  it('WebAssembly and JS agree for every code length', () => {
    const next = rng(7);
    for (const words of [1, 2, 3, 16, 24]) {
      const count = 4099;
      const codes = Uint32Array.from({ length: count * words }, () => Math.floor(next() * 2 ** 32));
      const q = Uint32Array.from({ length: words }, () => Math.floor(next() * 2 ** 32));
      const fast = Array.from(hammingTable(codes, words, count).distances(q));
      const reference = Array.from(jsHammingTable(codes, words, count).distances(q));
      expect(fast).toEqual(reference);
      // Popcount itself, on the first code.
      let bits = 0;
      for (let w = 0; w < words; w++) bits += (((codes[w] ?? 0) ^ (q[w] ?? 0)) >>> 0).toString(2).replaceAll('0', '').length;
      expect(reference[0]).toBe(bits);
    }
  });
});

describe('vector search', () => {
  it("finds the exact nearest neighbours within one user's app, past the exact-search size", async () => {
    const store = await openStore();
    const next = rng(1);
    const app = (await store.ensureApp('default')).id;
    const other = (await store.ensureApp('other')).id;
    const n = candidateCount(10) * 6;
    const vectors: VectorMemory[] = [];
    for (let i = 0; i < n; i++) vectors.push(memory('u1', i % 10 === 0 ? other : app, unitVector(next), i));
    for (let i = 0; i < 200; i++) vectors.push(memory('u2', app, unitVector(next), n + i));
    await store.insertMemories(vectors);
    const rowids = rowidsOf(store, 'u1');
    const inApp = new Map(vectors.filter((m) => m.userId === 'u1' && m.appId === app).map((m) => [rowids.get(m.id) as number, m.embedding]));
    const all = new Map(vectors.filter((m) => m.userId === 'u1').map((m) => [rowids.get(m.id) as number, m.embedding]));

    for (let t = 0; t < 20; t++) {
      const target = vectors[Math.floor(next() * n)] as VectorMemory;
      const q = near(target.embedding, next, 0.3);
      const scoped = searchVectors(store.database, { userId: 'u1', appId: app, embedding: q, k: 10 });
      const everywhere = searchVectors(store.database, { userId: 'u1', appId: null, embedding: q, k: 10 });
      // The nearest is always found; the rest of the top 10 nearly always (random vectors are the hard case).
      expect(scoped[0]?.rowid).toBe(exactTop(inApp, q, 1)[0]);
      expect(everywhere[0]?.rowid).toBe(rowids.get(target.id));
      const overlap = everywhere.filter((h) => exactTop(all, q, 10).includes(h.rowid)).length;
      expect(overlap).toBeGreaterThanOrEqual(8);
      expect(scoped.every((h) => inApp.has(h.rowid))).toBe(true);
      for (const hit of everywhere) {
        const v = all.get(hit.rowid) as Float32Array;
        expect(hit.cosine).toBeCloseTo(v.reduce((s, x, i) => s + x * (q[i] ?? 0), 0), 5);
      }
    }
    await store.close();
  });

  it('is exact for a small user, and forgets deleted memories', async () => {
    const store = await openStore();
    const next = rng(2);
    const app = (await store.ensureApp('default')).id;
    const mems = Array.from({ length: 50 }, (_, i) => memory('u1', app, unitVector(next), i));
    for (const m of mems.slice(0, 10)) await store.insertMemory(m);
    await store.insertMemories(mems.slice(10));
    const rowids = rowidsOf(store, 'u1');
    const q = unitVector(next);
    const all = new Map(mems.map((m) => [rowids.get(m.id) as number, m.embedding]));
    expect(searchVectors(store.database, { userId: 'u1', appId: null, embedding: q, k: 5 }).map((h) => h.rowid)).toEqual(exactTop(all, q, 5));

    const best = exactTop(all, q, 1)[0] as number;
    const bestId = [...rowids].find(([, r]) => r === best)?.[0] as string;
    expect(await store.deleteMemories([{ kind: 'id', value: bestId }], { appId: null })).toBe(1);
    all.delete(best);
    expect(searchVectors(store.database, { userId: 'u1', appId: null, embedding: q, k: 5 }).map((h) => h.rowid)).toEqual(exactTop(all, q, 5));
    const entries = store.database.prepare('SELECT COALESCE(SUM(length(rowids)), 0) / 8 AS n FROM memory_vector_codes').get() as { n: number };
    expect(entries.n).toBe(49);

    expect(await store.deleteUserMemories('u1', { appId: null })).toBe(49);
    expect(searchVectors(store.database, { userId: 'u1', appId: null, embedding: q, k: 5 })).toEqual([]);
    expect(store.database.prepare('SELECT COUNT(*) AS n FROM memory_vector_codes').get()).toEqual({ n: 0 });
    await store.close();
  });

  it("sees another connection's writes (the code cache is dropped on their commit)", async () => {
    const path = join(dir, 'shared.db');
    const a = await openStore(path);
    const b = await openStore(path);
    const next = rng(3);
    const app = (await a.ensureApp('default')).id;
    await a.insertMemories(Array.from({ length: 20 }, (_, i) => memory('u1', app, unitVector(next), i)));
    const q = unitVector(next);
    expect(searchVectors(a.database, { userId: 'u1', appId: null, embedding: q, k: 3 })).toHaveLength(3);
    const twin = memory('u1', app, q, 99);
    await b.insertMemory(twin);
    const first = searchVectors(a.database, { userId: 'u1', appId: null, embedding: q, k: 3 })[0];
    expect(first?.rowid).toBe(rowidsOf(a, 'u1').get(twin.id));
    expect(first?.cosine).toBeCloseTo(1, 5);
    await b.deleteMemories([{ kind: 'id', value: twin.id }], { appId: null });
    expect(searchVectors(a.database, { userId: 'u1', appId: null, embedding: q, k: 3 }).map((h) => h.rowid)).not.toContain(first?.rowid);
    await a.close();
    await b.close();
  });

  it('skips memories already stored when a batch is retried, and rolls a bad batch back whole', async () => {
    const store = await openStore();
    const next = rng(4);
    const app = (await store.ensureApp('default')).id;
    const batch = Array.from({ length: 5 }, (_, i) => memory('u1', app, unitVector(next), i));
    expect(await store.insertMemories(batch)).toEqual({ inserted: 5 });
    expect(await store.insertMemories([...batch, memory('u1', app, unitVector(next), 9)])).toEqual({ inserted: 1 });
    const bad = [memory('u1', app, unitVector(next), 10), { ...memory('u1', app, unitVector(next), 11), embedding: new Float32Array(3) }];
    await expect(store.insertMemories(bad)).rejects.toThrow(/dimensions/);
    const n = (sql: string) => (store.database.prepare(sql).get() as { n: number }).n;
    expect(n('SELECT COUNT(*) AS n FROM memories')).toBe(6);
    expect(n('SELECT COUNT(*) AS n FROM memory_vectors')).toBe(6);
    expect(n('SELECT SUM(length(rowids)) / 8 AS n FROM memory_vector_codes')).toBe(6);
    await store.close();
  });
});

describe('centering', () => {
  it('takes the mean once there are enough vectors, and finds neighbours among vectors sharing a common part', async () => {
    const store = await openStore();
    const next = rng(6);
    const app = (await store.ensureApp('default')).id;
    // Every vector = a shared direction + an individual part, as embedding models' outputs are (not centred).
    const common = unitVector(next);
    const make = () => {
      const own = unitVector(next);
      const v = common.map((x, i) => 3 * x + (own[i] ?? 0));
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const mems = Array.from({ length: 8000 }, (_, i) => memory('u1', app, make(), i));
    for (let i = 0; i < mems.length; i += 2000) await store.insertMemories(mems.slice(i, i + 2000));
    const meta = store.database.prepare("SELECT value FROM meta WHERE key = 'vector_code_center_count'").get() as { value: string } | undefined;
    expect(Number(meta?.value)).toBeGreaterThanOrEqual(CENTER_FIRST);
    const rowids = rowidsOf(store, 'u1');
    const all = new Map(mems.map((m) => [rowids.get(m.id) as number, m.embedding]));
    let found = 0;
    for (let t = 0; t < 20; t++) {
      const target = mems[Math.floor(next() * mems.length)] as VectorMemory;
      const q = near(target.embedding, next, 0.05);
      const hits = searchVectors(store.database, { userId: 'u1', appId: null, embedding: q, k: 10 });
      if (hits[0]?.rowid === exactTop(all, q, 1)[0]) found++;
    }
    expect(found).toBeGreaterThanOrEqual(19);
    await store.close();
  });
});

describe('vector index upgrade', () => {
  it('rebuilds a missing codes table from the float vectors when the database is opened', async () => {
    const path = join(dir, 'repair.db');
    const next = rng(5);
    const store = await openStore(path);
    const app = (await store.ensureApp('default')).id;
    const vectors = Array.from({ length: 300 }, () => unitVector(next));
    await store.insertMemories(vectors.map((v, i) => memory('u', app, v, i)));
    store.database.exec('DROP TABLE memory_vector_codes');
    await store.close();

    const again = await openStore(path);
    expect((again.database.prepare('SELECT SUM(length(rowids)) / 8 AS n FROM memory_vector_codes').get() as { n: number }).n).toBe(300);
    const found = await again.recallCandidates({ userId: 'u', scope: { appId: null }, embedding: vectors[123] as Float32Array, vectorK: 5, alsoIds: [] });
    const best = found.sort((x, y) => y.cosine - x.cosine)[0];
    expect(best?.memory.text).toBe('memory 123');
    expect(best?.cosine).toBeCloseTo(1, 5);
    await again.close();
  });

  it('refuses a file of the pre-release sqlite-vec layout with a message, changing nothing', async () => {
    const path = join(dir, 'old.db');
    const db = openDatabase(path);
    migrate(db);
    db.prepare("INSERT INTO meta (key, value) VALUES ('embedding_model', 'test-vectors'), ('embedding_dimension', ?)").run(String(DIM));
    // The schema row such a file holds; the vec0 module itself is never needed to see it.
    db.unsafeMode(true);
    db.pragma('writable_schema = ON');
    db.prepare(
      "INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES ('table', 'memory_vectors', 'memory_vectors', 0, ?)",
    ).run(`CREATE VIRTUAL TABLE memory_vectors USING vec0(user_id TEXT PARTITION KEY, app_id TEXT, embedding FLOAT[${DIM}])`);
    db.close();

    const store = SqliteStore.open({ path });
    await expect(store.useModel({ model: 'test-vectors', dimension: DIM })).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/sqlite-vec table, the layout of a pre-release version.*agent-memory export/),
    });
    await store.close();
  });
});

describe('vectorOf', () => {
  const values = [0.5, -1.25, 3];
  const bytes = Buffer.from(new Float32Array(values).buffer);

  it('reads an aligned blob in place and an unaligned one by copying, with the same values', () => {
    const aligned = vectorOf(bytes);
    expect([...aligned]).toEqual(values);
    expect(aligned.buffer).toBe(bytes.buffer);
    const shifted = Buffer.alloc(bytes.length + 1);
    bytes.copy(shifted, 1);
    const unaligned = vectorOf(shifted.subarray(1));
    expect([...unaligned]).toEqual(values);
  });

  it('refuses a blob whose length is not whole floats (a damaged row), instead of dropping its tail', () => {
    expect(() => vectorOf(Buffer.alloc(10))).toThrow(RangeError);
  });
});
