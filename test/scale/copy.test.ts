/**
 * `agent-memory copy`: SQLite -> PostgreSQL -> SQLite with nothing lost (every memory field, the vectors bit for
 * bit, keys that still authenticate, apps with their UUIDs), idempotent, resumable, and refused across models.
 * The vectors are synthetic (no model is loaded): copy never embeds, so what it moves is all that matters.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyStore } from '../../src/core/copy.js';
import { main } from '../../src/cli/main.js';
import { Authenticator } from '../../src/core/auth.js';
import { MemoryError } from '../../src/core/errors.js';
import { newMemoryId, newUuid } from '../../src/core/ids.js';
import { createApiKey } from '../../src/core/key-admin.js';
import type { MemoryStore, NewMemory } from '../../src/core/store.js';
import { openPgStore } from '../../src/storage/postgres/index.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { startTestDatabase, type TestDatabase } from '../helpers/postgres.js';

const MODEL = { model: 'copy-test-vectors', dimension: 64 };
const COUNT = 1_234; // three batches of 500 and a partial one

let db: TestDatabase;
let dir: string;
let sourcePath: string;
const keys: Record<'unbound' | 'bound' | 'revoked', string> = { unbound: '', bound: '', revoked: '' };

/** Deterministic pseudo-random unit vectors (xorshift), with awkward float32 values. */
function vectors(seed: number): () => Float32Array {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32 - 0.5;
  };
  return () => {
    const v = Float32Array.from({ length: MODEL.dimension }, next);
    const norm = Math.hypot(...v);
    return v.map((c) => c / norm);
  };
}

function output(): { lines: string[]; out: { print(l: string): void; notice(l: string): void } } {
  const lines: string[] = [];
  return { lines, out: { print: (l) => lines.push(l), notice: (l) => lines.push(l) } };
}

async function copy(from: string, to: string, ...extra: string[]): Promise<{ code: number; text: string }> {
  const { lines, out } = output();
  const code = await main(['copy', '--from', from, '--to', to, ...extra], out);
  return { code, text: lines.join('\n') };
}

/** Everything a store holds that copy moves, in comparable form. */
async function snapshot(store: MemoryStore) {
  const memories: Array<Omit<NewMemory, 'embedding'> & { embedding: number[] }> = [];
  let after: string | null = null;
  do {
    const page = await store.exportMemories(after, 300);
    memories.push(...page.memories.map((m) => ({ ...m, embedding: Array.from(m.embedding!) })));
    after = page.next;
  } while (after !== null);
  return { model: await store.getModel(), apps: await store.listApps(), keys: await store.listKeys(), memories };
}

beforeAll(async () => {
  db = await startTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-copy-'));
  sourcePath = join(dir, 'source.db');
  const source = SqliteStore.open({ path: sourcePath });
  await source.useModel(MODEL);
  const apps = [await source.ensureApp('default'), await source.ensureApp('app-a'), await source.ensureApp('app-b')];
  keys.unbound = (await createApiKey(source, { label: 'ops' })).key;
  keys.bound = (await createApiKey(source, { app: 'app-a', label: 'agent a' })).key;
  const revoked = await createApiKey(source, { app: 'app-b' });
  keys.revoked = revoked.key;
  await source.revokeKey(revoked.record.id, '2025-06-01T00:00:00.000Z');
  const vector = vectors(7);
  const memories: NewMemory[] = Array.from({ length: COUNT }, (_, i) => ({
    id: newMemoryId(),
    uuid: newUuid(),
    userId: i % 10 === 0 ? `user ${i % 7} 👤` : `user-${i % 7}`,
    appId: apps[i % 3]!.id,
    text: i % 5 === 0 ? `Mémoire n°${i}: "quoted", tab\there,\nnewline and emoji 🧠 ` : `memory ${i} about topic ${i % 13}`,
    metadata: i % 4 === 0 ? {} : { i, source: 'copy-test', nested: { list: [i, null, true, 'x'], deep: { k: 'v' } }, 'ключ': 'значение' },
    createdAt: new Date(Date.UTC(2024, 0, 1) + i * 61_001).toISOString(),
    embedding: vector(),
  }));
  memories[1] = { ...memories[1]!, embedding: Float32Array.from({ length: MODEL.dimension }, (_, j) => [1e-38, -0, 1 / 3, 3.4e38][j % 4]!) };
  for (let i = 0; i < memories.length; i += 400) await source.insertMemories(memories.slice(i, i + 400));
  await source.close();
}, 120_000);

afterAll(async () => {
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('agent-memory copy', () => {
  it('moves SQLite to PostgreSQL and back with nothing lost, and a second run changes nothing', async () => {
    const toPg = await copy(sourcePath, db.url);
    expect(toPg.code, toPg.text).toBe(0);
    expect(toPg.text).toContain(`Copied 1,234 memories (0 were already there), 3 apps (0 there), 3 keys (0 there)`);
    // The URL's password is never printed.
    expect(toPg.text).toContain('postgres://postgres:***@');
    expect(toPg.text).not.toContain('test-secret');

    const backPath = join(dir, 'back.db');
    const back = await copy(db.url, backPath);
    expect(back.code, back.text).toBe(0);
    expect(back.text).toContain('Copied 1,234 memories');

    const source = SqliteStore.open({ path: sourcePath });
    const pg = await openPgStore(db.url);
    const round = SqliteStore.open({ path: backPath });
    try {
      const original = await snapshot(source);
      expect(original.memories).toHaveLength(COUNT);
      expect(original.keys).toHaveLength(3);
      const inPg = await snapshot(pg);
      expect(inPg).toEqual(original);
      expect(await snapshot(round)).toEqual(original);

      // The keys work on the copy as they did on the source: same caller, same app binding, revocation kept.
      const auth = new Authenticator({ store: pg });
      expect((await auth.authenticate(`Bearer ${keys.unbound}`)).boundApp).toBeNull();
      expect((await auth.authenticate(`Bearer ${keys.bound}`)).boundApp?.slug).toBe('app-a');
      await expect(auth.authenticate(`Bearer ${keys.revoked}`)).rejects.toMatchObject({ code: 'auth_error' });

      // And the copied memories are searchable there (vectors and words), not only stored.
      const probe = original.memories.find((m) => m.text.includes('topic'))!;
      const found = await pg.recallCandidates({
        userId: probe.userId,
        scope: { appId: probe.appId },
        embedding: Float32Array.from(probe.embedding),
        vectorK: 5,
        alsoIds: [],
      });
      // Candidates come unranked (the ranker orders them): the nearest is the probe itself.
      const nearest = found.sort((a, b) => b.cosine - a.cosine)[0];
      expect(nearest?.memory.id).toBe(probe.id);
      expect(nearest?.cosine).toBeCloseTo(1, 5);
      const [words] = await pg.findWordMatches({ userId: probe.userId, scope: { appId: probe.appId }, terms: ['topic'], perTerm: 500 });
      expect(words?.ids).toContain(probe.id);
    } finally {
      await Promise.all([source.close(), pg.close(), round.close()]);
    }

    // Idempotent: again, both ways, nothing is added.
    const again = await copy(sourcePath, db.url);
    expect(again.code, again.text).toBe(0);
    expect(again.text).toContain('Copied 0 memories (1,234 were already there), 0 apps (3 there), 0 keys (3 there)');
    const againBack = await copy(db.url, backPath);
    expect(againBack.text).toContain('Copied 0 memories (1,234 were already there)');
  });

  it('resumes an interrupted copy, copying only what is missing', async () => {
    const source = SqliteStore.open({ path: sourcePath });
    const target = SqliteStore.open({ path: join(dir, 'resumed.db') });
    try {
      let batches = 0;
      // A target that dies on its third batch: the two before it are committed, the third is not.
      const failing = new Proxy(target, {
        get(t, name, receiver) {
          if (name === 'insertMemories') {
            return (batch: NewMemory[]) => (++batches === 3 ? Promise.reject(new Error('killed')) : t.insertMemories(batch));
          }
          const value: unknown = Reflect.get(t, name, receiver);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
        },
      });
      await expect(copyStore(source, failing, { batchSize: 300 })).rejects.toThrow('killed');
      expect(await target.countMemories()).toBe(600);
      const resumed = await copyStore(source, target, { batchSize: 300 });
      expect(resumed.memories).toEqual({ copied: COUNT - 600, present: 600, total: COUNT });
      expect(resumed.apps).toEqual({ copied: 0, present: 3 });
      expect((await snapshot(target)).memories).toEqual((await snapshot(source)).memories);
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  });

  it('retries a batch that failed as unavailable (a dropped connection), then carries on', async () => {
    const source = SqliteStore.open({ path: sourcePath });
    const target = SqliteStore.open({ path: join(dir, 'retried.db') });
    try {
      let calls = 0;
      const flaky = new Proxy(target, {
        get(t, name, receiver) {
          if (name === 'insertMemories') {
            return (batch: NewMemory[]) =>
              ++calls === 2 ? Promise.reject(new MemoryError('unavailable', 'The database is unavailable; retry shortly.')) : t.insertMemories(batch);
          }
          const value: unknown = Reflect.get(t, name, receiver);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
        },
      });
      const notices: string[] = [];
      const result = await copyStore(source, flaky, { batchSize: 500, retryDelayMs: 10, onNotice: (l) => notices.push(l) });
      expect(result.memories).toEqual({ copied: COUNT, present: 0, total: COUNT });
      expect(notices).toEqual(['Writing to the target failed: The database is unavailable; retry shortly. Trying again in 0.0 s.']);
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  });

  it('refuses a target whose vectors come from another model, before writing anything', async () => {
    const otherPath = join(dir, 'other-model.db');
    const other = SqliteStore.open({ path: otherPath });
    await other.useModel({ model: 'another-model', dimension: 64 });
    await other.close();
    for (const [from, to] of [
      [sourcePath, otherPath],
      [otherPath, db.url],
    ] as const) {
      const refused = await copy(from, to);
      expect(refused.code).toBe(1);
      expect(refused.text).toMatch(/embedding model "(another-model|copy-test-vectors)" \(64 dimensions\), the source's with "(another-model|copy-test-vectors)"/);
      expect(refused.text).toContain('without re-embedding');
    }
    const untouched = SqliteStore.open({ path: otherPath });
    try {
      expect(await untouched.listApps()).toEqual([]);
      expect(await untouched.listKeys()).toEqual([]);
      expect(await untouched.getModel()).toEqual({ model: 'another-model', dimension: 64 });
    } finally {
      await untouched.close();
    }
  });

  it('merges into a target that has an app of the same slug: its UUID stays, the memories follow it', async () => {
    const targetPath = join(dir, 'merge.db');
    const target = SqliteStore.open({ path: targetPath });
    const own = await target.ensureApp('app-b');
    await target.close();
    const merged = await copy(sourcePath, targetPath, '--batch', '1000');
    expect(merged.code, merged.text).toBe(0);
    expect(merged.text).toContain(`The app "app-b" exists in the target with another UUID (${own.id})`);
    const check = SqliteStore.open({ path: targetPath });
    try {
      expect(await check.findApp('app-b')).toEqual(own);
      const list = await check.listMemories({ userId: 'user-2', scope: { appId: own.id }, offset: 0, limit: 100 });
      expect(list.total).toBeGreaterThan(0);
      expect(list.items.every((m) => m.app.id === own.id)).toBe(true);
      expect(await check.countMemories()).toBe(COUNT);
    } finally {
      await check.close();
    }
  });

  it('carries a revocation made in the source since the last copy over to the target', async () => {
    const from = join(dir, 'revoking.db');
    const to = join(dir, 'revoking-target.db');
    const source = SqliteStore.open({ path: from });
    await source.useModel(MODEL);
    const { record } = await createApiKey(source, { label: 'leaked later' });
    await source.close();
    expect((await copy(from, to)).text).toContain('1 key (0 there)');
    const revoking = SqliteStore.open({ path: from });
    await revoking.revokeKey(record.id, '2025-07-01T12:00:00.000Z');
    await revoking.close();
    const again = await copy(from, to);
    expect(again.text).toContain(`The key ${record.id} was revoked in the source since the last copy: revoked in the target too.`);
    expect(again.text).toContain('0 keys (1 there, 1 newly revoked)');
    const target = SqliteStore.open({ path: to });
    try {
      expect((await target.listKeys())[0]?.revokedAt).toBe('2025-07-01T12:00:00.000Z');
    } finally {
      await target.close();
    }
  });

  it('checks its arguments', async () => {
    expect((await copy(sourcePath, sourcePath)).text).toContain('the same database');
    expect((await copy(join(dir, 'missing.db'), join(dir, 'x.db'))).text).toContain('No SQLite database at');
    expect((await copy('mysql://root:hunter2@h/db', join(dir, 'x.db'))).text).toContain('mysql://root:***@h/db');
    const { lines, out } = output();
    expect(await main(['copy', '--from', sourcePath], out)).toBe(2);
    expect(lines.join('\n')).toContain('Usage: agent-memory copy');
  });
});
