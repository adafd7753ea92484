/**
 * Lexical evidence as idf-weighted coverage: the share of the query's information (its terms, weighted by how
 * rare each is) that a text contains. Unlike a raw BM25 sum, it has the same meaning for every query: 1 means every
 * query term occurs, 0.5 means half of the query's weight does, whatever the query's length or vocabulary.
 *
 * Term rarity is measured on the recall's candidate pool (the memories either side of the search found). The pool
 * holds every memory where a rare query term occurs, so rare terms are counted exactly; common ones (a speaker's
 * name) occur throughout it and weigh little. A query term that occurs in no candidate gets the highest weight: a
 * question about something the memories never mention cannot be well covered by any of them.
 */
export class TermWeights {
  readonly terms: readonly string[];
  readonly #weights: Map<string, number>;
  readonly #total: number;

  /** `queryStems`: the query's distinct stems; `pool`: the stems of every candidate. */
  constructor(queryStems: readonly string[], pool: readonly ReadonlySet<string>[]) {
    this.terms = [...new Set(queryStems)];
    const n = pool.length;
    this.#weights = new Map(
      this.terms.map((t) => {
        const df = pool.reduce((count, stems) => count + (stems.has(t) ? 1 : 0), 0);
        // BM25's idf, shifted to stay positive for terms in more than half of the pool.
        return [t, Math.log(1 + (n - df + 0.5) / (df + 0.5))];
      }),
    );
    this.#total = [...this.#weights.values()].reduce((a, b) => a + b, 0);
  }

  /** Coverage in [0, 1] of a set of stems (0 for a query without terms). */
  coverage(stems: ReadonlySet<string>, also?: ReadonlySet<string>): number {
    if (this.#total <= 0) return 0;
    let covered = 0;
    for (const [t, w] of this.#weights) if (stems.has(t) || also?.has(t)) covered += w;
    return covered / this.#total;
  }
}
