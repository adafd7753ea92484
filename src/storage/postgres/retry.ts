/**
 * What PostgreSQL itself says to retry: a transaction rolled back because it lost a serialization conflict
 * (40001 serialization_failure) or was picked as a deadlock's victim (40P01 deadlock_detected). Nothing of it was
 * written, and running it again usually succeeds at once, so the store retries it here, a few times and after a
 * short random pause (so that the transactions that collided do not collide again in step), before answering the
 * client 503 with Retry-After (errors.ts). Every other failure is answered at once.
 */
const RETRYABLE_CONFLICTS = new Set(['40001', '40P01']);

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** The pause before the n-th retry is random in [0, min(maxDelayMs, baseDelayMs x 2^(n-1))] ("full jitter"). */
  baseDelayMs: number;
  maxDelayMs: number;
}

/** 4 tries within at most 10 + 20 + 40 = 70 ms of pauses: a request is never held long for a lost race. */
export const CONFLICT_RETRY: Readonly<RetryPolicy> = Object.freeze({ attempts: 4, baseDelayMs: 10, maxDelayMs: 100 });

export function isRetryableConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_CONFLICTS.has(code);
}

/** The pause before retry number `retry` (1 for the first retry), given a random number in [0, 1). */
export function conflictDelayMs(retry: number, random: number, policy: RetryPolicy = CONFLICT_RETRY): number {
  return Math.floor(random * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1)));
}

/**
 * Runs `work` until it succeeds, fails with anything but a retryable conflict, or has been tried `attempts` times;
 * then its last failure goes to the caller. `work` must be safe to run again after a rollback: one transaction,
 * or statements that each commit whole, with no effect outside the database.
 */
export async function retryConflicts<T>(work: () => Promise<T>, policy: RetryPolicy = CONFLICT_RETRY): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= policy.attempts || !isRetryableConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, conflictDelayMs(attempt, Math.random(), policy)));
    }
  }
}
