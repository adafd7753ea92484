import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 5 });
});
afterAll(async () => {
  await server.stop();
});

describe('rate limit', () => {
  it('sends RateLimit headers, then 429 with Retry-After once the bucket is empty', async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 7; i++) {
      last = await server.call('/v1/memories/limited');
      statuses.push(last.status);
      if (i === 0) {
        expect(last.headers.get('ratelimit-limit')).toBe('5');
        expect(last.headers.get('ratelimit-remaining')).toBe('4');
        expect(Number(last.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await last?.json()) as ErrorJson).error.code).toBe('rate_limit');
  });

  it('sends RateLimit headers on a 401 too, charged to the client\u2019s address, and ends key guessing with 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await server.call('/v1/memories?userId=a', { headers: { Authorization: `Bearer amk_${String(i).repeat(40)}` } });
      statuses.push(res.status);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
      expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
      if (res.status === 401) expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // The valid key has a bucket of its own.
    expect((await server.call('/v1/memories?userId=a')).status).not.toBe(401);
  });

  it('does not limit health checks', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
