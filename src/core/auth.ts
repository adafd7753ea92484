import { MemoryError } from './errors.js';
import { API_KEY_PATTERN, hashApiKey, sameDigest } from './keys.js';
import type { KeyStore } from './store.js';
import type { Caller } from './types.js';

export interface AuthenticatorOptions {
  store: KeyStore;
  /** Extra unbound keys from configuration (MEMORY_API_KEY), for containers and tests. */
  extraKeys?: readonly string[];
  /** OAuth access tokens (`amat_...`), when the authorization server is on (core/oauth/server.ts). */
  tokens?: TokenVerifier | undefined;
}

/** Turns an OAuth access token into the Caller it acts as, or throws 401 `auth_error`. */
export interface TokenVerifier {
  verifyAccessToken(token: string): Promise<Caller>;
}

/** An OAuth access token's shape, told apart from an API key before any lookup. */
const ACCESS_TOKEN_PREFIX = 'amat_';

/** The id under which a configured (not stored) key is rate-limited and owns idempotency records. */
export const CONFIGURED_KEY_ID = 'key_configured';

/**
 * Turns an `Authorization` header into a Caller, or a 401 `auth_error`. Keys are looked up by their SHA-256, so
 * the secret is never stored and a lookup takes the same path whatever part of a guess was right; the final
 * comparison is constant-time.
 */
export class Authenticator {
  readonly #store: KeyStore;
  readonly #extraHashes: string[];
  readonly #tokens: TokenVerifier | undefined;

  constructor(options: AuthenticatorOptions) {
    this.#store = options.store;
    this.#extraHashes = (options.extraKeys ?? []).filter((k) => k.length > 0).map(hashApiKey);
    this.#tokens = options.tokens;
  }

  async authenticate(authorization: string | undefined): Promise<Caller> {
    if (authorization === undefined || authorization.trim() === '') {
      throw new MemoryError('auth_error', 'Missing API key: send "Authorization: Bearer <key>".');
    }
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization);
    if (!match?.[1]) throw new MemoryError('auth_error', 'Malformed Authorization header: expected "Bearer <key>".');
    const key = match[1];
    if (this.#tokens && key.startsWith(ACCESS_TOKEN_PREFIX)) return this.#tokens.verifyAccessToken(key);
    const hash = hashApiKey(key);
    for (const extra of this.#extraHashes) {
      if (sameDigest(extra, hash)) return { keyId: CONFIGURED_KEY_ID, boundApp: null };
    }
    if (!API_KEY_PATTERN.test(key)) throw new MemoryError('auth_error', 'Invalid API key.');
    const record = await this.#store.findKeyByHash(hash);
    if (!record || !sameDigest(record.hash, hash)) throw new MemoryError('auth_error', 'Invalid API key.');
    if (record.revokedAt !== null) throw new MemoryError('auth_error', 'This API key has been revoked.');
    return { keyId: record.id, boundApp: record.app };
  }
}
