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
 * The MATCH expression for one term of a user: their token AND the term (a phrase when the tokenizer splits it).
 * Returns undefined for a term that cannot match anything.
 */
export function termQuery(userId: string, term: string): string | undefined {
  // NUL ends a string inside FTS5's query parser ("unterminated string"), so it cannot be quoted: drop it.
  const usable = term.replaceAll('\u0000', '');
  if (usable.trim().length === 0) return undefined;
  return `owner : ${quote(ownerToken(userId))} AND text : ${quote(usable)}`;
}
