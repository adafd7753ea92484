import type { PoolClient } from './connection.js';
import { longQuery } from './migrations.js';

/**
 * Migration 7: stored user ids and caller keys in Unicode NFC, as every input now is (core/schemas.ts), the same
 * rule as SQLite's migration 8 (storage/sqlite/nfc-ids.ts): a user id is renamed only where no memory holds its NFC
 * form already (two users that existed apart are not merged), a key only where its NFC form is free in its user and
 * app. NFC is computed here, in Node, as the inputs are, not by the server's normalize(): the same tables whatever
 * the server's version or encoding. The metadata index holds the user id too and moves with it.
 */
export async function nfcIdentifiers(client: PoolClient): Promise<void> {
  const { rows: users } = await longQuery<{ user_id: string }>(client, 'SELECT DISTINCT user_id FROM memories');
  for (const { user_id: from } of users) {
    const to = from.normalize('NFC');
    if (to === from) continue;
    const { rowCount } = await client.query('SELECT 1 FROM memories WHERE user_id = $1 LIMIT 1', [to]);
    if (rowCount) continue;
    await longQuery(client, 'UPDATE memories SET user_id = $2 WHERE user_id = $1', [from, to]);
    await longQuery(client, 'UPDATE memory_fields SET user_id = $2 WHERE user_id = $1', [from, to]);
  }
  const { rows: keyed } = await longQuery<{ id: string; user_id: string; app_id: string; key: string }>(
    client,
    'SELECT id, user_id, app_id, key FROM memories WHERE key IS NOT NULL',
  );
  for (const row of keyed) {
    const to = row.key.normalize('NFC');
    if (to === row.key) continue;
    const { rowCount } = await client.query('SELECT 1 FROM memories WHERE user_id = $1 AND app_id = $2 AND key = $3 LIMIT 1', [row.user_id, row.app_id, to]);
    if (!rowCount) await client.query('UPDATE memories SET key = $2 WHERE id = $1', [row.id, to]);
  }
}
