import { createHash } from 'node:crypto';

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
 * The MATCH expression: the user's token AND any of the terms. FTS5's implicit AND would require every word of a
 * question to occur in one memory, which finds nothing for most questions; OR lets BM25 rank partial matches.
 */
export function wordQuery(userId: string, terms: readonly string[]): string | undefined {
  // NUL ends a string inside FTS5's query parser ("unterminated string"), so it cannot be quoted: drop it.
  const usable = terms.map((t) => t.replaceAll('\u0000', '')).filter((t) => t.trim().length > 0);
  if (usable.length === 0) return undefined;
  return `owner : ${quote(ownerToken(userId))} AND text : (${usable.map(quote).join(' OR ')})`;
}
