import type { AppScope } from '../../core/store.js';
import { Params, scopeFilter } from './sql.js';

/**
 * The word side of recall: PostgreSQL full-text search over the generated `text_search` column, scored with
 * Okapi BM25 computed in SQL so that the ranker gets a value on the scale of SQLite's FTS5 `bm25()`:
 *
 *   score = sum over query lexemes t of  IDF(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
 *   IDF(t) = ln((N - n(t) + 0.5) / (n(t) + 0.5)), replaced by 1e-6 when <= 0
 *
 * with FTS5's constants (k1 = 1.2, b = 0.75) and its IDF floor, each query term counted once per occurrence in
 * the term list (FTS5 scores each phrase of the query). What differs from FTS5: N, n(t) and avgdl are counted
 * over the recall's scope (the user, and the app when one is named) where FTS5 counts the whole file (every
 * user); tokens are the 'english' configuration's lexemes (Snowball stemmer, stop words dropped) instead of
 * porter/unicode61's; dl counts distinct lexemes instead of all tokens. ts_rank_cd was not used: its values
 * (fractions of 1 with a cover-density weighting) have no fixed relation to BM25's.
 */
export const TEXT_SEARCH_CONFIG = 'english';
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** FTS5 replaces a non-positive IDF (a term in more than half of the documents) with this. */
export const BM25_MIN_IDF = 1e-6;

/** Terms a tsquery can hold: not blank, and without NUL, which PostgreSQL text cannot contain. */
export function usableTerms(terms: readonly string[]): string[] {
  return terms.map((t) => t.replaceAll('\u0000', '')).filter((t) => t.trim().length > 0);
}

/**
 * to_tsquery's quoted form of one term: backslash escapes and a doubled quote stand for themselves, so any
 * text (`|`, `&`, `!`, `:*`, `<->`, parentheses) is a literal to tokenise, never an operator.
 */
export function quoteTerm(term: string): string {
  return `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/**
 * The to_tsquery source: the terms OR-ed (`'a' | 'b'`). The implicit AND of a plain query would require every
 * word of a question to occur in one memory, which finds nothing for most questions; OR lets BM25 rank partial
 * matches. Terms that tokenise to nothing (stop words, punctuation) drop out of the query.
 */
export function orQuery(terms: readonly string[]): string | undefined {
  const usable = usableTerms(terms);
  return usable.length === 0 ? undefined : usable.map(quoteTerm).join(' | ');
}

export interface ScopeStats {
  /** Memories in the scope (BM25's N). */
  documents: number;
  /** Their mean doc_length (BM25's avgdl). */
  averageLength: number;
}

export interface WordQuery {
  userId: string;
  scope: AppScope;
  terms: readonly string[];
  /** How many best matches to take. */
  limit: number;
  /** Memories whose score is wanted even outside the best `limit` (the vector side's hits). */
  alsoIds: readonly string[];
}

/**
 * One statement: the memories of the scope matching any term (GIN index), their BM25 scores, the best `limit`
 * of them plus any of `alsoIds` that match. n(t) comes from the same matches: every memory containing a query
 * lexeme matches the OR-ed query. Returns undefined when no term is usable.
 */
export function wordHitsSql(q: WordQuery, stats: ScopeStats): { text: string; values: unknown[] } | undefined {
  const tsquery = orQuery(q.terms);
  if (tsquery === undefined || q.limit <= 0 || stats.documents === 0) return undefined;
  const p = new Params();
  const terms = p.add(usableTerms(q.terms));
  const scope = scopeFilter('m', q.userId, q.scope, p);
  const query = p.add(tsquery);
  const docs = p.add(stats.documents);
  // A memory that matches has at least one lexeme, so the mean is positive whenever a score is computed.
  const avgdl = p.add(Math.max(stats.averageLength, Number.MIN_VALUE));
  const limit = p.add(q.limit);
  const also = p.add(q.alsoIds);
  const text = `
    WITH terms AS (
      SELECT lexeme, count(*)::float8 AS mult
      FROM unnest(${terms}::text[]) AS t(term)
      CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector('${TEXT_SEARCH_CONFIG}', t.term))) AS lexeme
      GROUP BY lexeme
    ),
    matched AS MATERIALIZED (
      SELECT m.id, m.doc_length::float8 AS dl, u.lexeme, cardinality(u.positions)::float8 AS tf
      FROM memories m
      CROSS JOIN LATERAL unnest(m.text_search) AS u
      WHERE ${scope} AND m.text_search @@ to_tsquery('${TEXT_SEARCH_CONFIG}', ${query})
        AND u.lexeme IN (SELECT lexeme FROM terms)
    ),
    weights AS (
      SELECT t.lexeme, t.mult * CASE WHEN d.idf > 0 THEN d.idf ELSE ${BM25_MIN_IDF} END AS weight
      FROM terms t
      JOIN (
        SELECT lexeme, ln((${docs}::float8 - count(*) + 0.5) / (count(*) + 0.5)) AS idf FROM matched GROUP BY lexeme
      ) d USING (lexeme)
    ),
    scored AS (
      SELECT x.id,
        sum(w.weight * x.tf * ${BM25_K1 + 1} / (x.tf + ${BM25_K1} * (1 - ${BM25_B} + ${BM25_B} * x.dl / ${avgdl}::float8))) AS score
      FROM matched x JOIN weights w USING (lexeme)
      GROUP BY x.id
    )
    SELECT id, score FROM (
      SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS rank FROM scored
    ) ranked
    WHERE rank <= ${limit} OR id = ANY(${also}::text[])`;
  return { text, values: p.values };
}
