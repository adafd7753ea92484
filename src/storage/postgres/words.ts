import type { TermMatches, WordMatchQuery } from '../../core/store.js';
import { wordIndexOf } from '../../core/text/analyze.js';
import type { Pool } from './connection.js';
import { query } from './connection.js';
import { filterSql } from './filters.js';
import { Params, scopeFilter } from './sql.js';

/**
 * The word side of recall on PostgreSQL: each memory's `terms` (core/text/analyze.ts: split by its language,
 * stemmed, stop words dropped; space-separated) searched as an array through a GIN index on this expression, one
 * bounded list per query term, as on SQLite. A term is matched exactly: both backends find the same memories.
 */
export const TERMS_ARRAY = "string_to_array(terms, ' ')";

/** The columns a row's word index is written to, from its text. */
export function wordColumns(text: string): { language: string; terms: string } {
  const entry = wordIndexOf(text);
  return { language: entry.language, terms: entry.terms.join(' ') };
}

/** Terms a tsquery can hold: not blank, and without NUL, which PostgreSQL text cannot contain. */
export function usableTerm(term: string): string | undefined {
  const usable = term.replaceAll('\u0000', '');
  return usable.trim().length === 0 ? undefined : usable;
}


/**
 * One statement for all the terms: per term, the newest `perTerm` memories of the scope containing it. The list
 * is read newest first by created_at (then id), which is the order of storing unless memories were imported with
 * older dates; SQLite keeps the order of storing.
 */
export async function findWordMatches(pool: Pool, q: WordMatchQuery): Promise<TermMatches[]> {
  const quoted = q.terms.map((t) => usableTerm(t) ?? null);
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
         WHERE t.q IS NOT NULL AND ${scope} AND ${TERMS_ARRAY.replace('terms', 'm.terms')} @> ARRAY[t.q]
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
