import { createHash } from 'node:crypto';
import { wordIndexOf } from '../../core/text/analyze.js';
import type { SqliteDatabase, Statement } from './connection.js';

/**
 * The word index holds, beside each memory's text, one token naming its user, so a word search is the
 * intersection of that user's postings with the query's terms instead of every user's matches filtered later.
 * The token is a hash: it must survive the tokenizer unchanged for any user id (spaces, punctuation, unicode).
 */
export function ownerToken(userId: string): string {
  return `u${createHash('sha256').update(userId, 'utf8').digest('hex').slice(0, 24)}`;
}

/** FTS5 string literal: double quotes inside are doubled. */
function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * The MATCH expression for one term of a user: their token AND the term (a phrase when the tokenizer splits it).
 * Returns undefined for a term that cannot match anything.
 */
export function termQuery(userId: string, term: string): string | undefined {
  // NUL ends a string inside FTS5's query parser ("unterminated string"), so it cannot be quoted: drop it.
  const usable = term.replaceAll('\u0000', '');
  if (usable.trim().length === 0) return undefined;
  return `owner : ${quote(ownerToken(userId))} AND text : ${quote(usable)}`;
}

/**
 * Indexes a memory's words: its terms as core's analysis gives them (text/analyze.ts: split by its language,
 * stemmed, stop words dropped), which FTS5 stores as they are, and its language on the row. Returns the language.
 */
export function writeWords(db: SqliteDatabase, rowid: number, userId: string, text: string): string {
  const entry = wordIndexOf(text);
  const { insert, language } = statementsOf(db);
  insert.run(rowid, entry.terms.join(' '), ownerToken(userId));
  language.run(entry.language, rowid);
  return entry.language;
}

// Prepared once per connection: a bulk import indexes thousands of memories in one transaction.
const statements = new WeakMap<SqliteDatabase, { insert: Statement; language: Statement }>();
function statementsOf(db: SqliteDatabase): { insert: Statement; language: Statement } {
  let s = statements.get(db);
  if (s === undefined) {
    s = {
      insert: db.prepare('INSERT INTO memory_words (rowid, text, owner) VALUES (?, ?, ?)'),
      language: db.prepare('UPDATE memories SET language = ? WHERE rowid = ?'),
    };
    statements.set(db, s);
  }
  return s;
}
