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

describe('OAuth client registration bounds', () => {
  it('answers 429 with Retry-After while too many clients wait unused, and 403 once the total is reached', async () => {
    const s = await startTestServer({ oauth: { publicUrl: 'http://127.0.0.1:1', clientLimits: { unused: 2, total: 3 } } });
    server = s;
    expect(await statuses(2, () => register(s))).toEqual([201, 201]);
    const busy = await register(s);
    expect(busy.status).toBe(429);
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await busy.json()) as { error: string }).error).toBe('temporarily_unavailable');
    // A person allows one of them: one more may register, then the total is reached.
    await s.runtime.store.markOAuthClientAuthorized((await s.runtime.store.listOAuthClients())[0]?.id ?? '', new Date().toISOString());
    expect((await register(s)).status).toBe(201);
    const full = await register(s);
    expect(full.status).toBe(403);
    expect((await full.json()) as { error: string; error_description: string }).toMatchObject({ error: 'access_denied', error_description: expect.stringMatching(/oauth revoke/) as unknown });
  });

  it('takes registrations only with the initial access token when registration is closed', async () => {
    const token = 'registration-token-0123456789';
    const s = await startTestServer({ oauth: { publicUrl: 'http://127.0.0.1:1', registrationToken: token } });
    server = s;
    for (const headers of [{} as Record<string, string>, { Authorization: 'Bearer wrong-token-0123456789' }, { Authorization: `Basic ${token}` }]) {
      const res = await register(s, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_token');
    }
    expect((await register(s, { Authorization: `Bearer ${token}` })).status).toBe(201);
    expect(await s.runtime.store.countOAuthClients()).toEqual({ total: 1, unused: 1 });
  });
});
