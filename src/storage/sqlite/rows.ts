import type { ApiKeyRecord, App, MemoryRecord } from '../../core/types.js';

/** Row shapes as selected by the queries in sqlite-store.ts, and their mapping to domain records. */
export interface MemoryRow {
  rowid: number;
  id: string;
  uuid: string;
  user_id: string;
  app_id: string;
  app_slug: string;
  app_created_at: string;
  text: string;
  metadata: string;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  key: string | null;
  /** 1 while the memory waits for its vector (migration 11). */
  vector_pending: number;
}

export const MEMORY_COLUMNS = `m.rowid AS rowid, m.id AS id, m.uuid AS uuid, m.user_id AS user_id, m.app_id AS app_id,
  a.slug AS app_slug, a.created_at AS app_created_at, m.text AS text, m.metadata AS metadata, m.created_at AS created_at,
  m.updated_at AS updated_at, m.expires_at AS expires_at, m.key AS key, m.vector_pending AS vector_pending`;

export function toMemory(row: MemoryRow): MemoryRecord {
  return {
    id: row.id,
    uuid: row.uuid,
    userId: row.user_id,
    app: { id: row.app_id, slug: row.app_slug, createdAt: row.app_created_at },
    text: row.text,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at,
    key: row.key,
    ...(row.vector_pending === 1 ? { vectorPending: true as const } : {}),
  };
}

export interface AppRow {
  id: string;
  slug: string;
  created_at: string;
}

export function toApp(row: AppRow): App {
  return { id: row.id, slug: row.slug, createdAt: row.created_at };
}

export interface KeyRow {
  id: string;
  prefix: string;
  hash: string;
  app_id: string | null;
  app_slug: string | null;
  app_created_at: string | null;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
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
        : { id: row.app_id, slug: row.app_slug, createdAt: row.app_created_at },
    label: row.label,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
