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

  it('does not limit health checks', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
