import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryError } from '../../../src/core/errors.js';
import { textKey } from '../../../src/core/text-key.js';
import { Database, openDatabase } from '../../../src/storage/sqlite/connection.js';
import { LATEST_VERSION, MIGRATIONS, currentVersion, migrate } from '../../../src/storage/sqlite/migrations.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-migrate-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('migrations', () => {
  it('upgrades a version-1 file in place, keeping its rows', async () => {
    const path = join(dir, 'old.db');
    const db = openDatabase(path);
    currentVersion(db);
    const first = MIGRATIONS[0];
    if (!first) throw new Error('no migrations');
    first.up(db);
    db.prepare("INSERT INTO schema_migrations VALUES (1, 'v1', '2024-01-01T00:00:00.000Z')").run();
    db.prepare("INSERT INTO apps VALUES ('a1', 'default', '2024-01-01T00:00:00.000Z')").run();
    db.prepare(
      "INSERT INTO memories (id, uuid, user_id, app_id, text, metadata, created_at) VALUES ('mem_AAAAAAAAAAAA', 'u-1', 'u', 'a1', ' kept  fact', '{\"topic\":\"music\",\"n\":1}', '2024-01-01T00:00:00.000Z')",
    ).run();
    db.close();

    const store = SqliteStore.open({ path });
    const { items } = await store.listMemories({ userId: 'u', scope: { appId: null }, offset: 0, limit: 10 });
    expect(items.map((m) => m.text)).toEqual([' kept  fact']);
    expect(currentVersion(store.database)).toBe(LATEST_VERSION);
    // Version 4 filled in the lifecycle fields of the rows it found: updatedAt, no expiry, the duplicate key, the
    // metadata index.
    expect(items[0]).toMatchObject({ updatedAt: '2024-01-01T00:00:00.000Z', expiresAt: null });
    const key = store.database.prepare('SELECT text_key FROM memories').pluck().get();
    expect(key).toBe(textKey('kept fact'));
    const filtered = await store.listMemories({ userId: 'u', scope: { appId: null }, offset: 0, limit: 10, filter: { metadata: { topic: 'music', n: 1 } } });
    expect(filtered.total).toBe(1);
    await store.close();
  });

  it('is a no-op on an up-to-date file', () => {
    const db = openDatabase(join(dir, 'x.db'));
    expect(migrate(db)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(migrate(db)).toEqual([]);
    db.close();
  });

  it('refuses a file from a newer release', () => {
    const path = join(dir, 'future.db');
    const db = openDatabase(path);
    migrate(db);
    db.prepare("INSERT INTO schema_migrations VALUES (999, 'future', '2030-01-01T00:00:00.000Z')").run();
    db.close();
    expect(() => SqliteStore.open({ path })).toThrow(/newer than this release/);
  });

  it('leaves WAL mode on every connection, and no wait inside SQLite on the store\u2019s (it retries off the event loop)', () => {
    const path = join(dir, 'wal.db');
    const store = SqliteStore.open({ path });
    expect(store.database.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(Number(store.database.pragma('busy_timeout', { simple: true }))).toBe(0);
    void store.close();
    const raw = new Database(path);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });
});

describe('embedding model record', () => {
  it('records the model on first use and refuses another one', async () => {
    const path = join(dir, 'model.db');
    const store = SqliteStore.open({ path });
    await store.useModel({ model: 'model-a', dimension: 8 });
    await store.useModel({ model: 'model-a', dimension: 8 });
    await store.close();
    const again = SqliteStore.open({ path });
    expect(await again.getModel()).toEqual({ model: 'model-a', dimension: 8 });
    const refused = again.useModel({ model: 'model-b', dimension: 16 });
    await expect(refused).rejects.toBeInstanceOf(MemoryError);
    await expect(again.useModel({ model: 'model-b', dimension: 16 })).rejects.toThrow(/reembed/);
    await again.close();
  });
});
