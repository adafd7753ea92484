import { randomBase62 } from '../ids.js';
import { MemoryError } from '../errors.js';
import type { Authenticator } from '../auth.js';
import { CONFIGURED_KEY_ID } from '../auth.js';
import { SCOPES, type Scope } from '../scopes.js';
import type { Caller } from '../types.js';
import { OAuthProblem } from './problem.js';
import type { OAuthClientRecord, OAuthPendingRecord, OAuthStore, OAuthTokenRecord } from './records.js';
import { checkRedirectUri, redirectRegistered } from './redirects.js';
import { parseScopes } from './scope-list.js';
import { ACCESS_TOKEN_PATTERN, CODE_PATTERN, hashSecret, LIFETIMES, newSecret, pkceChallenge, REFRESH_TOKEN_PATTERN } from './tokens.js';
import { sameDigest } from '../keys.js';
import { Chore, pruneInBatches } from '../housekeeping.js';
import { silentLogger, type Logger } from '../logger.js';

export interface OAuthServerOptions {
  store: OAuthStore;
  /** Checks the API key typed on the consent page, as every request's key is checked (keys only: no tokens). */
  authenticator: Authenticator;
  /** The resource identifiers (RFC 8707) of this server: a token is issued for, and accepted by, these only. */
  resources: readonly string[];
  /** Access token lifetime in seconds (default one hour). */
  accessTtlSeconds?: number;
  /** Bounds on registered clients (DEFAULT_CLIENT_LIMITS). */
  clientLimits?: Partial<ClientLimits>;
  now?: () => number;
  logger?: Logger;
}

/**
 * Anyone may register a client (DCR), and each is a row: registrations are bounded. A client that never completed an
 * authorization is "unused": at most `unused` of them at once, each deleted `unusedTtlSeconds` after registering
 * unless a person has allowed it by then; at most `total` clients in all (an operator removes old ones with
 * `agent-memory oauth revoke`). Real clients register and authorize within a minute.
 */
export interface ClientLimits {
  unused: number;
  total: number;
  unusedTtlSeconds: number;
}

export const DEFAULT_CLIENT_LIMITS: ClientLimits = { unused: 500, total: 10_000, unusedTtlSeconds: 3_600 };

/** Why a registration cannot be taken now: `busy` clears as unused clients expire, `full` needs an operator. */
export interface RegistrationRefusal {
  kind: 'busy' | 'full';
  message: string;
  retryAfterSeconds?: number;
}

/** What the client registers (RFC 7591), after the HTTP layer parsed it. */
export interface ClientRegistration {
  redirect_uris: string[];
  client_name?: string | undefined;
  grant_types?: string[] | undefined;
  response_types?: string[] | undefined;
  scope?: string | undefined;
  token_endpoint_auth_method?: string | undefined;
  [field: string]: unknown;
}

/** The token response (RFC 6749 5.1). */
export interface TokenSet {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface ConsentRequest {
  client: OAuthClientRecord;
  redirectUri: string;
  scopes: Scope[];
  /** Hidden in the form with `csrf`: the pending request and the token bound to it. */
  pendingId: string;
  csrf: string;
}

export type ConsentOutcome =
  | { kind: 'redirect'; url: string }
  /** The key was refused: the page again, with a fresh pending request. */
  | { kind: 'again'; request: ConsentRequest; message: string }
  /** Not a request this server issued (or no longer): nothing to redirect to. */
  | { kind: 'refused'; message: string };

const MAX_REDIRECT_URIS = 10;
const MAX_NAME = 200;
const MAX_METADATA_BYTES = 8_192;

/** The resource URL as compared: parsed and re-serialised, so "https://h" and "https://h/" are the same. */
export function normalizeResource(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    return url.hash === '' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The authorization server's logic, free of HTTP: registration, the consent step, code and refresh exchanges with
 * rotation and replay detection, revocation, and access token checks for the resource side. Tokens act as the API
 * key that approved them; whether that key or the client is still live is read from the database on every use.
 */
export class OAuthServer {
  readonly #store: OAuthStore;
  readonly #authenticator: Authenticator;
  readonly #resources: Set<string>;
  readonly #accessTtl: number;
  readonly #now: () => number;
  readonly #limits: ClientLimits;
  /** Expired codes, consent requests and tokens go in the background, poked by the requests that make new ones. */
  readonly #prune: Chore;

  constructor(options: OAuthServerOptions) {
    this.#store = options.store;
    this.#authenticator = options.authenticator;
    this.#resources = new Set(options.resources.map((r) => normalizeResource(r) ?? r));
    this.#accessTtl = options.accessTtlSeconds ?? LIFETIMES.access;
    this.#now = options.now ?? Date.now;
    this.#limits = { ...DEFAULT_CLIENT_LIMITS, ...options.clientLimits };
    this.#prune = new Chore(() => this.pruneNow(), {
      name: 'oauth pruning',
      logger: options.logger ?? silentLogger,
      now: this.#now,
    });
  }

  /** Deletes expired codes, consent requests and tokens, and unused clients past their time; returns how many. */
  async pruneNow(): Promise<number> {
    const expired = await pruneInBatches((limit) => this.#store.pruneOAuth(this.#at(), limit));
    const unused = await pruneInBatches((limit) => this.#store.pruneUnusedOAuthClients(this.#at(-this.#limits.unusedTtlSeconds), limit));
    return expired + unused;
  }

  /** Whether a registration may be taken now (checked before the registration is read). */
  async registrationRefusal(): Promise<RegistrationRefusal | undefined> {
    const { total, unused } = await this.#store.countOAuthClients();
    if (total >= this.#limits.total) {
      return { kind: 'full', message: `This server holds its most clients (${this.#limits.total}); its operator can remove unused ones with \`agent-memory oauth revoke\`.` };
    }
    if (unused >= this.#limits.unused) {
      // Unused clients go after unusedTtlSeconds; housekeeping may be due now.
      this.#prune.poke();
      return {
        kind: 'busy',
        message: `Too many clients registered without completing an authorization (${this.#limits.unused}); retry later.`,
        retryAfterSeconds: Math.max(60, Math.ceil(this.#limits.unusedTtlSeconds / 10)),
      };
    }
    return undefined;
  }

  /** Resolves once a pruning run in flight has ended (shutdown). */
  settled(): Promise<void> {
    return this.#prune.settled();
  }

  #at(offsetSeconds = 0): string {
    return new Date(this.#now() + offsetSeconds * 1000).toISOString();
  }

  #expired(expiresAt: string): boolean {
    return Date.parse(expiresAt) <= this.#now();
  }

  /**
   * RFC 7591. A public client (`token_endpoint_auth_method: none`) gets no secret, PKCE protects its code; a client
   * that asks for `client_secret_post` or `client_secret_basic` (RFC 7591's default, and what claude.ai asks for)
   * gets a secret, shown once in the answer and kept as its SHA-256 only.
   */
  async registerClient(registration: ClientRegistration): Promise<{ client: OAuthClientRecord; secret: string | null }> {
    const uris = registration.redirect_uris;
    if (uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
      throw new OAuthProblem('invalid_redirect_uri', `Register from 1 to ${MAX_REDIRECT_URIS} redirect URIs.`);
    }
    uris.forEach(checkRedirectUri);
    const grants = registration.grant_types ?? ['authorization_code', 'refresh_token'];
    if (grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
      throw new OAuthProblem('invalid_client_metadata', 'Only the authorization_code and refresh_token grants are supported.');
    }
    if ((registration.response_types ?? ['code']).some((r) => r !== 'code')) {
      throw new OAuthProblem('invalid_client_metadata', 'Only the "code" response type is supported.');
    }
    const method = registration.token_endpoint_auth_method ?? 'client_secret_basic';
    if (method !== 'none' && method !== 'client_secret_post' && method !== 'client_secret_basic') {
      throw new OAuthProblem('invalid_client_metadata', 'token_endpoint_auth_method must be none, client_secret_post or client_secret_basic.');
    }
    const secret = method === 'none' ? null : newSecret('client');
    const name = registration.client_name?.trim().slice(0, MAX_NAME) || null;
    const metadata: Record<string, unknown> = {
      ...registration,
      ...(name === null ? {} : { client_name: name }),
      redirect_uris: uris,
      grant_types: grants,
      response_types: ['code'],
      token_endpoint_auth_method: method,
    };
    // What the HTTP layer may have made up (an id, a secret) is not the client's: the id is ours, there is no secret.
    for (const field of ['client_id', 'client_id_issued_at', 'client_secret', 'client_secret_expires_at']) delete metadata[field];
    if (JSON.stringify(metadata).length > MAX_METADATA_BYTES) {
      throw new OAuthProblem('invalid_client_metadata', `The registration is larger than ${MAX_METADATA_BYTES} bytes.`);
    }
    const client: OAuthClientRecord = {
      id: `cli_${randomBase62(24)}`,
      metadata,
      name,
      redirectUris: uris,
      secretHash: secret?.hash ?? null,
      createdAt: this.#at(),
      revokedAt: null,
      authorizedAt: null,
    };
    await this.#store.createOAuthClient(client);
    this.#prune.poke();
    return { client, secret: secret?.secret ?? null };
  }

  /** A live (not revoked) client, or undefined. */
  async client(id: string): Promise<OAuthClientRecord | undefined> {
    const client = id.length <= 64 ? await this.#store.findOAuthClient(id) : undefined;
    return client && client.revokedAt === null ? client : undefined;
  }

  /** Checks the redirect URI a request names against the client's registration (exact, loopback ports aside). */
  redirectFor(client: OAuthClientRecord, requested: string | undefined): string {
    if (requested === undefined) {
      if (client.redirectUris.length === 1 && client.redirectUris[0] !== undefined) return client.redirectUris[0];
      throw new OAuthProblem('invalid_request', 'redirect_uri is required: the client registered several.');
    }
    if (!redirectRegistered(requested, client.redirectUris)) {
      throw new OAuthProblem('invalid_request', 'redirect_uri is not one this client registered.');
    }
    return requested;
  }

  /**
   * The rest of an authorization request, once the redirect is trusted (errors from here go to the client): the
   * scopes (none: both) and the resource (required, one of ours). Records the pending request the page will answer.
   */
  async beginConsent(input: {
    client: OAuthClientRecord;
    redirectUri: string;
    codeChallenge: string;
    state: string | undefined;
    scope: string | undefined;
    resource: string | undefined;
  }): Promise<ConsentRequest> {
    const requested = input.scope === undefined || input.scope.trim() === '' ? [...SCOPES] : input.scope.trim().split(/ +/);
    const scopes = parseScopes(requested.join(' '));
    if (scopes.length !== requested.length) {
      throw new OAuthProblem('invalid_scope', `Unknown scope; this server knows ${SCOPES.join(' and ')}.`);
    }
    const resource = this.#resource(input.resource);
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(input.codeChallenge)) {
      throw new OAuthProblem('invalid_request', 'code_challenge must be a PKCE S256 challenge (43 to 128 characters).');
    }
    return this.#pending({ client: input.client, redirectUri: input.redirectUri, codeChallenge: input.codeChallenge, state: input.state ?? null, scopes, resource });
  }

  #resource(raw: string | undefined): string {
    if (raw === undefined) throw new OAuthProblem('invalid_target', 'The resource parameter (RFC 8707) is required: name this server\'s MCP URL.');
    const resource = normalizeResource(raw);
    if (resource === undefined || !this.#resources.has(resource)) {
      throw new OAuthProblem('invalid_target', `This server issues tokens for ${[...this.#resources].join(' or ')} only.`);
    }
    return resource;
  }

  async #pending(p: Omit<OAuthPendingRecord, 'id' | 'csrfHash' | 'expiresAt' | 'clientId'> & { client: OAuthClientRecord }): Promise<ConsentRequest> {
    this.#prune.poke();
    const csrf = newSecret('csrf');
    const id = `req_${randomBase62(24)}`;
    await this.#store.createOAuthPending({
      id,
      csrfHash: csrf.hash,
      clientId: p.client.id,
      redirectUri: p.redirectUri,
      codeChallenge: p.codeChallenge,
      state: p.state,
      scopes: p.scopes,
      resource: p.resource,
      expiresAt: this.#at(LIFETIMES.pending),
    });
    return { client: p.client, redirectUri: p.redirectUri, scopes: p.scopes, pendingId: id, csrf: csrf.secret };
  }

  /**
   * The consent form's answer. The pending request is taken (used once) and must come with the CSRF token issued
   * with it; Allow needs an API key that is stored (so that revoking it ends the tokens) and live.
   */
  async answerConsent(input: { pendingId: string; csrf: string; apiKey: string; allow: boolean }): Promise<ConsentOutcome> {
    const pending = input.pendingId.length <= 64 ? await this.#store.takeOAuthPending(input.pendingId) : undefined;
    if (!pending || !sameDigest(pending.csrfHash, hashSecret(input.csrf)) || this.#expired(pending.expiresAt)) {
      return { kind: 'refused', message: 'This authorization request was not issued by this server, was already answered, or has expired. Start again from the app.' };
    }
    const client = await this.client(pending.clientId);
    if (!client) return { kind: 'refused', message: 'The app that asked is no longer registered here.' };
    const redirect = new URL(pending.redirectUri);
    if (pending.state !== null) redirect.searchParams.set('state', pending.state);
    if (!input.allow) {
      redirect.searchParams.set('error', 'access_denied');
      redirect.searchParams.set('error_description', 'The person declined.');
      return { kind: 'redirect', url: redirect.href };
    }
    let caller: Caller;
    try {
      caller = await this.#authenticator.authenticate(`Bearer ${input.apiKey.trim()}`);
    } catch (error) {
      if (!(error instanceof MemoryError) || error.code !== 'auth_error') throw error;
      return { kind: 'again', request: await this.#pending({ ...pending, client }), message: 'That API key was refused: check it and try again.' };
    }
    if (caller.keyId === null || caller.keyId === CONFIGURED_KEY_ID || caller.scopes !== undefined) {
      return {
        kind: 'again',
        request: await this.#pending({ ...pending, client }),
        message: 'Use a key made with `agent-memory keys create` (not MEMORY_API_KEY, and not a token): its revocation must be able to end this access.',
      };
    }
    const code = newSecret('code');
    await this.#store.createOAuthCode({
      hash: code.hash,
      clientId: client.id,
      keyId: caller.keyId,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
      scopes: pending.scopes,
      resource: pending.resource,
      familyId: `grant_${randomBase62(24)}`,
      expiresAt: this.#at(LIFETIMES.code),
      usedAt: null,
    });
    // A person allowed it: the client is no longer an unused registration (kept past unusedTtlSeconds).
    await this.#store.markOAuthClientAuthorized(client.id, this.#at());
    redirect.searchParams.set('code', code.secret);
    return { kind: 'redirect', url: redirect.href };
  }

  /**
   * The authorization code grant: single use (a second use revokes every token the first one gave), short-lived,
   * bound to its client, redirect URI, PKCE challenge (S256) and resource.
   */
  async exchangeCode(clientId: string, code: string, verifier: string | undefined, redirectUri: string | undefined, resource: string | undefined): Promise<TokenSet> {
    const record = CODE_PATTERN.test(code) ? await this.#store.findOAuthCode(hashSecret(code)) : undefined;
    if (!record || record.clientId !== clientId) throw new OAuthProblem('invalid_grant', 'Unknown authorization code.');
    if (record.usedAt !== null || !(await this.#store.useOAuthCode(record.hash, this.#at()))) {
      await this.#store.revokeOAuthFamily(record.familyId, this.#at());
      throw new OAuthProblem('invalid_grant', 'This authorization code was already used; the tokens it gave are revoked.');
    }
    if (this.#expired(record.expiresAt)) throw new OAuthProblem('invalid_grant', 'The authorization code has expired.');
    if (verifier === undefined || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || pkceChallenge(verifier) !== record.codeChallenge) {
      throw new OAuthProblem('invalid_grant', 'code_verifier does not match the code_challenge (PKCE S256).');
    }
    if (redirectUri !== undefined && redirectUri !== record.redirectUri) {
      throw new OAuthProblem('invalid_grant', 'redirect_uri differs from the one the authorization used.');
    }
    if (resource !== undefined && normalizeResource(resource) !== record.resource) {
      throw new OAuthProblem('invalid_target', 'resource differs from the one the authorization named.');
    }
    return this.#issue({ clientId, keyId: record.keyId, scopes: record.scopes, resource: record.resource, familyId: record.familyId });
  }

  /** The refresh grant with rotation: each refresh token works once; a reused one revokes its whole grant. */
  async refresh(clientId: string, token: string, scope: string | undefined, resource: string | undefined): Promise<TokenSet> {
    const found = REFRESH_TOKEN_PATTERN.test(token) ? await this.#store.findOAuthToken(hashSecret(token)) : undefined;
    if (!found || found.kind !== 'refresh' || found.clientId !== clientId) throw new OAuthProblem('invalid_grant', 'Unknown refresh token.');
    if (found.revokedAt !== null || found.ownerRevoked) throw new OAuthProblem('invalid_grant', 'This grant was revoked.');
    // A grant for a resource this server no longer serves (restarted with another --public-url) would give an access
    // token that every request then refuses: the client would loop refresh -> 401. It has to authorize again.
    if (!this.#resources.has(found.resource)) {
      throw new OAuthProblem('invalid_grant', `This grant is for ${found.resource}, which this server no longer serves; authorize again.`);
    }
    if (found.usedAt !== null || !(await this.#store.useOAuthToken(found.hash, this.#at()))) {
      await this.#store.revokeOAuthFamily(found.familyId, this.#at());
      throw new OAuthProblem('invalid_grant', 'This refresh token was already used; the grant is revoked.');
    }
    if (this.#expired(found.expiresAt)) throw new OAuthProblem('invalid_grant', 'The refresh token has expired.');
    let scopes = found.scopes;
    if (scope !== undefined && scope.trim() !== '') {
      const asked = scope.trim().split(/ +/);
      if (asked.some((s) => !(found.scopes as string[]).includes(s))) throw new OAuthProblem('invalid_scope', 'A refresh cannot widen the scopes granted.');
      scopes = parseScopes(asked.join(' '));
    }
    if (resource !== undefined && normalizeResource(resource) !== found.resource) {
      throw new OAuthProblem('invalid_target', 'resource differs from the one the grant names.');
    }
    return this.#issue({ clientId, keyId: found.keyId, scopes, resource: found.resource, familyId: found.familyId });
  }

  async #issue(grant: Pick<OAuthTokenRecord, 'clientId' | 'keyId' | 'scopes' | 'resource' | 'familyId'>): Promise<TokenSet> {
    this.#prune.poke();
    const access = newSecret('access');
    const refresh = newSecret('refresh');
    const createdAt = this.#at();
    await this.#store.createOAuthTokens([
      { ...grant, hash: access.hash, kind: 'access', expiresAt: this.#at(this.#accessTtl), createdAt },
      { ...grant, hash: refresh.hash, kind: 'refresh', expiresAt: this.#at(LIFETIMES.refresh), createdAt },
    ]);
    return { access_token: access.secret, token_type: 'Bearer', expires_in: this.#accessTtl, refresh_token: refresh.secret, scope: grant.scopes.join(' ') };
  }

  /** RFC 7009: revokes the grant the token belongs to (access and refresh tokens alike); unknown tokens are ignored. */
  async revoke(clientId: string, token: string): Promise<void> {
    if (!ACCESS_TOKEN_PATTERN.test(token) && !REFRESH_TOKEN_PATTERN.test(token)) return;
    const found = await this.#store.findOAuthToken(hashSecret(token));
    if (found && found.clientId === clientId) await this.#store.revokeOAuthFamily(found.familyId, this.#at());
  }

  /** Whether `token` looks like one of our access tokens (else the key check handles it). */
  static isAccessToken(token: string): boolean {
    return ACCESS_TOKEN_PATTERN.test(token);
  }

  /**
   * The resource side: the Caller an access token acts as, checked on every request against the database (so a
   * revocation on any node counts at once): known, not expired, not revoked, its key and client live, issued for
   * this server.
   */
  async verifyAccessToken(token: string): Promise<Caller> {
    const found = ACCESS_TOKEN_PATTERN.test(token) ? await this.#store.findOAuthToken(hashSecret(token)) : undefined;
    if (!found || found.kind !== 'access') throw new MemoryError('auth_error', 'Invalid access token.');
    if (found.revokedAt !== null || found.ownerRevoked) throw new MemoryError('auth_error', 'This access token has been revoked.');
    if (this.#expired(found.expiresAt)) throw new MemoryError('auth_error', 'This access token has expired.');
    if (!this.#resources.has(found.resource)) throw new MemoryError('auth_error', 'This access token was issued for another resource.');
    return { keyId: found.keyId, boundApp: found.app, scopes: found.scopes };
  }
}
