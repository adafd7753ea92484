/**
 * Isolation and keys, tried hard:
 * - a randomized sequence of stores, lists, recalls, deletes, bulk forgets, forget-alls and revocations by several
 *   bound and unbound keys, checked step by step against a model: no key ever reads, lists, recalls or deletes
 *   another app's memories, and a revoked key fails at once;
 * - a key revoked by the CLI in another process fails at the server's very next request;
 * - no API key secret reaches a log line (the first-run key banner aside), including on auth failures and when a
 *   client puts a key where it does not belong;
 * - checking a key does not take longer the more of it matches a real key.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/core/auth.js';
import { createApiKey } from '../../src/core/key-admin.js';
import { API_KEY_PATTERN } from '../../src/core/keys.js';
import type { MemoryStore } from '../../src/core/store.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { RELIABILITY_KEY, runCli, spawnServer } from './support/cli-server.js';
import { reportFigures } from './support/figures.js';
import { callJson, prng, type JsonResult, testSeed } from './support/http.js';
import { startCapturedServer, type CapturedServer } from './support/inproc.js';

const KEY_SHAPE = /amk_[0-9A-Za-z]{40}/;

let server: CapturedServer;
let firstRunKey: string;

beforeAll(async () => {
  // No configured key: the server creates one and prints it once (the banner), as on a first run.
  server = await startCapturedServer();
  const banner = server.notices.join('\n');
  const match = KEY_SHAPE.exec(banner);
  if (!match) throw new Error(`no first-run key in the notices: ${banner}`);
  firstRunKey = match[0];
});

afterAll(async () => {
  await server?.stop();
});

interface KeyModel {
  name: string;
  key: string;
  id: string;
  /** Bound app slug, or null for unbound. */
  app: string | null;
  revoked: boolean;
}

interface MemoryModel {
  id: string;
  app: string;
  userId: string;
  text: string;
}

const APPS = ['alpha', 'beta', 'gamma'];
const USERS = ['ann', 'bob', 'shared'];

describe('app isolation, randomized', () => {
  it('no key ever reads, lists, recalls or deletes another app’s memories; revoked keys fail at once', async () => {
    const seed = testSeed();
    const random = prng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const store = server.runtime.store;

    const keys: KeyModel[] = [];
    for (const app of APPS) {
      for (let i = 0; i < 2; i++) {
        const { key, record } = await createApiKey(store, { app, label: `${app}-${i}` });
        keys.push({ name: `${app}-${i}`, key, id: record.id, app, revoked: false });
      }
    }
    for (let i = 0; i < 2; i++) {
      const { key, record } = await createApiKey(store, { label: `unbound-${i}` });
      keys.push({ name: `unbound-${i}`, key, id: record.id, app: null, revoked: false });
    }
    const memories = new Map<string, MemoryModel>();
    const counts = { ops: 0, stores: 0, reads: 0, deletes: 0, forbidden: 0, unauthorized: 0, revocations: 0, crossAppAttempts: 0 };

    const visible = (k: KeyModel, m: MemoryModel) => k.app === null || k.app === m.app;
    const call = <T>(k: KeyModel, path: string, init: { method?: string; json?: unknown } = {}): Promise<JsonResult<T>> =>
      callJson<T>(server.url, k.key, path, init);
    const expectRefused = (k: KeyModel, res: JsonResult, step: string): boolean => {
      if (k.revoked) {
        expect(res.status, step).toBe(401);
        counts.unauthorized++;
        return true;
      }
      return false;
    };

    for (let step = 0; step < 220; step++) {
      counts.ops++;
      const k = pick(keys);
      const roll = random();
      // An app named in the request: none, the key's own, or another one (a cross-app attempt).
      const named = random() < 0.4 ? undefined : pick(APPS);
      const label = `seed ${seed} step ${step} key ${k.name}${k.revoked ? ' (revoked)' : ''} app ${named ?? '-'}`;
      const forbidden = !k.revoked && k.app !== null && named !== undefined && named !== k.app;
      if (forbidden) counts.crossAppAttempts++;
      const appQuery = named === undefined ? '' : `&appId=${named}`;

      if (roll < 0.25 || memories.size < 6) {
        const userId = pick(USERS);
        const text = `${k.name} says ${userId} likes item ${step}`;
        const res = await call<{ id: string; appId: string }>(k, '/v1/memories', {
          method: 'POST',
          json: { userId, text, ...(named ? { appId: named } : {}) },
        });
        if (expectRefused(k, res, label)) continue;
        if (forbidden) {
          expect(res.status, label).toBe(403);
          expect((res.body as unknown as { error: { code: string } }).error.code).toBe('forbidden');
          counts.forbidden++;
          continue;
        }
        expect(res.status, `${label}: ${res.text}`).toBe(201);
        const app = named ?? k.app ?? 'default';
        expect(res.body.appId, label).toBe(app);
        memories.set(res.body.id, { id: res.body.id, app, userId, text });
        counts.stores++;
      } else if (roll < 0.45) {
        const userId = pick(USERS);
        const res = await call<{ memories: Array<{ id: string; appId: string; text: string }>; total: number }>(
          k,
          `/v1/memories?userId=${userId}&pageSize=100${appQuery}`,
        );
        if (expectRefused(k, res, label)) continue;
        if (forbidden) {
          expect(res.status, label).toBe(403);
          counts.forbidden++;
          continue;
        }
        expect(res.status, label).toBe(200);
        const expected = [...memories.values()]
          .filter((m) => m.userId === userId && visible(k, m) && (named === undefined || m.app === named))
          .map((m) => m.id)
          .sort();
        expect(res.body.memories.map((m) => m.id).sort(), label).toEqual(expected);
        expect(res.body.total, label).toBe(expected.length);
        counts.reads++;
      } else if (roll < 0.6) {
        const userId = pick(USERS);
        const res = await call<{ memories: Array<{ id: string; appId: string }> }>(k, `/v1/memories/recall?userId=${userId}&query=likes%20item&minScore=0&limit=100${appQuery}`);
        if (expectRefused(k, res, label)) continue;
        if (forbidden) {
          expect(res.status, label).toBe(403);
          counts.forbidden++;
          continue;
        }
        expect(res.status, label).toBe(200);
        const allowed = new Set(
          [...memories.values()].filter((m) => m.userId === userId && visible(k, m) && (named === undefined || m.app === named)).map((m) => m.id),
        );
        for (const m of res.body.memories) expect(allowed.has(m.id), `${label}: recall returned ${m.id} (${m.appId})`).toBe(true);
        counts.reads++;
      } else if (roll < 0.75) {
        const target = pick([...memories.values()]);
        const byUuid = random() < 0.3;
        let ref = target.id;
        if (byUuid) {
          const row = (store as SqliteStore).database.prepare('SELECT uuid FROM memories WHERE id = ?').get(target.id) as { uuid: string };
          ref = row.uuid;
        }
        const res = await call<{ deleted: number }>(k, `/v1/memories/${ref}`, { method: 'DELETE' });
        if (expectRefused(k, res, label)) continue;
        expect(res.status, label).toBe(200);
        const shouldDelete = visible(k, target);
        if (!shouldDelete) counts.crossAppAttempts++;
        expect(res.body.deleted, `${label}: delete ${target.id} of app ${target.app}`).toBe(shouldDelete ? 1 : 0);
        if (shouldDelete) memories.delete(target.id);
        counts.deletes++;
      } else if (roll < 0.85) {
        const targets = [...memories.values()].filter(() => random() < 0.3).slice(0, 8);
        if (targets.length === 0) continue;
        const res = await call<{ deleted: number }>(k, '/v1/memories/batch-delete', { method: 'POST', json: { ids: targets.map((t) => t.id) } });
        if (expectRefused(k, res, label)) continue;
        expect(res.status, label).toBe(200);
        const gone = targets.filter((t) => visible(k, t));
        if (gone.length < targets.length) counts.crossAppAttempts++;
        expect(res.body.deleted, label).toBe(gone.length);
        for (const t of gone) memories.delete(t.id);
        counts.deletes++;
      } else if (roll < 0.93) {
        const userId = pick(USERS);
        const res = await call<{ deleted: number }>(k, `/v1/memories?userId=${userId}${appQuery}`, { method: 'DELETE' });
        if (expectRefused(k, res, label)) continue;
        if (forbidden) {
          expect(res.status, label).toBe(403);
          counts.forbidden++;
          continue;
        }
        expect(res.status, label).toBe(200);
        const gone = [...memories.values()].filter((m) => m.userId === userId && visible(k, m) && (named === undefined || m.app === named));
        expect(res.body.deleted, label).toBe(gone.length);
        for (const m of gone) memories.delete(m.id);
        counts.deletes++;
      } else if (!k.revoked && keys.filter((x) => !x.revoked).length > 4) {
        // Revoke, then the very next request with it must fail.
        expect(await store.revokeKey(k.id, new Date().toISOString())).toBe(true);
        k.revoked = true;
        counts.revocations++;
        const res = await call(k, `/v1/memories?userId=${pick(USERS)}`);
        expect(res.status, label).toBe(401);
        counts.unauthorized++;
      }
    }

    // The database agrees with the model: nothing was deleted across apps, nothing leaked into another app.
    const rows = (store as SqliteStore).database
      .prepare('SELECT m.id AS id, a.slug AS app, m.user_id AS userId FROM memories m JOIN apps a ON a.id = m.app_id')
      .all() as Array<{ id: string; app: string; userId: string }>;
    expect(rows.map((r) => r.id).sort()).toEqual([...memories.keys()].sort());
    for (const r of rows) expect(r.app).toBe(memories.get(r.id)?.app);
    reportFigures('isolation', { seed, ...counts, keys: keys.length, survivors: memories.size, leaks: 0 });
  }, 120_000);
});

describe('revocation from another process', () => {
  it('a key revoked with `agent-memory keys revoke` fails at the server’s very next request', async () => {
    const { key, record } = await createApiKey(server.runtime.store, { app: 'alpha', label: 'cli-revoked' });
    const before = await callJson(server.url, key, '/v1/memories?userId=ann');
    expect(before.status).toBe(200);
    const revoke = await runCli(['keys', 'revoke', record.id, '--db', server.dbPath]);
    expect(revoke.code, revoke.stderr).toBe(0);
    const after = await callJson<{ error: { code: string } }>(server.url, key, '/v1/memories?userId=ann');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('auth_error');
    // The key list of the CLI never shows a secret, only its prefix.
    const list = await runCli(['keys', 'list', '--db', server.dbPath]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(record.id);
    expect(`${list.stdout}${list.stderr}`).not.toMatch(KEY_SHAPE);
  }, 60_000);
});

describe('keys never reach the logs', () => {
  it('no log line holds a key secret, whatever the client does with its key', async () => {
    const { key: bound } = await createApiKey(server.runtime.store, { app: 'beta', label: 'logged?' });
    const revokedKey = await createApiKey(server.runtime.store, { label: 'revoked' });
    await server.runtime.store.revokeKey(revokedKey.record.id, new Date().toISOString());
    const secrets = [firstRunKey, bound, revokedKey.key];
    const nearMiss = `${bound.slice(0, -1)}${bound.endsWith('A') ? 'B' : 'A'}`;
    const attempts: Array<[string, Record<string, string>, string?, string?]> = [
      ['/v1/memories?userId=ann', { Authorization: `Bearer ${firstRunKey}` }],
      ['/v1/memories?userId=ann', { Authorization: `Bearer ${bound}` }],
      ['/v1/memories?userId=ann', { Authorization: `Bearer ${revokedKey.key}` }],
      ['/v1/memories?userId=ann', { Authorization: `Bearer ${nearMiss}` }],
      ['/v1/memories?userId=ann', { Authorization: `Basic ${bound}` }],
      ['/v1/memories?userId=ann', { Authorization: `${bound}` }],
      ['/v1/memories?userId=ann', { Authorization: `Bearer ${bound} ${firstRunKey}` }],
      ['/v1/memories?userId=ann', { 'X-Api-Key': bound }],
      [`/v1/memories?userId=ann&key=${bound}`, {}],
      [`/v1/memories/${bound}`, { Authorization: `Bearer ${bound}` }],
      [`/v1/memories/${firstRunKey}`, { Authorization: `Bearer ${nearMiss}` }],
      [`/v1/${bound}`, { Authorization: `Bearer ${firstRunKey}` }],
      [`/v1/memories/${revokedKey.key}`, { Authorization: `Bearer ${bound}` }, 'DELETE'],
      ['/v1/memories', { Authorization: `Bearer ${bound}`, 'Content-Type': 'application/json' }, 'POST', JSON.stringify({ userId: bound, text: `my key is ${bound}` })],
      ['/v1/memories', { Authorization: `Bearer ${revokedKey.key}`, 'Content-Type': 'application/json' }, 'POST', '{broken'],
      ['/v1/memories/recall', { Authorization: `Bearer ${bound}`, 'Content-Type': 'application/json' }, 'POST', JSON.stringify({ userId: 'ann', query: bound })],
      ['/v1/memories', { Authorization: `Bearer ${bound}`, 'Idempotency-Key': bound, 'Content-Type': 'application/json' }, 'POST', JSON.stringify({ userId: 'ann', text: 'x' })],
      ['/v1/memories', { Authorization: `Bearer ${bound}`, 'Idempotency-Key': bound, 'Content-Type': 'application/json' }, 'POST', JSON.stringify({ userId: 'ann', text: 'y' })],
    ];
    const statuses: number[] = [];
    for (const [path, headers, method, body] of attempts) {
      const res = await fetch(`${server.url}${path}`, { method: method ?? 'GET', headers, ...(body !== undefined ? { body } : {}) });
      statuses.push(res.status);
      const text = await res.text();
      // Nor does an auth failure echo a key back.
      if (res.status === 401) for (const s of [...secrets, nearMiss]) expect(text, `${path} answered ${text}`).not.toContain(s);
    }
    expect(statuses).toContain(401);
    expect(server.logs.length).toBeGreaterThan(attempts.length);
    const leaks = server.logs.filter((line) => KEY_SHAPE.test(line) || secrets.some((s) => line.includes(s.slice(4, 20))));
    expect(leaks).toEqual([]);
    // The banner is the one place a secret appears, once.
    expect(server.notices.join('\n').split(firstRunKey).length - 1).toBe(1);
    reportFigures('keys-in-logs', { logLines: server.logs.length, requests: attempts.length, secretsInLogs: 0 });
  });

  it('nor does the CLI server’s stderr, at debug level, for the configured key', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'am-keylog-'));
    const cli = await spawnServer({ dbPath: join(dir, 'm.db'), logLevel: 'debug' });
    try {
      for (const auth of [`Bearer ${RELIABILITY_KEY}`, `Bearer ${RELIABILITY_KEY.slice(0, -1)}x`, 'Bearer nope']) {
        await fetch(`${cli.url}/v1/memories/${RELIABILITY_KEY}`, { headers: { Authorization: auth } });
      }
    } finally {
      await cli.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(cli.stderr()).toMatch(/"message":"request"/);
    expect(cli.stderr()).not.toMatch(KEY_SHAPE);
    expect(cli.stderr()).not.toContain(RELIABILITY_KEY.slice(4, 20));
  }, 60_000);
});

describe('key comparison timing', () => {
  /**
   * Why the design is constant-time: a presented key is never compared with stored keys character by character.
   * The authenticator hashes it (SHA-256: the work is the same for any 44-character input) and looks the digest up
   * by equality on a unique index; a guess sharing 39 characters with a real key has a digest unrelated to the real
   * one, so the lookup follows the same path as for a guess sharing none. The final check (`sameDigest`) compares
   * two fixed-length digests with crypto.timingSafeEqual. This test cannot see nanoseconds on a shared 2-core
   * runner; it guards against a gross dependence (a prefix scan, a LIKE query, an early-exit loop over the key),
   * and the spy below checks the structure: the store is only ever asked for a SHA-256 digest, never the key.
   */
  it('takes as long for a key sharing 39 leading characters with a real key as for one sharing none', async () => {
    const store = SqliteStore.open({ path: ':memory:' });
    try {
      const asked: string[] = [];
      const spied = new Proxy(store, {
        get(target, prop, receiver) {
          if (prop === 'findKeyByHash') {
            return (hash: string) => {
              asked.push(hash);
              return target.findKeyByHash(hash);
            };
          }
          const value = Reflect.get(target, prop, receiver) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }) as unknown as MemoryStore;
      const { key: real } = await createApiKey(store, { label: 'real' });
      const secret = real.slice(4);
      const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
      const other = (c: string) => alphabet[(alphabet.indexOf(c) + 31) % 62] ?? 'A';
      const near = `amk_${secret.slice(0, 39)}${other(secret[39] ?? 'A')}`; // 39 leading characters right
      const far = `amk_${[...secret].map(other).join('')}`; // none right
      expect(near).toMatch(API_KEY_PATTERN);
      expect(far).toMatch(API_KEY_PATTERN);
      const auth = new Authenticator({ store: spied });
      await expect(auth.authenticate(`Bearer ${real}`)).resolves.toMatchObject({ boundApp: null });

      const batch = async (key: string, n: number): Promise<number> => {
        const header = `Bearer ${key}`;
        const started = process.hrtime.bigint();
        for (let i = 0; i < n; i++) {
          try {
            await auth.authenticate(header);
            throw new Error('an unknown key was accepted');
          } catch (error) {
            if ((error as { code?: string }).code !== 'auth_error') throw error;
          }
        }
        return Number(process.hrtime.bigint() - started) / n;
      };
      // Warm up (JIT, statement cache), then interleave: each trial times both keys back to back, in an order that
      // alternates, and compares them with each other, so that drift and noise from other processes fall on both.
      // The median of the paired ratios is the statistic; a busy runner gets up to three fresh measurements.
      await batch(near, 300);
      await batch(far, 300);
      const median = (xs: number[]) => {
        const s = [...xs].sort((a, b) => a - b);
        return ((s[Math.floor((s.length - 1) / 2)] ?? 0) + (s[Math.ceil((s.length - 1) / 2)] ?? 0)) / 2;
      };
      let ratio = Number.POSITIVE_INFINITY;
      let attempts = 0;
      let nearNs: number[] = [];
      let farNs: number[] = [];
      while (attempts < 3 && !(ratio < 2)) {
        attempts++;
        nearNs = [];
        farNs = [];
        const ratios: number[] = [];
        for (let trial = 0; trial < 40; trial++) {
          let n: number;
          let f: number;
          if (trial % 2 === 0) {
            n = await batch(near, 150);
            f = await batch(far, 150);
          } else {
            f = await batch(far, 150);
            n = await batch(near, 150);
          }
          nearNs.push(n);
          farNs.push(f);
          ratios.push(n / f);
        }
        const m = median(ratios);
        ratio = Math.max(m, 1 / m);
      }
      reportFigures('key-timing', {
        medianNearNs: Math.round(median(nearNs)),
        medianFarNs: Math.round(median(farNs)),
        pairedRatio: ratio.toFixed(3),
        attempts,
        calls: attempts * 2 * 40 * 150,
      });
      // A margin only a real regression crosses: noise on a busy machine moves the paired median by tens of percent
      // (1.05 on an idle one), while the dependence this guards against (the database scanning or matching on the
      // key instead of looking up its digest) costs a steady multiple. The structure below is the finer guarantee.
      expect(ratio).toBeLessThan(2);

      // Structure: every lookup was by the SHA-256 of the presented key; the secret never reached the store.
      expect(asked.length).toBeGreaterThan(0);
      for (const hash of asked) expect(hash).toMatch(/^[0-9a-f]{64}$/);
      const digests = new Set([real, near, far].map((k) => createHash('sha256').update(k).digest('hex')));
      for (const hash of new Set(asked)) expect(digests.has(hash)).toBe(true);
    } finally {
      await store.close();
    }
  }, 60_000);
});
