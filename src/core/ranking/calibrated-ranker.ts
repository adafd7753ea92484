import type { Candidate } from '../store.js';
import type { HybridRanker } from './hybrid-ranker.js';
import type { QueryPlan, Ranker, ScoredCandidate } from './types.js';

/**
 * Where the score map in use comes from: 'builtin' (shipped with the package, or a file beside the model), 'fitted'
 * (fitted by the service for this model and stored in the database: `agent-memory calibrate`), 'pending' (being
 * fitted: a conservative map meanwhile), 'failed' (the fit failed: the conservative map stays; the log says why).
 */
export type CalibrationStatus = 'builtin' | 'fitted' | 'pending' | 'failed';

/**
 * The ranker recall uses, whose calibration can be replaced while the service runs (a background calibration that
 * finishes): each recall ranks with the ranker current when it starts, and says which calibration scored it
 * (explain's `calibration`).
 */
export class CalibratedRanker implements Ranker {
  #ranker: HybridRanker;
  #status: CalibrationStatus;

  constructor(ranker: HybridRanker, status: CalibrationStatus) {
    this.#ranker = ranker;
    this.#status = status;
  }

  get status(): CalibrationStatus {
    return this.#status;
  }

  get current(): HybridRanker {
    return this.#ranker;
  }

  calibrationStatus(): CalibrationStatus {
    return this.#status;
  }

  use(ranker: HybridRanker, status: CalibrationStatus): void {
    this.#ranker = ranker;
    this.#status = status;
  }

  /** Only the status changes (a failed fit keeps the conservative map). */
  mark(status: CalibrationStatus): void {
    this.#status = status;
  }

  plan(query: string, limit: number, message?: string): QueryPlan {
    return this.#ranker.plan(query, limit, message);
  }

  parts(query: string): string[] {
    return this.#ranker.parts(query);
  }

  corrected(parts: readonly string[], candidates: readonly Candidate[]): (string | undefined)[] | undefined {
    return this.#ranker.corrected(parts, candidates);
  }

  asUser(parts: readonly string[]): (string | undefined)[] | undefined {
    return this.#ranker.asUser(parts);
  }

  fuse(parts: readonly string[], rankings: readonly (readonly ScoredCandidate[])[]): ScoredCandidate[] {
    return this.#ranker.fuse(parts, rankings);
  }

  rank(query: string, plan: QueryPlan, candidates: readonly Candidate[]): ScoredCandidate[] {
    const status = this.#status;
    const scored = this.#ranker.rank(query, plan, candidates);
    for (const s of scored) if (s.parts) s.parts.calibration = status;
    return scored;
  }
}
