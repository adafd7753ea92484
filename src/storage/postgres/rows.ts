import type { ApiKeyRecord, App, MemoryRecord } from '../../core/types.js';

/**
 * Row shapes as selected by the queries of this backend, and their mapping to domain records. pg hands back
 * timestamptz as Date, uuid as lower-case text and json already parsed.
 */
export interface MemoryRow {
  id: string;
  uuid: string;
  user_id: string;
  app_id: string;
  app_slug: string;
  app_created_at: Date;
  text: string;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  expires_at: Date | null;
  key: string | null;
  /** True while the memory waits for its vector (migration 10). */
  vector_pending: boolean;
}

export const MEMORY_COLUMNS = `m.id AS id, m.uuid AS uuid, m.user_id AS user_id, m.app_id AS app_id, a.slug AS app_slug,
  a.created_at AS app_created_at, m.text AS text, m.metadata AS metadata, m.created_at AS created_at,
  m.updated_at AS updated_at, m.expires_at AS expires_at, m.key AS key, m.vector_pending AS vector_pending`;

/** ISO 8601 UTC with milliseconds, the contract's form; stored values have millisecond precision. */
export function iso(value: Date): string {
  return value.toISOString();
}

export function toMemory(row: MemoryRow): MemoryRecord {
  return {
    id: row.id,
    uuid: row.uuid,
    userId: row.user_id,
    app: { id: row.app_id, slug: row.app_slug, createdAt: iso(row.app_created_at) },
    text: row.text,
    metadata: row.metadata,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    expiresAt: row.expires_at === null ? null : iso(row.expires_at),
    key: row.key,
    ...(row.vector_pending ? { vectorPending: true as const } : {}),
  };
}

export interface AppRow {
  id: string;
  slug: string;
  created_at: Date;
}

export const APP_COLUMNS = 'id, slug, created_at';

export function toApp(row: AppRow): App {
  return { id: row.id, slug: row.slug, createdAt: iso(row.created_at) };
}

export interface KeyRow {
  id: string;
  prefix: string;
  hash: string;
  app_id: string | null;
  app_slug: string | null;
  app_created_at: Date | null;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

export const KEY_COLUMNS = `k.id AS id, k.prefix AS prefix, k.hash AS hash, k.app_id AS app_id, a.slug AS app_slug,
  a.created_at AS app_created_at, k.label AS label, k.created_at AS created_at, k.revoked_at AS revoked_at`;

export function toKey(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    prefix: row.prefix,
    hash: row.hash,
    app:
      row.app_id === null || row.app_slug === null || row.app_created_at === null
        ? null
        : { id: row.app_id, slug: row.app_slug, createdAt: iso(row.app_created_at) },
    label: row.label,
    createdAt: iso(row.created_at),
    revokedAt: row.revoked_at === null ? null : iso(row.revoked_at),
  };
}

export interface IdempotencyRow {
  request_hash: string;
  response: string;
  created_at: Date;
}

/** count(*) is bigint, which pg hands back as a string. */
export interface CountRow {
  n: string;
}
