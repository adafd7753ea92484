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

// What every backend owes is in ../store-contract.ts; this file checks what only SQLite has: separate vector and
// word tables that must move with the memory rows, and one connection that long transactions must not capture.
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

  it('scans one snapshot on a read connection of its own: writes meanwhile go through and are not seen', async () => {
    await store.insertMemories([1, 2, 3].map((i) => memory('u1', `before ${i}`, [1, 0, 0, 0], i)));
    const seen: string[] = [];
    const totals: number[] = [];
    await store.scanMemories({ pageSize: 2 }, async (page) => {
      seen.push(...page.memories.map((m) => m.text));
      totals.push(page.total);
      // The store itself stays free: this write commits at once, after the snapshot was taken.
      await store.insertMemory(memory('u1', `during ${seen.length}`, [1, 0, 0, 0], 10 + seen.length));
    });
    expect(seen).toEqual(['before 1', 'before 2', 'before 3']);
    expect(totals).toEqual([3, 3]);
    expect(await store.countMemories()).toBe(5);
  });

  it("answers busy while reembed's swap holds the connection, and serves again after it", async () => {
    await store.insertMemory(memory('u1', 'late', [1, 0, 0, 0]));
    let during: unknown;
    await store.replaceEmbeddings({
      model: { model: 'next', dimension: 2 },
      vectors: new Map(),
      embedMissing: async (missing) => {
        during = await store.countMemories().catch((error: unknown) => error);
        return missing.map(() => unit([1, 1]));
      },
    });
    expect(during).toMatchObject({ code: 'unavailable', retryAfterSeconds: 1 });
    expect(await store.countMemories()).toBe(1);
    expect(counts()).toEqual({ memories: 1, vectors: 1, words: 1 });
  });
});
