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
  /**
   * Per query term, the share of its weight a related word (lexicon/related.ts) earns in place of the term: the
   * credit, or less for a term related to more than `breadth` words.
   */
  readonly #termCredit = new Map<string, number>();
  /** For each stem related to a query term, the query terms it stands for (looked up per memory stem: cheap). */
  readonly #relatedTo: Map<string, string[]>;
  /** Query terms that occur in no memory of the pool. */
  readonly #absent: Set<string>;
  /**
   * Per query term, the related stems that are forms of the same word ("allergi" of "allergy" and "allerg" of
   * "allergic", "medic" and "medicin"): they earn the term's whole weight, not a related word's credit.
   */
  readonly #variants = new Map<string, readonly string[]>();

  /**
   * `queryStems`: the query's distinct stems; `pool`: the stems of every candidate; `prior`: pseudo-memories that
   * contain no query term, added to the pool's size so that a few memories (a new user's) do not make every term
   * look common; `related`: the related words, the credit they earn, and the breadth beyond which it shrinks.
   */
  /** Part of a word (text/parts.ts): the share of a term's weight a word that contains it, or is contained in it, earns. */
  readonly #partCredit: number;
  readonly #isPart: (term: string, stem: string) => boolean;

  constructor(
    queryStems: readonly string[],
    pool: readonly ReadonlySet<string>[],
    prior = 0,
    related: {
      stems: (stem: string) => readonly string[];
      credit: number;
      breadth?: number;
      forms?: boolean;
      /** With `forms`: the stems a term is written or typed as in the other register ("meds" / "medication"), as forms. */
      informal?: (stem: string) => readonly string[];
    } = { stems: () => [], credit: 0 },
    parts: { credit: number; isPart: (term: string, stem: string) => boolean } = { credit: 0, isPart: () => false },
  ) {
    this.#partCredit = parts.credit;
    this.#isPart = parts.isPart;
    this.terms = [...new Set(queryStems)];
    this.#relatedTo = new Map();
    if (related.credit > 0) {
      for (const t of this.terms) {
        const list = related.stems(t);
        const breadth = related.breadth;
        // A term related to hundreds of words ("work") is weakly evidenced by any one of them.
        this.#termCredit.set(t, breadth === undefined || list.length <= breadth ? related.credit : (related.credit * breadth) / list.length);
        // Forms of one word are told by their letters, which only the English lexicon (WordNet) lists as such.
        const variants = related.forms === true ? [...list.filter((r) => sameWord(t, r)), ...(related.informal?.(t) ?? [])] : [];
        if (variants.length > 0) this.#variants.set(t, variants);
        for (const r of list) {
          const terms = this.#relatedTo.get(r);
          if (terms === undefined) this.#relatedTo.set(r, [t]);
          else if (!terms.includes(t)) terms.push(t);
        }
      }
    }
    const n = pool.length + prior;
    this.#absent = new Set();
    this.#weights = new Map(
      this.terms.map((t) => {
        const df = pool.reduce((count, stems) => count + (stems.has(t) ? 1 : 0), 0);
        if (df === 0) this.#absent.add(t);
        // BM25's idf, shifted to stay positive for terms in more than half of the pool.
        return [t, Math.log(1 + (n - df + 0.5) / (df + 0.5))];
      }),
    );
    this.#total = [...this.#weights.values()].reduce((a, b) => a + b, 0);
  }

  /** Which query terms a set of stems contains, as a key ("" for none). */
  coveredKey(stems: ReadonlySet<string>): string {
    return this.terms.filter((t) => stems.has(t)).join(' ');
  }

  /**
   * Share of the query's weight held by terms that no memory of the pool contains (the pool holds every memory
   * where a query term occurs): a question about something never mentioned ("What is Sam's blood type?").
   */
  absentShare(): number {
    if (this.#total <= 0) return 0;
    let absent = 0;
    for (const t of this.#absent) absent += this.#weights.get(t) ?? 0;
    return absent / this.#total;
  }

  /** The largest share of the query's weight that one term the stems do not contain holds (0 when all are there). */
  largestMissing(stems: ReadonlySet<string>, also?: ReadonlySet<string>): number {
    if (this.#total <= 0) return 0;
    const related = this.#relatedCovered(stems, also);
    let largest = 0;
    for (const [t, w] of this.#weights) largest = Math.max(largest, (1 - this.#share(t, stems, also, related)) * w);
    return largest / this.#total;
  }

  /** Whether the stems hold any of the terms, or a form or related word of one (a share above 0). */
  holdsAny(terms: readonly string[], stems: ReadonlySet<string>): boolean {
    const related = this.#relatedCovered(stems, undefined);
    return terms.some((t) => this.#weights.has(t) && this.#share(t, stems, undefined, related) > 0);
  }

  /** Coverage in [0, 1] of a set of stems (0 for a query without terms). */
  coverage(stems: ReadonlySet<string>, also?: ReadonlySet<string>): number {
    if (this.#total <= 0) return 0;
    const related = this.#relatedCovered(stems, also);
    let covered = 0;
    for (const [t, w] of this.#weights) covered += this.#share(t, stems, also, related) * w;
    return covered / this.#total;
  }

  /** The share of a query term the stems cover: 1 when present, its related-word credit when related, else 0. */
  #share(t: string, stems: ReadonlySet<string>, also: ReadonlySet<string> | undefined, related: ReadonlySet<string> | undefined): number {
    if (stems.has(t) || also?.has(t) === true) return 1;
    for (const v of this.#variants.get(t) ?? []) if (stems.has(v) || also?.has(v) === true) return 1;
    const byRelated = related?.has(t) === true ? (this.#termCredit.get(t) ?? 0) : 0;
    if (this.#partCredit <= 0) return byRelated;
    const byPart = this.#partsOf(stems).has(t) || (also !== undefined && this.#partsOf(also).has(t)) ? this.#partCredit : 0;
    return Math.max(byRelated, byPart);
  }

  /** The query terms that a word of the stems holds as a part, or is a part of (memoised per stem set, as #relatedOf). */
  readonly #parts = new Map<ReadonlySet<string>, ReadonlySet<string>>();
  #partsOf(stems: ReadonlySet<string>): ReadonlySet<string> {
    let found = this.#parts.get(stems);
    if (found === undefined) {
      const set = new Set<string>();
      for (const t of this.terms) {
        if (stems.has(t)) continue;
        for (const stem of stems) {
          if (this.#isPart(t, stem)) {
            set.add(t);
            break;
          }
        }
      }
      found = set;
      this.#parts.set(stems, found);
    }
    return found;
  }

  /** The query terms that a related word among the stems stands for (undefined when none or credit is off). */
  #relatedCovered(stems: ReadonlySet<string>, also?: ReadonlySet<string>): ReadonlySet<string> | undefined {
    if (this.#relatedTo.size === 0) return undefined;
    const own = this.#relatedOf(stems);
    if (also === undefined) return own;
    const other = this.#relatedOf(also);
    if (own === undefined || other === undefined) return own ?? other;
    return new Set([...own, ...other]);
  }

  /**
   * Per stem set, the query terms its related words stand for. A recall asks this of each memory up to four times
   * (its own coverage, with each neighbour, the largest missing term), and walking a long memory's stems was a
   * seventh of the ranking's time: it is remembered for the query's lifetime.
   */
  // A Map, not a WeakMap: it lives as long as this query's weights, and a Map's lookups are the cheaper.
  readonly #related = new Map<ReadonlySet<string>, ReadonlySet<string> | null>();
  #relatedOf(stems: ReadonlySet<string>): ReadonlySet<string> | undefined {
    const known = this.#related.get(stems);
    if (known !== undefined) return known ?? undefined;
    let found: Set<string> | undefined;
    for (const stem of stems) {
      const terms = this.#relatedTo.get(stem);
      if (terms !== undefined) for (const t of terms) (found ??= new Set()).add(t);
    }
    this.#related.set(stems, found ?? null);
    return found;
  }
}

/**
 * Two related stems that are forms of one word: they share at least 5 letters from the start and differ after
 * them by 2 letters at most ("allergi" / "allerg", "medic" / "medicin"); "car" and "carriag" do not.
 */
export function sameWord(a: string, b: string): boolean {
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return common >= 5 && Math.max(a.length, b.length) - common <= 2;
}
