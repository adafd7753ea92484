import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newMemoryId, newUuid } from '../../../src/core/ids.js';
import type { NewMemory } from '../../../src/core/store.js';
import { ownerToken } from '../../../src/storage/sqlite/words.js';
import { nfcIdentifiers } from '../../../src/storage/sqlite/nfc-ids.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';

// Migration 8 on a file written before user ids and keys were normalised: the store itself takes any string, so the
// rows are written through it (as the API once did) and the migration is run again by forgetting it was applied.

const DECOMPOSED = 'cafe\u0301'; // "e" + combining acute
const COMPOSED = 'caf\u00e9';
const NOW = '2025-01-01T00:00:00.000Z';

let dir: string;
let path: string;
let store: SqliteStore;
let appId: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-nfc-'));
  path = join(dir, 'm.db');
  store = SqliteStore.open({ path });
  await store.useModel({ model: 'test-vectors', dimension: 4 });
  appId = (await store.ensureApp('default')).id;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function memory(userId: string, text: string, extra: Partial<NewMemory> = {}): NewMemory {
  return { id: newMemoryId(), uuid: newUuid(), userId, appId, text, metadata: { topic: 'coffee' }, createdAt: NOW, embedding: Float32Array.of(1, 0, 0, 0), ...extra };
}

/**
 * Runs the migration's step again on these rows (as on a file written before it), then reopens the file. Called
 * directly: the file is already at the latest version, so the migration runner would not run it again.
 */
async function rerunMigration(): Promise<void> {
  store.database.transaction(() => nfcIdentifiers(store.database)).immediate();
  await store.close();
  store = SqliteStore.open({ path });
  await store.useModel({ model: 'test-vectors', dimension: 4 });
}

const words = (userId: string) =>
  (store.database.prepare('SELECT COUNT(*) FROM memory_words WHERE memory_words MATCH ?').pluck().get(`owner : "${ownerToken(userId)}"`) as number);

describe('migration 8: user ids and caller keys in NFC', () => {
  it('renames a decomposed user id, with its metadata index, vectors and words, and a decomposed key', async () => {
    await store.insertMemory(memory(DECOMPOSED, 'Drinks flat whites', { key: `pref:${DECOMPOSED}` }));
    await store.insertMemory(memory(DECOMPOSED, 'Grinds beans at home'));
    await rerunMigration();
    const scope = { appId: null };
    const listed = await store.listMemories({ userId: COMPOSED, scope, offset: 0, limit: 10, filter: { metadata: { topic: 'coffee' } } });
    expect(listed.items.map((m) => m.text).sort()).toEqual(['Drinks flat whites', 'Grinds beans at home']);
    expect((await store.listMemories({ userId: DECOMPOSED, scope, offset: 0, limit: 10 })).total).toBe(0);
    expect(await store.getMemoryByKey({ userId: COMPOSED, appId, key: `pref:${COMPOSED}` }, NOW)).toMatchObject({ text: 'Drinks flat whites' });
    expect(store.database.prepare('SELECT DISTINCT user_id FROM memory_vectors').pluck().all()).toEqual([COMPOSED]);
    expect(store.database.prepare('SELECT DISTINCT user_id FROM memory_fields').pluck().all()).toEqual([COMPOSED]);
    expect([words(COMPOSED), words(DECOMPOSED)]).toEqual([2, 0]);
  });

  it('merges no two users and no two keys: where the NFC form is taken, the other stays as it was', async () => {
    await store.insertMemory(memory(COMPOSED, 'Composed user', { key: `k-${COMPOSED}` }));
    await store.insertMemory(memory(COMPOSED, 'Composed user, decomposed key', { key: `k-${DECOMPOSED}` }));
    await store.insertMemory(memory(DECOMPOSED, 'Decomposed user'));
    await rerunMigration();
    const users = await store.listUsers({ scope: { appId: null }, offset: 0, limit: 10 });
    expect(users.items.map((u) => u.userId).sort()).toEqual([COMPOSED, DECOMPOSED].sort());
    expect(await store.getMemoryByKey({ userId: COMPOSED, appId, key: `k-${COMPOSED}` }, NOW)).toMatchObject({ text: 'Composed user' });
    expect(await store.getMemoryByKey({ userId: COMPOSED, appId, key: `k-${DECOMPOSED}` }, NOW)).toMatchObject({ text: 'Composed user, decomposed key' });
    expect([words(COMPOSED), words(DECOMPOSED)]).toEqual([2, 1]);
  });
});
