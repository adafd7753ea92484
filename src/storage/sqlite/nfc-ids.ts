import type { SqliteDatabase } from './connection.js';
import { CODES_TABLE, hasTable, isVirtualVectorTable, VECTORS_TABLE } from './vector-search.js';
import { writeWords } from './words.js';

/**
 * Migration 8: stored user ids and caller keys in Unicode NFC, as every input now is (core/schemas.ts), so that a
 * user stored as the decomposed "café" is still found by the name a client sends. A user id is renamed only where
 * no memory holds its NFC form already: two users that existed apart are not merged by a migration (the other one
 * stays as it was, listed by GET /v1/users and exported, but no longer addressed by a request). The same for keys,
 * within their user and app. Everything that copies the user id moves with it: the metadata index, the vector
 * tables and the word index (whose owner token is a digest of the user id, so the memory's words are indexed again).
 */
export function nfcIdentifiers(db: SqliteDatabase): void {
  const users = (db.prepare('SELECT DISTINCT user_id FROM memories').pluck().all() as string[]).filter((u) => u !== u.normalize('NFC'));
  const taken = db.prepare('SELECT 1 FROM memories WHERE user_id = ? LIMIT 1').pluck();
  const vectors = hasTable(db, VECTORS_TABLE) && !isVirtualVectorTable(db);
  const codes = hasTable(db, CODES_TABLE);
  const rename = [
    db.prepare('UPDATE memories SET user_id = @to WHERE user_id = @from'),
    db.prepare('UPDATE memory_fields SET user_id = @to WHERE user_id = @from'),
    ...(vectors ? [db.prepare(`UPDATE ${VECTORS_TABLE} SET user_id = @to WHERE user_id = @from`)] : []),
    ...(codes ? [db.prepare(`UPDATE ${CODES_TABLE} SET user_id = @to WHERE user_id = @from`)] : []),
  ];
  const rows = db.prepare('SELECT rowid, text FROM memories WHERE user_id = ?');
  const unindex = db.prepare('DELETE FROM memory_words WHERE rowid = ?');
  for (const from of users) {
    const to = from.normalize('NFC');
    if (taken.get(to) !== undefined) continue;
    for (const statement of rename) statement.run({ from, to });
    for (const row of rows.all(to) as Array<{ rowid: number; text: string }>) {
      unindex.run(row.rowid);
      writeWords(db, row.rowid, to, row.text);
    }
  }
  const keyed = (db.prepare('SELECT rowid, user_id, app_id, key FROM memories WHERE key IS NOT NULL').all() as Array<{
    rowid: number;
    user_id: string;
    app_id: string;
    key: string;
  }>).filter((r) => r.key !== r.key.normalize('NFC'));
  const keyTaken = db.prepare('SELECT 1 FROM memories WHERE user_id = ? AND app_id = ? AND key = ? LIMIT 1').pluck();
  const setKey = db.prepare('UPDATE memories SET key = ? WHERE rowid = ?');
  for (const row of keyed) {
    const to = row.key.normalize('NFC');
    if (keyTaken.get(row.user_id, row.app_id, to) === undefined) setKey.run(to, row.rowid);
  }
}
