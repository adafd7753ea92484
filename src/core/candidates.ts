import { pickWordCandidates } from './ranking/word-candidates.js';
import type { QueryPlan } from './ranking/types.js';
import type { AppScope, Candidate, MemoryFilter, MemoryStore } from './store.js';

export interface CandidateSearch {
  userId: string;
  scope: AppScope;
  plan: QueryPlan;
  /** The query's embedding, possibly still being computed: the word side does not wait for it. */
  embedding: Promise<Float32Array>;
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
  return store.recallCandidates({
    userId,
    scope,
    embedding,
    vectorK: plan.vectorK,
    alsoIds: pickWordCandidates(matches, plan.textK),
    filter,
  });
}
