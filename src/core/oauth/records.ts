/**
 * What the OAuth authorization server keeps in the database, shared by every node: registered clients, pending
 * consent requests, authorization codes and tokens. Secrets (codes, tokens, the consent page's CSRF token) are kept
 * as their SHA-256 only, like API keys, so a copy of the database hands out nothing that works.
 */
import type { Scope } from '../scopes.js';
import type { App } from '../types.js';

export interface OAuthClientRecord {
  /** `cli_` + 24 base62. */
  id: string;
  /** The registration as the client sent it (RFC 7591 metadata), after validation; shown back on registration. */
  metadata: Record<string, unknown>;
  name: string | null;
  redirectUris: string[];
  /** SHA-256 of the client secret of a confidential client (client_secret_post or _basic); null for a public one. */
  secretHash: string | null;
  createdAt: string;
  revokedAt: string | null;
  /**
   * When a person first allowed it (its first authorization code); null for a client that never completed an
   * authorization. Those are capped and deleted after a while: anyone may register one (DCR).
   */
  authorizedAt: string | null;
}

/** A consent page that was shown: its form must come back with the CSRF token issued with it, once, in time. */
export interface OAuthPendingRecord {
  id: string;
  csrfHash: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  scopes: Scope[];
  resource: string;
  expiresAt: string;
}

/** An authorization code (by its hash); `familyId` is the grant: every token it leads to carries it. */
export interface OAuthCodeRecord {
  hash: string;
  clientId: string;
  keyId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: Scope[];
  resource: string;
  familyId: string;
  expiresAt: string;
  usedAt: string | null;
}

export type OAuthTokenKind = 'access' | 'refresh';

export interface OAuthTokenRecord {
  hash: string;
  kind: OAuthTokenKind;
  familyId: string;
  clientId: string;
  keyId: string;
  scopes: Scope[];
  resource: string;
  expiresAt: string;
  createdAt: string;
}

/** A token as found: with whether its grant was revoked, a refresh token used, and its key or client revoked. */
export interface FoundOAuthToken extends OAuthTokenRecord {
  usedAt: string | null;
  revokedAt: string | null;
  /** The API key that approved the grant is revoked, or the client is: the token no longer works. */
  ownerRevoked: boolean;
  /** The app the approving key is bound to (the token is confined to it as the key is), or null. */
  app: App | null;
}

/** The authorization server's rows; both backends implement it (storage/<backend>/oauth.ts). */
export interface OAuthStore {
  createOAuthClient(client: OAuthClientRecord): Promise<void>;
  /** The client, revoked or not (callers check revokedAt). */
  findOAuthClient(id: string): Promise<OAuthClientRecord | undefined>;
  listOAuthClients(): Promise<OAuthClientRecord[]>;
  /** Returns false when no client has that id. Every token of the client stops working at once. */
  revokeOAuthClient(id: string, at: string): Promise<boolean>;
  /** Records the client's first authorization (kept when already set). */
  markOAuthClientAuthorized(id: string, at: string): Promise<void>;
  /** Every registered client, and those that never completed an authorization (revoked ones included). */
  countOAuthClients(): Promise<{ total: number; unused: number }>;
  /**
   * Deletes at most `limit` clients registered before `registeredBefore` that never completed an authorization and
   * have no consent page open; returns how many.
   */
  pruneUnusedOAuthClients(registeredBefore: string, limit: number): Promise<number>;
  createOAuthPending(pending: OAuthPendingRecord): Promise<void>;
  /** Deletes and returns the pending request: a consent form can be answered once. */
  takeOAuthPending(id: string): Promise<OAuthPendingRecord | undefined>;
  createOAuthCode(code: OAuthCodeRecord): Promise<void>;
  findOAuthCode(hash: string): Promise<OAuthCodeRecord | undefined>;
  /** Marks the code used; true only for the call that did (two racing exchanges: one wins). */
  useOAuthCode(hash: string, at: string): Promise<boolean>;
  createOAuthTokens(tokens: readonly OAuthTokenRecord[]): Promise<void>;
  findOAuthToken(hash: string): Promise<FoundOAuthToken | undefined>;
  /** Marks a refresh token used (rotation); true only for the call that did. */
  useOAuthToken(hash: string, at: string): Promise<boolean>;
  /** Revokes every token of the grant (refresh reuse, code replay, revocation). */
  revokeOAuthFamily(familyId: string, at: string): Promise<void>;
  /** Deletes at most `limit` codes, pending requests and tokens that expired before `before`; returns how many. */
  pruneOAuth(before: string, limit: number): Promise<number>;
}
