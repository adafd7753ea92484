/** Domain records, as the core and the storage backends exchange them (not wire shapes: see schemas.ts). */

export interface App {
  /** UUID. */
  id: string;
  slug: string;
  createdAt: string;
}

export interface MemoryRecord {
  /** Public short id, `mem_` + 12 base62. */
  id: string;
  uuid: string;
  userId: string;
  app: App;
  text: string;
  metadata: Record<string, unknown>;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  /** When text, metadata or expiry last changed: createdAt until the first update. */
  updatedAt: string;
  /** From this instant on the memory is invisible to every read, then purged; null: kept for good. */
  expiresAt: string | null;
  /** The caller's own key, unique within the user and app; null (the backends' answer) or absent without one. */
  key?: string | null | undefined;
  /**
   * True while the memory has no vector: it was stored (or its text changed) while the embedding endpoint was down,
   * and the backfill (core/backfill.ts) has not embedded it yet. Found by its words meanwhile. Absent otherwise.
   */
  vectorPending?: true | undefined;
}

export interface ApiKeyRecord {
  /** `key_` + 12 base62: what `keys list` shows and `keys revoke` takes. */
  id: string;
  /** The first characters of the key, safe to display (`amk_AbCd`). */
  prefix: string;
  /** Hex SHA-256 of the whole key. */
  hash: string;
  /** The app the key is bound to, or null for an unbound key. */
  app: App | null;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

/** Who is asking: resolved from the API key by the adapter, enforced by the core. */
export interface Caller {
  /** Key id (`key_...`), or null for a trusted local caller (stdio MCP, CLI, in-process). */
  keyId: string | null;
  /** The app the caller's key is bound to; null means every app is visible. */
  boundApp: App | null;
  /**
   * What an OAuth access token was allowed (core/scopes.ts); undefined for an API key or a local caller, which may
   * do everything. A token acts as the key that approved it (same keyId, same app binding), within these scopes.
   */
  scopes?: readonly ('memory:read' | 'memory:write')[];
}

export const LOCAL_CALLER: Caller = Object.freeze({ keyId: null, boundApp: null });
