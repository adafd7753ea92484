import type {
  FoundOAuthToken,
  OAuthClientRecord,
  OAuthCodeRecord,
  OAuthPendingRecord,
  OAuthTokenRecord,
} from '../../core/oauth/records.js';
import { codeOf, pendingOf, tokenOf, type CodeRow, type PendingRow, type TokenRow } from '../oauth-rows.js';
import type { SqliteDatabase, Statement } from './connection.js';

/**
 * The OAuth authorization server's rows on SQLite (core/oauth/records.ts). Synchronous, each call one statement or
 * one transaction: SqliteStore runs them through its busy retry. Scopes are kept space-separated, as OAuth writes them.
 */
export class SqliteOAuthRows {
  readonly #db: SqliteDatabase;
  readonly #sql: (sql: string) => Statement;

  constructor(db: SqliteDatabase, sql: (sql: string) => Statement) {
    this.#db = db;
    this.#sql = sql;
  }

  createClient(client: OAuthClientRecord): void {
    this.#sql('INSERT INTO oauth_clients (id, metadata, name, redirect_uris, secret_hash, created_at, revoked_at, authorized_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      client.id,
      JSON.stringify(client.metadata),
      client.name,
      JSON.stringify(client.redirectUris),
      client.secretHash,
      client.createdAt,
      client.revokedAt,
      client.authorizedAt,
    );
  }

  findClient(id: string): OAuthClientRecord | undefined {
    const row = this.#sql('SELECT * FROM oauth_clients WHERE id = ?').get(id) as ClientRow | undefined;
    return row ? toClient(row) : undefined;
  }

  listClients(): OAuthClientRecord[] {
    return (this.#sql('SELECT * FROM oauth_clients ORDER BY created_at, id').all() as ClientRow[]).map(toClient);
  }

  revokeClient(id: string, at: string): boolean {
    return this.#sql('UPDATE oauth_clients SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(at, id).changes > 0;
  }

  markClientAuthorized(id: string, at: string): void {
    this.#sql('UPDATE oauth_clients SET authorized_at = COALESCE(authorized_at, ?) WHERE id = ?').run(at, id);
  }

  countClients(): { total: number; unused: number } {
    const row = this.#sql('SELECT COUNT(*) AS total, COALESCE(SUM(authorized_at IS NULL), 0) AS unused FROM oauth_clients').get() as { total: number; unused: number };
    return { total: row.total, unused: row.unused };
  }

  pruneUnusedClients(registeredBefore: string, limit: number): number {
    return this.#sql(
      `DELETE FROM oauth_clients WHERE id IN (
         SELECT id FROM oauth_clients
         WHERE authorized_at IS NULL AND created_at < ? AND id NOT IN (SELECT client_id FROM oauth_pending)
         LIMIT ?)`,
    ).run(registeredBefore, limit).changes;
  }

  createPending(p: OAuthPendingRecord): void {
    this.#sql(
      `INSERT INTO oauth_pending (id, csrf_hash, client_id, redirect_uri, code_challenge, state, scopes, resource, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(p.id, p.csrfHash, p.clientId, p.redirectUri, p.codeChallenge, p.state, p.scopes.join(' '), p.resource, p.expiresAt);
  }

  takePending(id: string): OAuthPendingRecord | undefined {
    const row = this.#sql('DELETE FROM oauth_pending WHERE id = ? RETURNING *').get(id) as PendingRow<string> | undefined;
    if (!row) return undefined;
    return pendingOf(row, same);
  }

  createCode(c: OAuthCodeRecord): void {
    this.#sql(
      `INSERT INTO oauth_codes (hash, client_id, key_id, redirect_uri, code_challenge, scopes, resource, family_id, expires_at, used_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(c.hash, c.clientId, c.keyId, c.redirectUri, c.codeChallenge, c.scopes.join(' '), c.resource, c.familyId, c.expiresAt, c.usedAt);
  }

  findCode(hash: string): OAuthCodeRecord | undefined {
    const row = this.#sql('SELECT * FROM oauth_codes WHERE hash = ?').get(hash) as CodeRow<string> | undefined;
    if (!row) return undefined;
    return codeOf(row, same);
  }

  useCode(hash: string, at: string): boolean {
    return this.#sql('UPDATE oauth_codes SET used_at = ? WHERE hash = ? AND used_at IS NULL').run(at, hash).changes > 0;
  }

  createTokens(tokens: readonly OAuthTokenRecord[]): void {
    const insert = this.#sql(
      `INSERT INTO oauth_tokens (hash, kind, family_id, client_id, key_id, scopes, resource, expires_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#db.transaction(() => {
      for (const t of tokens) {
        insert.run(t.hash, t.kind, t.familyId, t.clientId, t.keyId, t.scopes.join(' '), t.resource, t.expiresAt, t.createdAt);
      }
    }).immediate();
  }

  findToken(hash: string): FoundOAuthToken | undefined {
    const row = this.#sql(
      `SELECT t.*, (k.id IS NULL OR k.revoked_at IS NOT NULL OR c.id IS NULL OR c.revoked_at IS NOT NULL) AS owner_revoked,
              a.id AS app_id, a.slug AS app_slug, a.created_at AS app_created_at
       FROM oauth_tokens t
       LEFT JOIN api_keys k ON k.id = t.key_id
       LEFT JOIN oauth_clients c ON c.id = t.client_id
       LEFT JOIN apps a ON a.id = k.app_id
       WHERE t.hash = ?`,
    ).get(hash) as TokenRow<string> | undefined;
    if (!row) return undefined;
    return tokenOf(row, same);
  }

  useToken(hash: string, at: string): boolean {
    return this.#sql('UPDATE oauth_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL').run(at, hash).changes > 0;
  }

  revokeFamily(familyId: string, at: string): void {
    this.#db.transaction(() => {
      this.#sql('UPDATE oauth_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE family_id = ?').run(at, familyId);
      this.#sql('UPDATE oauth_codes SET used_at = COALESCE(used_at, ?) WHERE family_id = ?').run(at, familyId);
    }).immediate();
  }

  prune(before: string, limit: number): number {
    let gone = 0;
    for (const table of ['oauth_pending', 'oauth_codes', 'oauth_tokens']) {
      if (gone >= limit) break;
      gone += this.#sql(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE expires_at < ? LIMIT ?)`).run(before, limit - gone).changes;
    }
    return gone;
  }
}

interface ClientRow {
  id: string;
  metadata: string;
  name: string | null;
  redirect_uris: string;
  secret_hash: string | null;
  created_at: string;
  revoked_at: string | null;
  authorized_at: string | null;
}

function toClient(row: ClientRow): OAuthClientRecord {
  return {
    id: row.id,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    secretHash: row.secret_hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    authorizedAt: row.authorized_at,
  };
}

/** SQLite keeps times as the records' ISO text. */
function same(time: string): string {
  return time;
}
