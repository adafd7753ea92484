import type { FoundOAuthToken, OAuthCodeRecord, OAuthPendingRecord, OAuthTokenKind } from '../core/oauth/records.js';
import { parseScopes } from '../core/oauth/scope-list.js';

/**
 * The OAuth tables' rows as both backends read them (storage/<backend>/oauth.ts), and their records
 * (core/oauth/records.ts). `T` is how a backend hands back a time: SQLite ISO text, PostgreSQL a Date; `time` turns
 * it into the records' ISO text. Scopes are kept space-separated, as OAuth writes them.
 */
export interface PendingRow<T> {
  id: string;
  csrf_hash: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  state: string | null;
  scopes: string;
  resource: string;
  expires_at: T;
}

export interface CodeRow<T> {
  hash: string;
  client_id: string;
  key_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  resource: string;
  family_id: string;
  expires_at: T;
  used_at: T | null;
}

export interface TokenRow<T> {
  hash: string;
  kind: OAuthTokenKind;
  family_id: string;
  client_id: string;
  key_id: string;
  scopes: string;
  resource: string;
  expires_at: T;
  created_at: T;
  used_at: T | null;
  revoked_at: T | null;
  /** SQLite answers a boolean expression with 0 or 1. */
  owner_revoked: boolean | number;
  app_id: string | null;
  app_slug: string | null;
  app_created_at: T | null;
}

export function pendingOf<T>(row: PendingRow<T>, time: (t: T) => string): OAuthPendingRecord {
  return {
    id: row.id,
    csrfHash: row.csrf_hash,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    state: row.state,
    scopes: parseScopes(row.scopes),
    resource: row.resource,
    expiresAt: time(row.expires_at),
  };
}

export function codeOf<T>(row: CodeRow<T>, time: (t: T) => string): OAuthCodeRecord {
  return {
    hash: row.hash,
    clientId: row.client_id,
    keyId: row.key_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    scopes: parseScopes(row.scopes),
    resource: row.resource,
    familyId: row.family_id,
    expiresAt: time(row.expires_at),
    usedAt: row.used_at === null ? null : time(row.used_at),
  };
}

export function tokenOf<T>(row: TokenRow<T>, time: (t: T) => string): FoundOAuthToken {
  return {
    hash: row.hash,
    kind: row.kind,
    familyId: row.family_id,
    clientId: row.client_id,
    keyId: row.key_id,
    scopes: parseScopes(row.scopes),
    resource: row.resource,
    expiresAt: time(row.expires_at),
    createdAt: time(row.created_at),
    usedAt: row.used_at === null ? null : time(row.used_at),
    revokedAt: row.revoked_at === null ? null : time(row.revoked_at),
    ownerRevoked: row.owner_revoked === true || row.owner_revoked === 1,
    app:
      row.app_id === null || row.app_slug === null || row.app_created_at === null
        ? null
        : { id: row.app_id, slug: row.app_slug, createdAt: time(row.app_created_at) },
  };
}
