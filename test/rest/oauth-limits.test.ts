/**
 * The OAuth endpoints' rate limits behind the README's TLS proxy: registration has its own bucket (a registration
 * flood from anyone does not refuse token requests), and X-Forwarded-For names the client only when the peer is a
 * trusted proxy (--trust-proxy).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const PER_MINUTE = 20;

async function start(trustProxy?: string[]): Promise<TestServer> {
  const s = await startTestServer({ oauth: { publicUrl: 'http://127.0.0.1:1' }, rateLimit: PER_MINUTE, ...(trustProxy ? { trustProxy } : {}) });
  server = s;
  return s;
}

const register = (s: TestServer, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }),
  });

const refresh = (s: TestServer, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'amr_unknown', client_id: 'unknown' }),
  });

async function statuses(count: number, call: () => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await call()).status);
  return out;
}

describe('OAuth rate limits', () => {
  it('gives registration a bucket of its own: a flood of registrations does not refuse token requests', async () => {
    const s = await start();
    const flood = await statuses(PER_MINUTE + 10, () => register(s));
    expect(flood.filter((c) => c === 429).length).toBeGreaterThanOrEqual(10);
    // Token traffic from the same address still gets answers (an unknown refresh token: 400), not 429.
    expect(new Set(await statuses(10, () => refresh(s)))).toEqual(new Set([400]));
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const s = await start();
    let n = 0;
    const spoofed = await statuses(PER_MINUTE + 5, () => register(s, { 'X-Forwarded-For': `203.0.113.${++n}` }));
    expect(spoofed.filter((c) => c === 429).length).toBeGreaterThanOrEqual(5);
  });

  it('behind a trusted proxy, charges each client named by X-Forwarded-For (the rightmost untrusted address)', async () => {
    const s = await start(['loopback']);
    let n = 0;
    // Each registration from another client: none is refused, though all arrive from 127.0.0.1.
    expect(new Set(await statuses(PER_MINUTE + 5, () => register(s, { 'X-Forwarded-For': `203.0.113.${++n}` })))).toEqual(new Set([201]));
    // One client, whatever it puts on the left of the header itself: its own address is the rightmost untrusted one.
    let m = 0;
    const one = await statuses(PER_MINUTE + 5, () => register(s, { 'X-Forwarded-For': `198.51.100.${++m}, 192.0.2.7` }));
    expect(one.filter((c) => c === 429).length).toBeGreaterThanOrEqual(5);
  });
});
