import { createHash } from 'node:crypto';
import { randomBase62 } from '../ids.js';
import { hashApiKey } from '../keys.js';

/**
 * The secrets of the authorization server. Prefixed, so that one is told from another and from an API key (`amk_`)
 * at a glance and in a secret scanner; 40 base62 characters (about 238 bits) each, kept as SHA-256 like keys.
 */
export const ACCESS_TOKEN_PATTERN = /^amat_[0-9A-Za-z]{40}$/;
export const REFRESH_TOKEN_PATTERN = /^amrt_[0-9A-Za-z]{40}$/;
export const CODE_PATTERN = /^amac_[0-9A-Za-z]{40}$/;

export type SecretKind = 'access' | 'refresh' | 'code' | 'csrf' | 'client';

const PREFIX: Record<SecretKind, string> = { access: 'amat_', refresh: 'amrt_', code: 'amac_', csrf: 'amcs_', client: 'amcl_' };

export function newSecret(kind: SecretKind): { secret: string; hash: string } {
  const secret = `${PREFIX[kind]}${randomBase62(40)}`;
  return { secret, hash: hashApiKey(secret) };
}

export { hashApiKey as hashSecret };

/** PKCE S256 (RFC 7636): BASE64URL(SHA-256(verifier)) compared with the challenge the authorization began with. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Lifetimes, in seconds. A code is exchanged by the client at once; a refresh token rotates on every use. */
export const LIFETIMES = {
  code: 60,
  pending: 10 * 60,
  access: 60 * 60,
  refresh: 30 * 24 * 60 * 60,
} as const;
