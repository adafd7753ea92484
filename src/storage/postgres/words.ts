import type { TermMatches, WordMatchQuery } from '../../core/store.js';
import type { Pool } from './connection.js';
import { query } from './connection.js';
import { filterSql } from './filters.js';
import { Params, scopeFilter } from './sql.js';

/**
 * The word side of recall on PostgreSQL: full-text search over the generated `text_search` column (GIN index),
 * one bounded list per query term, as on SQLite. Tokens are the 'english' configuration's lexemes (Snowball
 * stemmer, stop words dropped) where FTS5 uses porter/unicode61: a term may match slightly different memories on
 * the two backends, which the evaluation measures (README, "Scaling out").
 */
export const TEXT_SEARCH_CONFIG = 'english';

/** Terms a tsquery can hold: not blank, and without NUL, which PostgreSQL text cannot contain. */
export function usableTerm(term: string): string | undefined {
  const usable = term.replaceAll('\u0000', '');
  return usable.trim().length === 0 ? undefined : usable;
}

/**
 * to_tsquery's quoted form of one term: backslash escapes and a doubled quote stand for themselves, so any
 * text (`|`, `&`, `!`, `:*`, `<->`, parentheses) is a literal to tokenise, never an operator. A term of several
 * tokens becomes a phrase; one of stop words only, an empty query that matches nothing.
 */
export function quoteTerm(term: string): string {
  return `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/**
 * One statement for all the terms: per term, the newest `perTerm` memories of the scope containing it. The list
 * is read newest first by created_at (then id), which is the order of storing unless memories were imported with
 * older dates; SQLite keeps the order of storing.
 */
export async function findWordMatches(pool: Pool, q: WordMatchQuery): Promise<TermMatches[]> {
  const quoted = q.terms.map((t) => usableTerm(t)).map((t) => (t === undefined ? null : quoteTerm(t)));
  const lists = new Map<number, string[]>();
  if (q.perTerm > 0 && quoted.some((t) => t !== null)) {
    const p = new Params();
    const terms = p.add(quoted);
    const scope = `${scopeFilter('m', q.userId, q.scope, p)} ${filterSql('m', q.userId, q.filter, p)}`;
    const limit = p.add(q.perTerm);
    const { rows } = await query<{ i: string; id: string }>(
      pool,
      `SELECT t.i, x.id FROM unnest(${terms}::text[]) WITH ORDINALITY AS t(q, i)
       CROSS JOIN LATERAL (
         SELECT m.id, m.created_at FROM memories m
         WHERE t.q IS NOT NULL AND ${scope} AND m.text_search @@ to_tsquery('${TEXT_SEARCH_CONFIG}', t.q)
         ORDER BY m.created_at DESC, m.id DESC LIMIT ${limit}
       ) x
       ORDER BY t.i, x.created_at DESC, x.id DESC`,
      p.values,
    );
    for (const row of rows) {
      const i = Number(row.i) - 1;
      const list = lists.get(i) ?? [];
      list.push(row.id);
      lists.set(i, list);
    }
  }
  return q.terms.map((term, i) => ({ term, ids: lists.get(i) ?? [] }));
}
