import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { MemoryError } from '../../core/errors.js';
import { OAuthProblem } from '../../core/oauth/problem.js';
import type { OAuthServer } from '../../core/oauth/server.js';
import { hashSecret } from '../../core/oauth/tokens.js';
import { sameDigest } from '../../core/keys.js';
import type { RateLimiter } from '../../core/rate-limit.js';
import { mountPoint } from '../middleware/request-metrics.js';
import { CONSENT_FIELDS, sendConsentPage, sendErrorPage } from './consent-page.js';
import { authorizationServerMetadata, OAUTH_PATHS, protectedResourceMetadata, type PublicUrls } from './metadata.js';
import { ProviderAdapter } from './provider.js';

export interface OAuthRouterOptions {
  server: OAuthServer;
  urls: PublicUrls;
  rateLimiter: RateLimiter;
  /** Whether the public URL is https: the consent cookie is then Secure. */
  secure: boolean;
  /**
   * RFC 7591's initial access token: when set, /oauth/register takes only requests with `Authorization: Bearer
   * <it>` (closed registration: the operator registers clients); unset, anyone may register (claude.ai does).
   */
  registrationToken?: string | undefined;
}

/** OAuth's error body (RFC 6749 5.2). */
function oauthError(res: Response, status: number, code: string, description: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).json({ error: code, error_description: description });
}

/** One query parameter, or undefined; a repeated one is refused (RFC 6749 3.1). */
function single(req: Request, name: string): string | undefined {
  const value: unknown = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new OAuthProblem('invalid_request', `${name} must be given once.`);
  return value;
}

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

/** The consent cookie of one pending request: the double submit that ties the form to the browser that got it. */
const consentCookie = (pendingId: string) => `am_consent_${pendingId.replace(/[^A-Za-z0-9_]/g, '')}`;

/**
 * Every endpoint of the authorization server, off unless `serve --oauth`: the metadata documents, the authorize
 * step with its consent page, and the SDK's token, registration and revocation handlers over our provider. The
 * endpoints are charged to the caller's address on the server's own rate limiter (the SDK's per-process limiter is
 * off: on several nodes it would multiply the limit).
 */
export function oauthRouter(options: OAuthRouterOptions): Router {
  const { server, urls } = options;
  const router = Router();
  const provider = new ProviderAdapter(server);
  const asMetadata = authorizationServerMetadata(urls);

  const json = (body: Record<string, unknown>): RequestHandler => (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json(body);
  };
  router.get('/.well-known/oauth-authorization-server', json(asMetadata));
  router.get('/.well-known/oauth-protected-resource', json(protectedResourceMetadata(urls, urls.rootResource)));
  router.get('/.well-known/oauth-protected-resource/mcp', json(protectedResourceMetadata(urls, urls.mcpResource)));

  // Registration has a bucket of its own: anyone may register, and a flood of registrations must not use up the
  // bucket that token refreshes and authorizations of every user behind the same address (a proxy's) draw from.
  const limitBy = (bucket: 'oauth' | 'oauth-register'): RequestHandler => (req, res, next) => {
    options.rateLimiter.take(`${bucket}:${req.ip ?? 'unknown'}`).then((decision) => {
      if (decision && !decision.allowed) {
        res.setHeader('Retry-After', String(decision.retryAfterSeconds));
        oauthError(res, 429, 'too_many_requests', 'Too many authorization requests from this address; retry later.');
        return;
      }
      next();
    }, next);
  };
  const limit = limitBy('oauth');

  // Before the registration is read: the initial access token when registration is closed, then the bounds on
  // registered clients (core/oauth/server.ts ClientLimits).
  const admitRegistration: RequestHandler = (req, res, next) => {
    if (req.method !== 'POST') {
      next();
      return;
    }
    if (options.registrationToken !== undefined) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
      if (given === undefined || !sameDigest(hashSecret(given), hashSecret(options.registrationToken))) {
        res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token", error_description="Registration needs this server\'s initial access token."');
        oauthError(res, 401, 'invalid_token', 'Registration on this server is closed: it needs the initial access token (RFC 7591 3.1) as a Bearer token.');
        return;
      }
    }
    server.registrationRefusal().then((refusal) => {
      if (!refusal) {
        next();
        return;
      }
      if (refusal.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(refusal.retryAfterSeconds));
      oauthError(res, refusal.kind === 'busy' ? 429 : 403, refusal.kind === 'busy' ? 'temporarily_unavailable' : 'access_denied', refusal.message);
    }, next);
  };

  const setConsentCookie = (res: Response, pendingId: string, csrf: string) => {
    res.append('Set-Cookie', `${consentCookie(pendingId)}=${csrf}; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=600${options.secure ? '; Secure' : ''}`);
  };

  router.get(OAUTH_PATHS.authorize, limit, async (req, res) => {
    let redirectUri: string;
    let state: string | undefined;
    let client;
    try {
      const clientId = single(req, 'client_id');
      if (clientId === undefined) throw new OAuthProblem('invalid_request', 'client_id is required.');
      client = await server.client(clientId);
      if (!client) throw new OAuthProblem('invalid_client', 'Unknown client_id: register the client first.');
      redirectUri = server.redirectFor(client, single(req, 'redirect_uri'));
      state = single(req, 'state');
    } catch (error) {
      // No trusted redirect yet: the person is told here, never sent to an unchecked address.
      if (!(error instanceof OAuthProblem)) throw error;
      sendErrorPage(res, 400, error.code, error.message);
      return;
    }
    try {
      if (single(req, 'response_type') !== 'code') throw new OAuthProblem('invalid_request', 'response_type must be "code".');
      if (single(req, 'code_challenge_method') !== 'S256') throw new OAuthProblem('invalid_request', 'PKCE with code_challenge_method=S256 is required.');
      const request = await server.beginConsent({
        client,
        redirectUri,
        codeChallenge: single(req, 'code_challenge') ?? '',
        state,
        scope: single(req, 'scope'),
        resource: single(req, 'resource'),
      });
      setConsentCookie(res, request.pendingId, request.csrf);
      sendConsentPage(res, request);
    } catch (error) {
      // Shown here too, never redirected. Anyone may register a client (DCR) with any redirect, so a redirect that
      // matches its registration proves nothing about where it leads: redirecting errors before the person has seen
      // the consent page would make this server's URL a trusted-looking link to anywhere (RFC 9700 4.11.2; RFC 6749
      // 4.1.2.1 lets the server inform the resource owner instead). Only the person's own answer on the consent
      // page, which shows the redirect's host, goes back to the client.
      if (!(error instanceof OAuthProblem)) throw error;
      sendErrorPage(res, 400, error.code, error.message);
    }
  });

  router.post(OAUTH_PATHS.consent, limit, express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 }), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const field = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
    const pendingId = field(CONSENT_FIELDS.request);
    const csrf = field(CONSENT_FIELDS.csrf);
    const decision = field(CONSENT_FIELDS.decision);
    // The cookie set with the page must come back with the same token: a form posted from elsewhere has none.
    const fromThisBrowser = pendingId !== '' && cookie(req, consentCookie(pendingId)) === csrf;
    res.append('Set-Cookie', `${consentCookie(pendingId)}=; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=0${options.secure ? '; Secure' : ''}`);
    if (decision !== 'allow' && decision !== 'deny') {
      sendErrorPage(res, 400, 'invalid_request', 'Answer with the Allow or Deny button.');
      return;
    }
    const outcome = await server.answerConsent({
      pendingId,
      csrf: fromThisBrowser ? csrf : '',
      apiKey: field(CONSENT_FIELDS.key),
      allow: decision === 'allow',
    });
    if (outcome.kind === 'refused') {
      sendErrorPage(res, 400, 'invalid_request', outcome.message);
    } else if (outcome.kind === 'again') {
      setConsentCookie(res, outcome.request.pendingId, outcome.request.csrf);
      sendConsentPage(res, outcome.request, 401, outcome.message);
    } else {
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(303, outcome.url);
    }
  });

  // mountPoint(): the SDK's handlers route '/', so /metrics would label all three route="/" without it.
  router.use(OAUTH_PATHS.token, mountPoint(), limit, clientCredentials(), tokenHandler({ provider, rateLimit: false }));
  router.use(OAUTH_PATHS.register, mountPoint(), limitBy('oauth-register'), admitRegistration, clientRegistrationHandler({ clientsStore: provider.clientsStore, rateLimit: false, clientSecretExpirySeconds: 0 }));
  router.use(OAUTH_PATHS.revoke, mountPoint(), limit, clientCredentials(), revocationHandler({ provider, rateLimit: false }));
  router.use('/oauth', oauthErrors());
  return router;
}

const readForm = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });

/**
 * Client authentication before the SDK's handlers (RFC 6749 2.3.1): reads the form, takes the credentials of
 * `Authorization: Basic` (client_secret_basic, which the SDK does not read) into it, and replaces the secret with
 * its SHA-256, which is what the store keeps and the SDK compares. The SDK's own parser then finds the body read.
 */
function clientCredentials(): RequestHandler {
  return function clientCredentialsMiddleware(req, res, next) {
    if (req.method !== 'POST') {
      next();
      return;
    }
    readForm(req, res, (error?: unknown) => {
      if (error !== undefined) {
        next(error);
        return;
      }
      const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
      const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.get('authorization') ?? '');
      if (basic?.[1]) {
        const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        let id: string;
        let secret: string;
        try {
          id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
          secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
        } catch {
          oauthError(res, 401, 'invalid_client', 'The Basic credentials are not valid form-encoding.');
          return;
        }
        if (colon < 0 || (body.client_id !== undefined && body.client_id !== id) || body.client_secret !== undefined) {
          oauthError(res, 400, 'invalid_request', 'Send the client credentials one way: Basic, or in the body.');
          return;
        }
        body.client_id = id;
        body.client_secret = secret;
      }
      if (typeof body.client_secret === 'string') body.client_secret = hashSecret(body.client_secret);
      req.body = body;
      next();
    });
  };
}

/** Whatever fails under /oauth (a body that does not parse, the store down) answers in OAuth's terms. */
function oauthErrors(): ErrorRequestHandler {
  return function oauthErrorHandler(error: unknown, _req, res, next) {
    if (res.headersSent) {
      next(error);
      return;
    }
    const status = (error as { status?: unknown } | null)?.status;
    if (error instanceof MemoryError && error.code === 'unavailable') {
      oauthError(res, 503, 'temporarily_unavailable', error.message);
    } else if (typeof status === 'number' && status >= 400 && status < 500) {
      oauthError(res, status === 413 ? 413 : 400, 'invalid_request', 'The request body could not be read.');
    } else {
      next(error);
    }
  };
}
