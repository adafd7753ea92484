import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newMemoryId, newUuid } from '../../../src/core/ids.js';
import type { NewMemory } from '../../../src/core/store.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';

const DIM = 4;
function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values);
  return Float32Array.from(values.map((v) => v / norm));
}

let dir: string;
let store: SqliteStore;
let appId: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-store-'));
  store = SqliteStore.open({ path: join(dir, 'm.db') });
  await store.useModel({ model: 'test-vectors', dimension: DIM });
  appId = (await store.ensureApp('default')).id;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function memory(userId: string, text: string, embedding: number[], minute = 0): NewMemory {
  return {
    id: newMemoryId(),
    uuid: newUuid(),
    userId,
    appId,
    text,
    metadata: {},
    createdAt: new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString(),
    embedding: unit(embedding),
  };
}

function counts(): { memories: number; vectors: number; words: number } {
  const db = store.database;
  const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    memories: n('SELECT COUNT(*) AS n FROM memories'),
    vectors: n('SELECT COUNT(*) AS n FROM memory_vectors'),
    words: n("SELECT COUNT(*) AS n FROM memory_words WHERE memory_words MATCH 'owner : u*'"),
  };
}

describe('SqliteStore', () => {
  it('keeps memories, vectors and words together through insert and every delete', async () => {
    const a = memory('u1', 'likes hiking in the alps', [1, 0, 0, 0], 1);
    const b = memory('u1', 'owns a red bicycle', [0, 1, 0, 0], 2);
    const c = memory('u2', 'likes hiking too', [1, 0, 0, 0], 3);
    for (const m of [a, b, c]) await store.insertMemory(m);
    expect(counts()).toEqual({ memories: 3, vectors: 3, words: 3 });
    expect(await store.deleteMemories([{ kind: 'id', value: a.id }], { appId: null })).toBe(1);
    expect(counts()).toEqual({ memories: 2, vectors: 2, words: 2 });
    expect(await store.deleteUserMemories('u2', { appId: null })).toBe(1);
    expect(counts()).toEqual({ memories: 1, vectors: 1, words: 1 });
    expect(await store.deleteMemories([{ kind: 'uuid', value: b.uuid }], { appId })).toBe(1);
    expect(counts()).toEqual({ memories: 0, vectors: 0, words: 0 });
  });

  it('rolls back the memory row when its vector cannot be written', async () => {
    const bad = { ...memory('u1', 'wrong size', [1, 0, 0, 0]), embedding: new Float32Array(DIM + 1) };
    await expect(store.insertMemory(bad)).rejects.toThrow();
    expect(counts()).toEqual({ memories: 0, vectors: 0, words: 0 });
  });

  it("finds candidates by vector and by words within one user's memories only", async () => {
    const hiking = memory('u1', 'likes hiking in the alps', [1, 0.1, 0, 0], 1);
    const bike = memory('u1', 'owns a red bicycle', [0, 1, 0, 0], 2);
    const other = memory('u2', 'likes hiking too', [1, 0.1, 0, 0], 3);
    for (const m of [hiking, bike, other]) await store.insertMemory(m);
    const found = await store.recallCandidates({
      userId: 'u1',
      scope: { appId: null },
      embedding: unit([0, 1, 0, 0]),
      terms: ['hiking'],
      vectorK: 1,
      textK: 5,
    });
    const byId = new Map(found.map((c) => [c.memory.id, c]));
    expect([...byId.keys()].sort()).toEqual([bike.id, hiking.id].sort());
    expect(byId.get(bike.id)?.cosine).toBeCloseTo(1, 5);
    expect(byId.get(hiking.id)?.bm25).toBeGreaterThan(0);
    expect(byId.get(bike.id)?.bm25).toBe(0);
    expect(byId.get(bike.id)?.prevId).toBe(hiking.id);
    expect(byId.get(hiking.id)?.nextId).toBe(bike.id);
  });

  it('treats FTS syntax in terms as plain words', async () => {
    await store.insertMemory(memory('u1', 'quote " and NEAR( stuff', [1, 0, 0, 0]));
    const found = await store.recallCandidates({
      userId: 'u1',
      scope: { appId: null },
      embedding: unit([1, 0, 0, 0]),
      terms: ['"', 'NEAR(', 'AND', '*', 'owner:'],
      vectorK: 5,
      textK: 5,
    });
    expect(found).toHaveLength(1);
  });

  it('creates an app once even when asked twice at once', async () => {
    const [x, y] = await Promise.all([store.ensureApp('twins'), store.ensureApp('twins')]);
    expect(x.id).toBe(y.id);
  });
});
