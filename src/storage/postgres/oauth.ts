import type {
  FoundOAuthToken,
  OAuthClientRecord,
  OAuthCodeRecord,
  OAuthPendingRecord,
  OAuthTokenRecord,
} from '../../core/oauth/records.js';
import { codeOf, pendingOf, tokenOf, type CodeRow, type PendingRow, type TokenRow } from '../oauth-rows.js';
import { query, withTransaction, type Pool } from './connection.js';
import { iso } from './rows.js';

/**
 * The OAuth authorization server's rows on PostgreSQL (core/oauth/records.ts), shared by every node: a token
 * revoked through one node is refused by the next request on any other. Single-use marks (a code, a refresh
 * token) are one conditional UPDATE, so of two nodes racing only one wins.
 */
export class PgOAuthRows {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  async createClient(client: OAuthClientRecord): Promise<void> {
    await query(
      this.#pool,
      'INSERT INTO oauth_clients (id, metadata, name, redirect_uris, secret_hash, created_at, revoked_at, authorized_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [client.id, JSON.stringify(client.metadata), client.name, JSON.stringify(client.redirectUris), client.secretHash, client.createdAt, client.revokedAt, client.authorizedAt],
    );
  }

  async findClient(id: string): Promise<OAuthClientRecord | undefined> {
    const { rows } = await query<ClientRow>(this.#pool, 'SELECT * FROM oauth_clients WHERE id = $1', [id]);
    return rows[0] ? toClient(rows[0]) : undefined;
  }

  async listClients(): Promise<OAuthClientRecord[]> {
    const { rows } = await query<ClientRow>(this.#pool, 'SELECT * FROM oauth_clients ORDER BY created_at, id');
    return rows.map(toClient);
  }

  async revokeClient(id: string, at: string): Promise<boolean> {
    const result = await query(this.#pool, 'UPDATE oauth_clients SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1', [id, at]);
    return (result.rowCount ?? 0) > 0;
  }

  async markClientAuthorized(id: string, at: string): Promise<void> {
    await query(this.#pool, 'UPDATE oauth_clients SET authorized_at = COALESCE(authorized_at, $2) WHERE id = $1', [id, at]);
  }

  async countClients(): Promise<{ total: number; unused: number }> {
    const { rows } = await query<{ total: string; unused: string }>(
      this.#pool,
      'SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE authorized_at IS NULL) AS unused FROM oauth_clients',
    );
    return { total: Number(rows[0]?.total ?? 0), unused: Number(rows[0]?.unused ?? 0) };
  }

  async pruneUnusedClients(registeredBefore: string, limit: number): Promise<number> {
    const result = await query(
      this.#pool,
      `DELETE FROM oauth_clients WHERE id IN (
         SELECT id FROM oauth_clients
         WHERE authorized_at IS NULL AND created_at < $1 AND id NOT IN (SELECT client_id FROM oauth_pending)
         LIMIT $2)`,
      [registeredBefore, limit],
    );
    return result.rowCount ?? 0;
  }

  async createPending(p: OAuthPendingRecord): Promise<void> {
    await query(
      this.#pool,
      `INSERT INTO oauth_pending (id, csrf_hash, client_id, redirect_uri, code_challenge, state, scopes, resource, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [p.id, p.csrfHash, p.clientId, p.redirectUri, p.codeChallenge, p.state, p.scopes.join(' '), p.resource, p.expiresAt],
    );
  }

  async takePending(id: string): Promise<OAuthPendingRecord | undefined> {
    const { rows } = await query<PendingRow<Date>>(this.#pool, 'DELETE FROM oauth_pending WHERE id = $1 RETURNING *', [id]);
    const row = rows[0];
    if (!row) return undefined;
    return pendingOf(row, iso);
  }

  async createCode(c: OAuthCodeRecord): Promise<void> {
    await query(
      this.#pool,
      `INSERT INTO oauth_codes (hash, client_id, key_id, redirect_uri, code_challenge, scopes, resource, family_id, expires_at, used_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [c.hash, c.clientId, c.keyId, c.redirectUri, c.codeChallenge, c.scopes.join(' '), c.resource, c.familyId, c.expiresAt, c.usedAt],
    );
  }

  async findCode(hash: string): Promise<OAuthCodeRecord | undefined> {
    const { rows } = await query<CodeRow<Date>>(this.#pool, 'SELECT * FROM oauth_codes WHERE hash = $1', [hash]);
    const row = rows[0];
    if (!row) return undefined;
    return codeOf(row, iso);
  }

  async useCode(hash: string, at: string): Promise<boolean> {
    const result = await query(this.#pool, 'UPDATE oauth_codes SET used_at = $2 WHERE hash = $1 AND used_at IS NULL', [hash, at]);
    return (result.rowCount ?? 0) > 0;
  }

  async createTokens(tokens: readonly OAuthTokenRecord[]): Promise<void> {
    await withTransaction(this.#pool, async (client) => {
      for (const t of tokens) {
        await client.query(
          `INSERT INTO oauth_tokens (hash, kind, family_id, client_id, key_id, scopes, resource, expires_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [t.hash, t.kind, t.familyId, t.clientId, t.keyId, t.scopes.join(' '), t.resource, t.expiresAt, t.createdAt],
        );
      }
    });
  }

  async findToken(hash: string): Promise<FoundOAuthToken | undefined> {
    const { rows } = await query<TokenRow<Date>>(
      this.#pool,
      `SELECT t.*, (k.id IS NULL OR k.revoked_at IS NOT NULL OR c.id IS NULL OR c.revoked_at IS NOT NULL) AS owner_revoked,
              a.id::text AS app_id, a.slug AS app_slug, a.created_at AS app_created_at
       FROM oauth_tokens t
       LEFT JOIN api_keys k ON k.id = t.key_id
       LEFT JOIN oauth_clients c ON c.id = t.client_id
       LEFT JOIN apps a ON a.id = k.app_id
       WHERE t.hash = $1`,
      [hash],
    );
    const row = rows[0];
    if (!row) return undefined;
    return tokenOf(row, iso);
  }

  async useToken(hash: string, at: string): Promise<boolean> {
    const result = await query(this.#pool, 'UPDATE oauth_tokens SET used_at = $2 WHERE hash = $1 AND used_at IS NULL', [hash, at]);
    return (result.rowCount ?? 0) > 0;
  }

  async revokeFamily(familyId: string, at: string): Promise<void> {
    await withTransaction(this.#pool, async (client) => {
      await client.query('UPDATE oauth_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE family_id = $1', [familyId, at]);
      await client.query('UPDATE oauth_codes SET used_at = COALESCE(used_at, $2) WHERE family_id = $1', [familyId, at]);
    });
  }

  async prune(before: string, limit: number): Promise<number> {
    let gone = 0;
    for (const [table, key] of [['oauth_pending', 'id'], ['oauth_codes', 'hash'], ['oauth_tokens', 'hash']] as const) {
      if (gone >= limit) break;
      const result = await query(
        this.#pool,
        `DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE expires_at < $1 LIMIT $2)`,
        [before, limit - gone],
      );
      gone += result.rowCount ?? 0;
    }
    return gone;
  }
}

interface ClientRow {
  id: string;
  metadata: Record<string, unknown>;
  name: string | null;
  redirect_uris: string[];
  secret_hash: string | null;
  created_at: Date;
  revoked_at: Date | null;
  authorized_at: Date | null;
}

function toClient(row: ClientRow): OAuthClientRecord {
  return {
    id: row.id,
    metadata: row.metadata,
    name: row.name,
    redirectUris: row.redirect_uris,
    secretHash: row.secret_hash,
    createdAt: iso(row.created_at),
    revokedAt: row.revoked_at === null ? null : iso(row.revoked_at),
    authorizedAt: row.authorized_at === null ? null : iso(row.authorized_at),
  };
}



