import { pickWordCandidates } from './ranking/word-candidates.js';
import type { QueryPlan } from './ranking/types.js';
import type { AppScope, Candidate, MemoryFilter, MemoryStore } from './store.js';

export interface CandidateSearch {
  userId: string;
  scope: AppScope;
  plan: QueryPlan;
  /**
   * The query's embedding, possibly still being computed: the word side does not wait for it. Null when the query
   * could not be embedded (the model or its endpoint failed): the candidates are then the word side's alone.
   */
  embedding: Promise<Float32Array | null>;
  /** Both sides search only the memories it lets through (and never expired ones). */
  filter?: MemoryFilter | undefined;
}

/**
 * Recall's two-sided search over any store: the word side (bounded lists per term, then the best `textK` of them)
 * runs while the embedding is computed, the vector side once it is there, and the store returns the union with
 * cosines and neighbours. The word side starts on the next turn of the event loop: an embedder that batches per
 * turn (the worker embedder) has then sent the query to its thread, so even a synchronous store (SQLite, which
 * holds this thread while it searches) overlaps with the model instead of delaying it.
 */
export async function searchCandidates(store: MemoryStore, search: CandidateSearch): Promise<Candidate[]> {
  const { userId, scope, plan, filter } = search;
  const words = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
    store.findWordMatches({ userId, scope, terms: plan.terms, perTerm: plan.perTerm, filter }),
  );
  const [embedding, matches] = await Promise.all([search.embedding, words]);
  if (embedding === null) return wordCandidates(store, search, pickWordCandidates(matches, plan.textK));
  return store.recallCandidates({
    userId,
    scope,
    embedding,
    vectorK: plan.vectorK,
    alsoIds: pickWordCandidates(matches, plan.textK),
    filter,
  });
}

/**
 * The word side's pick alone, for a query that could not be embedded: no vector search, and no cosine (0), so the
 * ranker reads every candidate by its words. The store still wants a query vector of the database's dimension to
 * fetch the rows with their neighbours; a basis vector (unit length, so no store divides by zero) serves, and the
 * cosines it gives are dropped.
 */
async function wordCandidates(store: MemoryStore, search: CandidateSearch, ids: string[]): Promise<Candidate[]> {
  const model = await store.getModel();
  if (model === undefined || ids.length === 0) return [];
  const basis = new Float32Array(model.dimension);
  basis[0] = 1;
  const found = await store.recallCandidates({
    userId: search.userId,
    scope: search.scope,
    embedding: basis,
    vectorK: 0,
    alsoIds: ids,
    filter: search.filter,
  });
  return found.map((candidate) => ({ ...candidate, cosine: 0 }));
}
