/**
 * OAuth 2.1 on /mcp and /v1 for hosted MCP clients, end to end: the MCP SDK's own client (`auth()` with an
 * OAuthClientProvider, StreamableHTTPClientTransport) against a live server started with `oauth`, the consent step
 * done in Debian's Chromium on the real page (typing the key, pressing Allow or Deny), and a second node on the same
 * database for revocation. Without a Chromium the whole file is skipped, and says why.
 */
import { createServer } from 'node:net';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/core/key-admin.js';
import type { MemoryService } from '../../src/core/service.js';
import { createMcpHttpHandler } from '../../src/mcp/http.js';
import { findChromium, launchChromium, type Browser } from '../console/support/browser.js';
import { modernToolCall } from '../helpers/mcp-modern.js';
import { startTestServer, TEST_BACKEND, TEST_KEY, TEST_METRICS_TOKEN, type TestServer } from '../helpers/server.js';
import { consent, MemoryOAuthClient, pkce, startCallback, type Callback } from './support/oauth-client.js';

const found = findChromium();
const chromiumPath = 'path' in found ? found.path : undefined;
if (!chromiumPath) console.warn(`[oauth tests] SKIPPED: ${'reason' in found ? found.reason : ''}`);

/** A free loopback port, so that the public URL can be named before the server starts. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** /mcp as `serve` mounts it, with the DNS-rebinding guard of a loopback server. */
const mcpHandler = (service: MemoryService) => createMcpHttpHandler({ service, allowedHostnames: ['localhost', '127.0.0.1', '[::1]'] });

interface TokenJson {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
  token_type: string;
}

describe.skipIf(!chromiumPath)(`OAuth for hosted MCP clients${chromiumPath ? '' : ' (skipped: no Chromium installed)'}`, () => {
  let server: TestServer;
  let second: TestServer | undefined;
  let browser: Browser;
  let callback: Callback;
  let publicUrl: string;
  let mcpUrl: string;
  let key: string;

  beforeAll(async () => {
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    mcpUrl = `${publicUrl}/mcp`;
    server = await startTestServer({ port, oauth: { publicUrl }, metricsToken: TEST_METRICS_TOKEN }, { mcpHandler });
    if (TEST_BACKEND === 'sqlite') {
      second = await startTestServer({ dbPath: server.dbPath, oauth: { publicUrl } }, { mcpHandler });
    }
    key = (await createApiKey(server.runtime.store, { label: 'assistant' })).key;
    callback = await startCallback();
    browser = await launchChromium(chromiumPath ?? '');
  });

  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await second?.stop();
    await server?.stop();
  });


  const post = (path: string, form: Record<string, string>, base = server.url) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });

  const bearer = (token: string, path = '/v1/users', base = server.url, init: RequestInit = {}) =>
    fetch(`${base}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.headers as Record<string, string> | undefined) } });

  /** Registers a client by hand (RFC 7591) and takes one authorization through the page; returns its code. */
  async function grant(options: { scope?: string; resource?: string; apiKey?: string } = {}) {
    const reg = await fetch(`${server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Hand-made client', redirect_uris: [callback.url], token_endpoint_auth_method: 'none' }),
    });
    expect(reg.status).toBe(201);
    const client = (await reg.json()) as { client_id: string; client_secret?: string };
    expect(client.client_secret).toBeUndefined();
    const { verifier, challenge } = pkce();
    const url = new URL(`${server.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: callback.url,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st-123',
      scope: options.scope ?? 'memory:read memory:write',
      resource: options.resource ?? mcpUrl,
    }).toString();
    const answer = await consent(browser.context, url, callback, { key: options.apiKey ?? key, button: 'Allow' });
    const code = answer.redirect?.searchParams.get('code');
    expect(answer.redirect?.searchParams.get('state')).toBe('st-123');
    if (!code) throw new Error(`no code: ${answer.pageText}`);
    return { clientId: client.client_id, code, verifier };
  }

  const exchange = (g: { clientId: string; code: string; verifier: string }, extra: Record<string, string> = {}) =>
    post('/oauth/token', { grant_type: 'authorization_code', client_id: g.clientId, code: g.code, code_verifier: g.verifier, redirect_uri: callback.url, resource: mcpUrl, ...extra });

  async function tokens(options: Parameters<typeof grant>[0] = {}) {
    const g = await grant(options);
    const res = await exchange(g);
    expect(res.status).toBe(200);
    return { ...g, tokens: (await res.json()) as TokenJson };
  }

  it('publishes the metadata documents, and challenges a request without a token with where to find them', async () => {
    const as = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: publicUrl,
      authorization_endpoint: `${publicUrl}/oauth/authorize`,
      token_endpoint: `${publicUrl}/oauth/token`,
      registration_endpoint: `${publicUrl}/oauth/register`,
      revocation_endpoint: `${publicUrl}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
    });
    const prm = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: mcpUrl, authorization_servers: [publicUrl], scopes_supported: ['memory:read', 'memory:write'] });
    const root = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(root).toMatchObject({ resource: `${publicUrl}/`, authorization_servers: [publicUrl] });

    const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp", scope="memory:read memory:write"`,
    );
    const v1 = await fetch(`${server.url}/v1/users`);
    expect(v1.headers.get('www-authenticate')).toContain(`resource_metadata="${publicUrl}/.well-known/oauth-protected-resource"`);
    // Static API keys keep working beside OAuth.
    expect((await server.call('/v1/users')).status).toBe(200);
  });

  it('lets the SDK client discover, register, get consent in the browser, exchange, and use /mcp; then refresh', async () => {
    const provider = new MemoryOAuthClient(callback.url);
    expect(await auth(provider, { serverUrl: mcpUrl })).toBe('REDIRECT');
    const authorizationUrl = provider.authorizationUrl;
    if (!authorizationUrl) throw new Error('no authorization URL');
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl);

    const answer = await consent(browser.context, authorizationUrl, callback, {
      key,
      button: 'Allow',
      before: async (page) => {
        const text = await page.locator('main').innerText();
        expect(text).toContain('Allow Test Assistant to use your memory?');
        expect(text).toContain(callback.url);
        expect(text).toContain('memory:read');
        expect(text).toContain('memory:write');
      },
    });
    const code = answer.redirect?.searchParams.get('code');
    expect(code).toMatch(/^amac_/);
    expect(await auth(provider, { serverUrl: mcpUrl, authorizationCode: code ?? '' })).toBe('AUTHORIZED');
    const first = provider.tokens();
    expect(first?.access_token).toMatch(/^amat_/);

    const client = new Client({ name: 'oauth-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('store_memory');
    const stored = (await client.callTool({ name: 'store_memory', arguments: { userId: 'oauth-user', text: 'The user keeps bees on the roof.' } })) as CallToolResult;
    expect(stored.isError).toBeFalsy();
    const recalled = (await client.callTool({ name: 'recall_memories', arguments: { userId: 'oauth-user', query: 'bees' } })) as CallToolResult;
    expect(JSON.stringify(recalled.content)).toContain('bees on the roof');
    await client.close();

    // Refresh: a new pair; the old refresh token, used again, revokes the whole grant (the new tokens included).
    expect(await auth(provider, { serverUrl: mcpUrl })).toBe('AUTHORIZED');
    const second = provider.tokens();
    expect(second?.access_token).not.toBe(first?.access_token);
    expect(second?.refresh_token).not.toBe(first?.refresh_token);
    expect((await bearer(second?.access_token ?? '')).status).toBe(200);
    const info = provider.clientInformation();
    const reuse = await post('/oauth/token', { grant_type: 'refresh_token', client_id: info?.client_id ?? '', refresh_token: first?.refresh_token ?? '' });
    expect(reuse.status).toBe(400);
    expect(((await reuse.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await bearer(second?.access_token ?? '')).status).toBe(401);
  });

  it('acts as the key that approved it: revoking the key ends its tokens on another node within a second', async () => {
    if (!second) return; // one database per server on the PostgreSQL lane
    const own = await createApiKey(server.runtime.store, { label: 'to revoke' });
    const { tokens: t } = await tokens({ apiKey: own.key });
    expect((await bearer(t.access_token, '/v1/users', second.url)).status).toBe(200);
    await server.runtime.store.revokeKey(own.record.id, new Date().toISOString());
    const started = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - started < 1000) status = (await bearer(t.access_token, '/v1/users', second.url)).status;
    expect(status).toBe(401);
    const refreshed = await post('/oauth/token', { grant_type: 'refresh_token', client_id: (await grant()).clientId, refresh_token: t.refresh_token }, second.url);
    expect(refreshed.status).toBe(400);
  });

  it('keeps a token of a bound key in that key\'s app', async () => {
    const bound = await createApiKey(server.runtime.store, { app: 'assistant-app', label: 'bound' });
    const { tokens: t } = await tokens({ apiKey: bound.key });
    const json = { 'Content-Type': 'application/json' };
    const stored = await bearer(t.access_token, '/v1/memories', server.url, { method: 'POST', headers: json, body: JSON.stringify({ userId: 'bound-user', text: 'Kept in the bound app.' }) });
    expect(stored.status).toBe(201);
    expect(((await stored.json()) as { appId: string }).appId).toBe('assistant-app');
    const other = await bearer(t.access_token, '/v1/memories', server.url, { method: 'POST', headers: json, body: JSON.stringify({ userId: 'bound-user', text: 'Elsewhere.', appId: 'other-app' }) });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });

  it('revokes a grant (RFC 7009) and a whole client', async () => {
    const a = await tokens();
    const res = await post('/oauth/revoke', { client_id: a.clientId, token: a.tokens.refresh_token });
    expect(res.status).toBe(200);
    expect((await bearer(a.tokens.access_token)).status).toBe(401);

    const b = await tokens();
    expect(await server.runtime.store.revokeOAuthClient(b.clientId, new Date().toISOString())).toBe(true);
    expect((await bearer(b.tokens.access_token)).status).toBe(401);
  });

  it('registers a confidential client as claude.ai does (client_secret_post) and takes its secret in the body or as Basic', async () => {
    const reg = await fetch(`${server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Claude',
        redirect_uris: [callback.url],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      }),
    });
    expect(reg.status).toBe(201);
    const client = (await reg.json()) as { client_id: string; client_secret: string; token_endpoint_auth_method: string };
    expect(client.client_secret).toMatch(/^amcl_/);
    expect(client.token_endpoint_auth_method).toBe('client_secret_post');
    const { verifier, challenge } = pkce();
    const url = new URL(`${server.url}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: callback.url, code_challenge: challenge, code_challenge_method: 'S256', state: 'c', resource: mcpUrl }).toString();
    const answer = await consent(browser.context, url, callback, { key, button: 'Allow' });
    const code = answer.redirect?.searchParams.get('code') ?? '';
    const form = { grant_type: 'authorization_code', client_id: client.client_id, code, code_verifier: verifier, redirect_uri: callback.url, resource: mcpUrl };
    const noSecret = await post('/oauth/token', form);
    expect(((await noSecret.json()) as { error: string }).error).toBe('invalid_client');
    const wrongSecret = await post('/oauth/token', { ...form, client_secret: `amcl_${'x'.repeat(40)}` });
    expect(((await wrongSecret.json()) as { error: string }).error).toBe('invalid_client');
    const ok = await post('/oauth/token', { ...form, client_secret: client.client_secret });
    expect(ok.status).toBe(200);
    const t = (await ok.json()) as TokenJson;
    expect((await bearer(t.access_token)).status).toBe(200);
    const basic = Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64');
    const refreshed = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: t.refresh_token }),
    });
    expect(refreshed.status).toBe(200);
  });

  it('refuses a wrong PKCE verifier, and burns the code', async () => {
    const g = await grant();
    const wrong = await exchange(g, { code_verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await exchange(g)).status).toBe(400);
  });

  it('refuses a replayed code and revokes what the first exchange gave', async () => {
    const g = await grant();
    const first = await exchange(g);
    expect(first.status).toBe(200);
    const { access_token } = (await first.json()) as TokenJson;
    expect((await bearer(access_token)).status).toBe(200);
    const replay = await exchange(g);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await bearer(access_token)).status).toBe(401);
  });

  it('refuses a redirect URI the client did not register, on a page, without redirecting', async () => {
    const reg = (await (
      await fetch(`${server.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: [callback.url], token_endpoint_auth_method: 'none' }) })
    ).json()) as { client_id: string };
    const url = new URL(`${server.url}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: reg.client_id, redirect_uri: 'https://evil.example/cb', code_challenge: pkce().challenge, code_challenge_method: 'S256', resource: mcpUrl }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('invalid_request');
    // Loopback redirects may change port (RFC 8252), nothing else.
    const port = new URL(callback.url);
    port.port = String(Number(port.port) + 1);
    url.searchParams.set('redirect_uri', port.href);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(200);
    url.searchParams.set('redirect_uri', `${callback.url}/x`);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(400);
    // Registration itself refuses an http redirect off loopback.
    const bad = await fetch(`${server.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://evil.example/cb'] }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_redirect_uri');
  });

  it('is no open redirect: errors before consent for a client registered with any redirect stay on the server\u2019s page', async () => {
    const phish = 'https://evil.example/phish';
    const reg = (await (
      await fetch(`${server.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: [phish], token_endpoint_auth_method: 'none' }) })
    ).json()) as { client_id: string };
    const attempts: Record<string, string>[] = [
      { client_id: reg.client_id },
      { client_id: reg.client_id, redirect_uri: phish },
      { client_id: reg.client_id, redirect_uri: phish, response_type: 'token' },
      { client_id: reg.client_id, redirect_uri: phish, response_type: 'code', code_challenge_method: 'plain', code_challenge: 'x' },
      { client_id: reg.client_id, redirect_uri: phish, response_type: 'code', code_challenge_method: 'S256', code_challenge: pkce().challenge, scope: 'nope' },
      { client_id: reg.client_id, redirect_uri: phish, response_type: 'code', code_challenge_method: 'S256', code_challenge: pkce().challenge, resource: 'https://other.example/' },
    ];
    for (const params of attempts) {
      const url = new URL(`${server.url}/oauth/authorize`);
      url.search = new URLSearchParams({ ...params, state: 'x' }).toString();
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get('location'), JSON.stringify(params)).toBeNull();
      expect(await res.text()).not.toContain('evil.example/phish?');
    }
  });

  it('names a look-alike redirect host in ASCII on the consent page, with a warning', async () => {
    const lookAlike = 'https://cl\u0430ude.ai/api/mcp/auth_callback';
    const reg = (await (
      await fetch(`${server.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: [lookAlike], client_name: 'Claude', token_endpoint_auth_method: 'none' }) })
    ).json()) as { client_id: string; redirect_uris: string[] };
    const url = new URL(`${server.url}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: reg.client_id, redirect_uri: reg.redirect_uris[0] ?? lookAlike, code_challenge: pkce().challenge, code_challenge_method: 'S256', resource: mcpUrl }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<strong class="redirect-host">xn--clude-5ve.ai</strong>');
    expect(html).toMatch(/class="notice redirect-warning" role="alert">The address mixes alphabets/);
    expect(html).not.toContain('cl\u0430ude.ai/api');
  });

  it('answers CORS preflights on the endpoints a browser client calls, and only there', async () => {
    const preflight = (path: string, method = 'POST') =>
      fetch(`${server.url}${path}`, { method: 'OPTIONS', headers: { Origin: 'https://inspector.example', 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'content-type' } });
    for (const path of ['/oauth/register', '/oauth/token', '/oauth/revoke']) {
      const res = await preflight(path);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
      expect(res.headers.get('access-control-allow-headers')).toMatch(/Content-Type/);
    }
    const meta = await preflight('/.well-known/oauth-authorization-server', 'GET');
    expect(meta.status).toBe(204);
    expect(meta.headers.get('access-control-allow-methods')).toBe('GET, OPTIONS');
    const doc = await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`, { headers: { Origin: 'https://inspector.example' } });
    expect(doc.headers.get('access-control-allow-origin')).toBe('*');
    // Pages a person opens, and the API itself: no CORS, OPTIONS is the contract's 404.
    for (const path of ['/oauth/authorize', '/oauth/consent', '/v1/memories', '/mcp']) {
      const res = await preflight(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });

  it('names the registration, token and revocation endpoints in /metrics (not all route="/")', async () => {
    await fetch(`${server.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: [callback.url], token_endpoint_auth_method: 'none' }) });
    await post('/oauth/token', { grant_type: 'refresh_token', refresh_token: 'nope', client_id: 'nope' });
    await post('/oauth/revoke', { token: 'nope', client_id: 'nope' });
    const text = await (await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${TEST_METRICS_TOKEN}` } })).text();
    for (const route of ['/oauth/register', '/oauth/token', '/oauth/revoke']) expect(text).toContain(`method="POST",route="${route}"`);
    expect(text).not.toContain('route="/"');
  });

  it('issues tokens for this server only, and refuses a token for another resource', async () => {
    const reg = (await (
      await fetch(`${server.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ redirect_uris: [callback.url], token_endpoint_auth_method: 'none' }) })
    ).json()) as { client_id: string };
    const url = new URL(`${server.url}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: reg.client_id, redirect_uri: callback.url, code_challenge: pkce().challenge, code_challenge_method: 'S256', state: 's', resource: 'https://other.example/mcp' }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    // Shown on the server's own page, not redirected (errors before consent never leave the server).
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('invalid_target');

    const g = await grant();
    const other = await exchange(g, { resource: 'https://other.example/mcp' });
    expect(((await other.json()) as { error: string }).error).toBe('invalid_target');

    if (TEST_BACKEND !== 'sqlite') return;
    const { tokens: t } = await tokens();
    expect((await bearer(t.access_token)).status).toBe(200);
    // A token whose audience is another server (as if issued there) is refused here.
    const db = server.sqlite();
    db.prepare("UPDATE oauth_tokens SET resource = 'https://other.example/mcp' WHERE kind = 'access' AND created_at = (SELECT MAX(created_at) FROM oauth_tokens)").run();
    const refused = await bearer(t.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses an expired token with the invalid_token challenge', async () => {
    if (TEST_BACKEND !== 'sqlite') return;
    const { tokens: t } = await tokens();
    expect((await bearer(t.access_token, '/mcp', server.url, { method: 'POST' })).status).not.toBe(401);
    server.sqlite().prepare("UPDATE oauth_tokens SET expires_at = '2000-01-01T00:00:00.000Z' WHERE kind = 'access'").run();
    const res = await bearer(t.access_token, '/mcp', server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="This access token has expired\."/);
  });

  it('keeps a read-only token to reading: store_memory (MCP 2025 and 2026-07-28) and POST /v1/memories answer 403 insufficient_scope', async () => {
    const { tokens: t } = await tokens({ scope: 'memory:read' });
    expect(t.scope).toBe('memory:read');
    const rpc = (name: string, args: Record<string, unknown>) =>
      bearer(t.access_token, '/mcp', server.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      });
    // The same call as MCP 2026-07-28 sends it (stateless, the revision's _meta envelope): refused alike.
    const modernRpc = (name: string, args: Record<string, unknown>) => bearer(t.access_token, '/mcp', server.url, modernToolCall(name, args));
    for (const refused of [await rpc('store_memory', { userId: 'ro', text: 'must not be stored' }), await modernRpc('store_memory', { userId: 'ro', text: 'must not be stored' })]) {
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
      expect(refused.headers.get('www-authenticate')).toContain('scope="memory:write"');
    }
    const read = await modernRpc('list_memories', { userId: 'ro' });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { result: { structuredContent: { total: number } } }).result.structuredContent.total).toBe(0);
    const rest = await bearer(t.access_token, '/v1/memories', server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ userId: 'ro', text: 'nope' }) });
    expect(rest.status).toBe(403);
    expect((await bearer(t.access_token, '/v1/memories/recall', server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ userId: 'ro', query: 'x' }) })).status).toBe(200);
    expect((await server.call('/v1/memories/ro')).status).toBe(200);
    expect(((await (await server.call('/v1/memories/ro')).json()) as { total: number }).total).toBe(0);
  });

  it('sends the person back with access_denied when they press Deny', async () => {
    const provider = new MemoryOAuthClient(callback.url);
    await auth(provider, { serverUrl: mcpUrl });
    const answer = await consent(browser.context, provider.authorizationUrl ?? '', callback, { button: 'Deny' });
    expect(answer.redirect?.searchParams.get('error')).toBe('access_denied');
    expect(answer.redirect?.searchParams.get('code')).toBeNull();
  });

  it('refuses a consent form whose CSRF token it did not issue, and a wrong key with the page again', async () => {
    const provider = new MemoryOAuthClient(callback.url);
    await auth(provider, { serverUrl: mcpUrl });
    const wrongKey = await consent(browser.context, provider.authorizationUrl ?? '', callback, { key: `amk_${'x'.repeat(40)}`, button: 'Allow' });
    expect(wrongKey.redirect).toBeUndefined();
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.pageText).toContain('That API key was refused');

    const forged = await consent(browser.context, provider.authorizationUrl ?? '', callback, {
      key,
      button: 'Allow',
      before: async (page) => {
        await page.evaluate("document.querySelector('input[name=csrf]').value = 'amcs_forged'");
      },
    });
    expect(forged.redirect).toBeUndefined();
    expect(forged.status).toBe(400);
    expect(forged.pageText).toContain('not issued by this server');
  });

  it('serves the consent page unframeable, with the console policy and no script', async () => {
    const provider = new MemoryOAuthClient(callback.url);
    await auth(provider, { serverUrl: mcpUrl });
    const res = await fetch(provider.authorizationUrl ?? '');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain(`form-action 'self' ${new URL(callback.url).origin}`);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    expect(await res.text()).not.toMatch(/<script|style=/);
  });

  it('answers malformed token requests with OAuth errors, never a 500', async () => {
    const cases = [
      await post('/oauth/token', {}),
      await post('/oauth/token', { grant_type: 'password', client_id: 'x' }),
      await post('/oauth/token', { grant_type: 'authorization_code', client_id: 'cli_nope', code: 'x', code_verifier: 'y' }),
      await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '%' }),
      await fetch(`${server.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' }),
      await post('/oauth/consent', { request: 'req_nope', csrf: 'x', decision: 'allow', api_key: TEST_KEY }),
    ];
    for (const res of cases) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  });
});
