/**
 * Rate limiting under concurrent bursts: per key, no more requests pass than the bucket holds plus what refilled
 * while the burst ran; every refusal is a contract 429 with Retry-After and changes nothing; other keys are not
 * affected; and the key recovers at the configured rate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/core/key-admin.js';
import type { SqliteDatabase } from '../../src/storage/sqlite/connection.js';
import { openForCheck } from './support/db.js';
import { reportFigures } from './support/figures.js';
import { callJson, sleep, type JsonResult } from './support/http.js';
import { startCapturedServer, type CapturedServer } from './support/inproc.js';

const PER_MINUTE = 30; // burst 30, refills one token every 2 s
const PER_SECOND = PER_MINUTE / 60;

let server: CapturedServer;
let db: SqliteDatabase;
const keys: Record<'a' | 'b' | 'c' | 'd' | 'e', string> = { a: '', b: '', c: '', d: '', e: '' };

beforeAll(async () => {
  server = await startCapturedServer({ rateLimit: PER_MINUTE });
  db = openForCheck(server.dbPath);
  for (const name of Object.keys(keys) as Array<keyof typeof keys>) {
    keys[name] = (await createApiKey(server.runtime.store, { app: `app-${name}`, label: name })).key;
  }
});

afterAll(async () => {
  db?.close();
  await server?.stop();
});

function checkLimited(res: JsonResult<{ error?: { code: string } }>): void {
  expect(res.headers.get('ratelimit-limit')).toBe(String(PER_MINUTE));
  expect(Number(res.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
  expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
  if (res.status === 429) {
    expect(res.body.error?.code).toBe('rate_limit');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }
}

describe('rate limit under concurrent bursts', () => {
  it('lets no more than the budget through per key, whatever the concurrency, and leaves other keys alone', async () => {
    const routes = ['/v1/memories?userId=u', '/v1/memories/u?page=1', '/v1/memories/mem_000000000000'];
    const burst = async (key: string, n: number) => {
      const started = performance.now();
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          callJson<{ error?: { code: string } }>(server.url, key, routes[i % routes.length] ?? '/', { method: i % 3 === 2 ? 'DELETE' : 'GET' }),
        ),
      );
      return { results, seconds: (performance.now() - started) / 1000 };
    };
    // Two keys burst at once; a third makes one call in the middle.
    const [a, b, c] = await Promise.all([burst(keys.a, 200), burst(keys.b, 120), sleep(20).then(() => burst(keys.c, 1))]);
    for (const { results, seconds } of [a, b]) {
      const passed = results.filter((r) => r.status === 200).length;
      const refused = results.filter((r) => r.status === 429).length;
      expect(passed + refused).toBe(results.length);
      expect(passed).toBeLessThanOrEqual(PER_MINUTE + Math.ceil(seconds * PER_SECOND) + 1);
      expect(passed).toBeGreaterThanOrEqual(PER_MINUTE);
      results.forEach(checkLimited);
    }
    expect(c.results[0]?.status).toBe(200);
    reportFigures('rate-limit/burst', {
      budget: PER_MINUTE,
      sent: a.results.length + b.results.length,
      passedA: a.results.filter((r) => r.status === 200).length,
      passedB: b.results.filter((r) => r.status === 200).length,
      refused: [...a.results, ...b.results].filter((r) => r.status === 429).length,
    });
  }, 60_000);

  it('a refused store stores nothing: exactly the stores that passed are in the database', async () => {
    const results = await Promise.all(
      Array.from({ length: PER_MINUTE + 15 }, (_, i) =>
        callJson<{ id?: string; error?: { code: string } }>(server.url, keys.d, '/v1/memories', {
          method: 'POST',
          json: { userId: 'burst', text: `burst store ${i}` },
        }),
      ),
    );
    const stored = results.filter((r) => r.status === 201);
    expect(results.filter((r) => r.status !== 201 && r.status !== 429)).toEqual([]);
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    const rows = db.prepare("SELECT id FROM memories WHERE user_id = 'burst'").all() as Array<{ id: string }>;
    expect(rows.map((r) => r.id).sort()).toEqual(stored.map((r) => r.body.id).sort());
  }, 90_000);

  it('recovers: after Retry-After a request passes, and tokens come back at the configured rate', async () => {
    const first = await Promise.all(Array.from({ length: PER_MINUTE + 5 }, () => callJson(server.url, keys.e, '/v1/memories?userId=u')));
    const refused = first.find((r) => r.status === 429);
    expect(refused).toBeDefined();
    const retryAfter = Number(refused?.headers.get('retry-after'));
    await sleep(retryAfter * 1000 + 100);
    expect((await callJson(server.url, keys.e, '/v1/memories?userId=u')).status).toBe(200);
    // Paced for a few seconds: about PER_SECOND pass each second, never a burst.
    const windowMs = 6_000;
    const started = performance.now();
    let passed = 0;
    while (performance.now() - started < windowMs) {
      const res = await callJson(server.url, keys.e, '/v1/memories?userId=u');
      if (res.status === 200) passed++;
      else expect(res.status).toBe(429);
      await sleep(100);
    }
    const seconds = (performance.now() - started) / 1000;
    expect(passed).toBeLessThanOrEqual(Math.ceil(seconds * PER_SECOND) + 1);
    expect(passed).toBeGreaterThanOrEqual(Math.floor(seconds * PER_SECOND) - 1);
    reportFigures('rate-limit/recovery', { retryAfterS: retryAfter, windowS: seconds.toFixed(1), passedInWindow: passed });
  }, 60_000);
});
