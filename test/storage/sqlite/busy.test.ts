import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryError } from '../../../src/core/errors.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';
import { hashVector, newMemory } from '../../helpers/memories.js';
import { Database, type SqliteDatabase } from '../../../src/storage/sqlite/connection.js';

// Another process holding the write lock, as a second connection (SQLite's locks hold between connections of one
// process too). Its lock is released by this same thread: a store that waited inside SQLite would block it.

const DIM = 8;
let dir: string;
let store: SqliteStore;
let other: SqliteDatabase;
let appId: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-busy-'));
  store = SqliteStore.open({ path: join(dir, 'm.db'), busyBudgetMs: 1_500 });
  await store.useModel({ model: 'test-vectors', dimension: DIM });
  appId = (await store.ensureApp('default')).id;
  await store.insertMemories([newMemory({ userId: 'u', appId, text: 'Already here.', embedding: hashVector('a', DIM) })]);
  other = new Database(join(dir, 'm.db'));
  other.exec('BEGIN IMMEDIATE');
});
afterEach(async () => {
  if (other.inTransaction) other.exec('ROLLBACK');
  other.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** How late a 10 ms timer fires: the event loop's freedom while `during` waits. */
async function timerLateness(): Promise<number> {
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 10));
  return Date.now() - started - 10;
}

describe('a write lock held by another process', () => {
  it('keeps the event loop, health and reads answering while a write waits, and the write lands once it is free', async () => {
    const write = store.insertMemory(newMemory({ userId: 'u', appId, text: 'Waits for the lock.', embedding: hashVector('b', DIM) }));
    // A store that waited inside SQLite would hold the thread for the whole wait (1.5 s here, its busy timeout
    // otherwise); a loaded CI machine makes a free timer late by tens of milliseconds, sometimes more.
    expect(await timerLateness()).toBeLessThan(750);
    expect(await store.ping()).toBe(true);
    const page = await store.listMemories({ userId: 'u', scope: { appId: null }, offset: 0, limit: 10 });
    expect(page.total).toBe(1);
    other.exec('COMMIT');
    await expect(write).resolves.toEqual({ kind: 'created' });
    expect((await store.listMemories({ userId: 'u', scope: { appId: null }, offset: 0, limit: 10 })).total).toBe(2);
  });

  it('answers 503 with Retry-After when the lock outlasts the wait', async () => {
    const started = Date.now();
    const error = await store
      .insertMemory(newMemory({ userId: 'u', appId, text: 'Never gets the lock.', embedding: hashVector('c', DIM) }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryError);
    expect((error as MemoryError).code).toBe('unavailable');
    expect((error as MemoryError).retryAfterSeconds).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
  });
});
