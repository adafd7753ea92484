/**
 * The authorization server's rules without HTTP, on a real SQLite store, with a clock the test moves: redirect URIs,
 * scopes, lifetimes, single use, and who may approve.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Authenticator, CONFIGURED_KEY_ID } from '../../../src/core/auth.js';
import { createApiKey } from '../../../src/core/key-admin.js';
import { OAuthProblem } from '../../../src/core/oauth/problem.js';
import { checkRedirectUri, redirectRegistered } from '../../../src/core/oauth/redirects.js';
import { OAuthServer } from '../../../src/core/oauth/server.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';

const RESOURCE = 'https://m.example.com/mcp';
const REDIRECT = 'https://claude.ai/api/mcp/auth_callback';
const CONFIGURED = `amk_${'C'.repeat(40)}`;

let store: SqliteStore;
let now: number;
let oauth: OAuthServer;
let key: string;

beforeEach(async () => {
  store = SqliteStore.open({ path: ':memory:' });
  now = Date.parse('2026-01-01T00:00:00.000Z');
  oauth = new OAuthServer({ store, authenticator: new Authenticator({ store, extraKeys: [CONFIGURED] }), resources: [RESOURCE], now: () => now });
  key = (await createApiKey(store, { label: 'k' })).key;
});
afterEach(async () => {
  await store.close();
});

/** A client as /oauth/register makes one (public unless it asks for a secret). */
async function register(registration: Parameters<OAuthServer['registerClient']>[0]) {
  return (await oauth.registerClient({ token_endpoint_auth_method: 'none', ...registration })).client;
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function code(options: { scope?: string; apiKey?: string } = {}) {
  const client = await register({ client_name: 'c', redirect_uris: [REDIRECT] });
  const { verifier, challenge } = pkce();
  const request = await oauth.beginConsent({ client, redirectUri: REDIRECT, codeChallenge: challenge, state: 's', scope: options.scope, resource: RESOURCE });
  const outcome = await oauth.answerConsent({ pendingId: request.pendingId, csrf: request.csrf, apiKey: options.apiKey ?? key, allow: true });
  if (outcome.kind !== 'redirect') throw new Error(outcome.kind);
  return { client, verifier, code: new URL(outcome.url).searchParams.get('code') ?? '' };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof OAuthProblem)) throw new Error(`expected an OAuthProblem, got ${String(error)}`);
  return error.code;
}

describe('redirect URIs', () => {
  it('registers https, loopback http and private-use schemes only', () => {
    for (const ok of [REDIRECT, 'http://127.0.0.1:3000/cb', 'http://[::1]/cb', 'com.example.app:/cb']) expect(checkRedirectUri(ok)).toBe(ok);
    for (const bad of ['http://evil.example/cb', 'javascript:alert(1)', 'data:text/html,x', 'https://a.example/cb#f', 'https://u:p@a.example/cb', 'myapp:/cb', '/relative']) {
      expect(() => checkRedirectUri(bad), bad).toThrow(OAuthProblem);
    }
  });

  it('matches exactly, except the port of a loopback http redirect', () => {
    expect(redirectRegistered(REDIRECT, [REDIRECT])).toBe(true);
    expect(redirectRegistered(`${REDIRECT}/`, [REDIRECT])).toBe(false);
    expect(redirectRegistered(`${REDIRECT}?x=1`, [REDIRECT])).toBe(false);
    expect(redirectRegistered('http://127.0.0.1:5555/cb', ['http://127.0.0.1:3000/cb'])).toBe(true);
    expect(redirectRegistered('http://127.0.0.1:5555/other', ['http://127.0.0.1:3000/cb'])).toBe(false);
    expect(redirectRegistered('http://[::1]:5555/cb', ['http://127.0.0.1:3000/cb'])).toBe(false);
    expect(redirectRegistered('https://127.0.0.1:5555/cb', ['https://127.0.0.1:3000/cb'])).toBe(false);
  });
});

describe('the authorization server', () => {
  it('refuses unknown scopes, a missing or foreign resource, and a challenge that is not S256-shaped', async () => {
    const client = await register({ redirect_uris: [REDIRECT] });
    const base = { client, redirectUri: REDIRECT, codeChallenge: pkce().challenge, state: undefined, scope: undefined, resource: RESOURCE };
    expect(await refusal(oauth.beginConsent({ ...base, scope: 'memory:read admin' }))).toBe('invalid_scope');
    expect(await refusal(oauth.beginConsent({ ...base, resource: undefined }))).toBe('invalid_target');
    expect(await refusal(oauth.beginConsent({ ...base, resource: 'https://m.example.com/other' }))).toBe('invalid_target');
    expect(await refusal(oauth.beginConsent({ ...base, codeChallenge: 'plain' }))).toBe('invalid_request');
    expect((await oauth.beginConsent(base)).scopes).toEqual(['memory:read', 'memory:write']);
  });

  it('lets a consent form be answered once, within ten minutes', async () => {
    const client = await register({ redirect_uris: [REDIRECT] });
    const request = await oauth.beginConsent({ client, redirectUri: REDIRECT, codeChallenge: pkce().challenge, state: undefined, scope: undefined, resource: RESOURCE });
    now += 11 * 60 * 1000;
    expect((await oauth.answerConsent({ pendingId: request.pendingId, csrf: request.csrf, apiKey: key, allow: true })).kind).toBe('refused');
    expect((await oauth.answerConsent({ pendingId: request.pendingId, csrf: request.csrf, apiKey: key, allow: true })).kind).toBe('refused');
  });

  it('takes only a stored, live key on the consent page: not the configured key, not a revoked one', async () => {
    const client = await register({ redirect_uris: [REDIRECT] });
    const begin = () => oauth.beginConsent({ client, redirectUri: REDIRECT, codeChallenge: pkce().challenge, state: undefined, scope: undefined, resource: RESOURCE });
    let request = await begin();
    const configured = await oauth.answerConsent({ pendingId: request.pendingId, csrf: request.csrf, apiKey: CONFIGURED, allow: true });
    expect(configured.kind).toBe('again');
    expect(CONFIGURED_KEY_ID).toBe('key_configured');
    const revoked = await createApiKey(store, {});
    await store.revokeKey(revoked.record.id, new Date(now).toISOString());
    request = await begin();
    expect((await oauth.answerConsent({ pendingId: request.pendingId, csrf: request.csrf, apiKey: revoked.key, allow: true })).kind).toBe('again');
  });

  it('expires a code after a minute and an access token after its lifetime', async () => {
    const late = await code();
    now += 61_000;
    expect(await refusal(oauth.exchangeCode(late.client.id, late.code, late.verifier, REDIRECT, RESOURCE))).toBe('invalid_grant');

    const g = await code();
    const tokens = await oauth.exchangeCode(g.client.id, g.code, g.verifier, REDIRECT, RESOURCE);
    expect((await oauth.verifyAccessToken(tokens.access_token)).scopes).toEqual(['memory:read', 'memory:write']);
    now += tokens.expires_in * 1000;
    await expect(oauth.verifyAccessToken(tokens.access_token)).rejects.toThrow('expired');
  });

  it('binds a code to its client and redirect URI', async () => {
    const g = await code();
    const other = await register({ redirect_uris: [REDIRECT] });
    expect(await refusal(oauth.exchangeCode(other.id, g.code, g.verifier, REDIRECT, RESOURCE))).toBe('invalid_grant');
    expect(await refusal(oauth.exchangeCode(g.client.id, g.code, g.verifier, `${REDIRECT}x`, RESOURCE))).toBe('invalid_grant');
  });

  it('never widens scopes on refresh, and may narrow them', async () => {
    const ro = await code({ scope: 'memory:read' });
    const readOnly = await oauth.exchangeCode(ro.client.id, ro.code, ro.verifier, REDIRECT, RESOURCE);
    expect(await refusal(oauth.refresh(ro.client.id, readOnly.refresh_token, 'memory:write', undefined))).toBe('invalid_scope');

    const rw = await code();
    const full = await oauth.exchangeCode(rw.client.id, rw.code, rw.verifier, REDIRECT, RESOURCE);
    const narrowed = await oauth.refresh(rw.client.id, full.refresh_token, 'memory:read', undefined);
    expect(narrowed.scope).toBe('memory:read');
    expect(await refusal(oauth.refresh(ro.client.id, narrowed.refresh_token, undefined, undefined))).toBe('invalid_grant');
  });

  it('refuses to refresh a grant for a resource it no longer serves (restart with another public URL), and keeps it usable there', async () => {
    const g = await code();
    const tokens = await oauth.exchangeCode(g.client.id, g.code, g.verifier, REDIRECT, RESOURCE);
    // The same database, served under another public URL: the old grant's access token is refused there...
    const moved = new OAuthServer({ store, authenticator: new Authenticator({ store, extraKeys: [CONFIGURED] }), resources: ['https://new.example.com/mcp'], now: () => now });
    await expect(moved.verifyAccessToken(tokens.access_token)).rejects.toThrow(/another resource/);
    // ...so a refresh must not hand out a new pair that would be refused too (a client would loop refresh -> 401).
    const refused = await moved.refresh(g.client.id, tokens.refresh_token, undefined, undefined).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OAuthProblem);
    expect((refused as OAuthProblem).code).toBe('invalid_grant');
    expect((refused as OAuthProblem).message).toMatch(/no longer serves; authorize again/);
    // The refusal did not use the refresh token up: back under the old URL it still works.
    expect((await oauth.refresh(g.client.id, tokens.refresh_token, undefined, undefined)).token_type).toBe('Bearer');
  });

  it('gives a client that asks for client_secret_post (as claude.ai does) a secret, kept as its hash only', async () => {
    const { client, secret } = await oauth.registerClient({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' });
    expect(secret).toMatch(/^amcl_/);
    expect(client.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await store.listOAuthClients())).not.toContain(secret ?? '-');
    expect((await oauth.registerClient({ redirect_uris: [REDIRECT] })).secret).not.toBeNull();
    expect((await oauth.registerClient({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })).secret).toBeNull();
    expect(await refusal(oauth.registerClient({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' }))).toBe('invalid_client_metadata');
  });

  it('prunes what has expired', async () => {
    const g = await code();
    await oauth.exchangeCode(g.client.id, g.code, g.verifier, REDIRECT, RESOURCE);
    now += 31 * 24 * 3600 * 1000;
    expect(await store.pruneOAuth(new Date(now).toISOString(), 100)).toBe(3);
  });
});

describe('registered clients are bounded', () => {
  it('deletes clients that never completed an authorization after their time, and keeps authorized ones', async () => {
    const done = await code();
    const unused = await register({ client_name: 'never authorized', redirect_uris: [REDIRECT] });
    const opened = await register({ client_name: 'consent page open', redirect_uris: [REDIRECT] });
    await oauth.beginConsent({ client: opened, redirectUri: REDIRECT, codeChallenge: pkce().challenge, state: undefined, scope: undefined, resource: RESOURCE });
    expect(await store.countOAuthClients()).toEqual({ total: 3, unused: 2 });
    expect((await store.findOAuthClient(done.client.id))?.authorizedAt).toBe(new Date(now).toISOString());

    await oauth.pruneNow();
    expect((await store.listOAuthClients()).length).toBe(3); // younger than an hour: all kept
    now += 3_601_000;
    await oauth.pruneNow();
    // The unused one is gone; the authorized one stays (its code expired and was pruned too); the one whose consent
    // page was open went with its pending request, which expired first.
    const left = (await store.listOAuthClients()).map((c) => c.id);
    expect(left).toContain(done.client.id);
    expect(left).not.toContain(unused.id);
    expect(await oauth.client(unused.id)).toBeUndefined();
  });

  it('refuses registration while too many clients wait unused (busy), and when the total is reached (full)', async () => {
    const limited = new OAuthServer({
      store,
      authenticator: new Authenticator({ store }),
      resources: [RESOURCE],
      now: () => now,
      clientLimits: { unused: 2, total: 3, unusedTtlSeconds: 60 },
    });
    expect(await limited.registrationRefusal()).toBeUndefined();
    await limited.registerClient({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    await limited.registerClient({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const busy = await limited.registrationRefusal();
    expect(busy?.kind).toBe('busy');
    expect(busy?.retryAfterSeconds).toBeGreaterThan(0);
    // An hour later housekeeping has removed them: registration is open again.
    now += 61_000;
    await limited.pruneNow();
    expect(await limited.registrationRefusal()).toBeUndefined();
    await code(); // three authorized clients through the default server: the total is reached
    await code();
    await code();
    expect((await limited.registrationRefusal())?.kind).toBe('full');
  });
});
