/**
 * A token bucket per API key: `perMinute` tokens refill evenly over a minute, bursts up to `burst`. Kept in
 * process: on one SQLite node that is the whole service.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset). */
  resetSeconds: number;
  /** Seconds until one token is available, when refused (Retry-After). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** null when rate limiting is off. */
  take(keyId: string): Promise<RateDecision | null>;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class TokenBucketRateLimiter implements RateLimiter {
  readonly #perMinute: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: { perMinute: number; burst?: number; now?: () => number }) {
    this.#perMinute = options.perMinute;
    this.#burst = Math.max(1, options.burst ?? options.perMinute);
    this.#now = options.now ?? Date.now;
  }

  take(keyId: string): Promise<RateDecision | null> {
    if (this.#perMinute <= 0) return Promise.resolve(null);
    const now = this.#now();
    const perMs = this.#perMinute / 60_000;
    const bucket = this.#buckets.get(keyId) ?? { tokens: this.#burst, updatedAt: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.updatedAt) * perMs);
    bucket.updatedAt = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.#buckets.set(keyId, bucket);
    if (this.#buckets.size > 10_000) this.#evictFull(now, perMs);
    return Promise.resolve({
      allowed,
      limit: this.#burst,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((this.#burst - bucket.tokens) / perMs / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)),
    });
  }

  /** Buckets that have refilled completely carry no state worth keeping. */
  #evictFull(now: number, perMs: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * perMs >= this.#burst) this.#buckets.delete(key);
    }
  }
}

/**
 * Takes `count` tokens for one request that does the work of several (a JSON-RPC batch of tool calls), one at a
 * time through the limiter's own `take`, so that it holds on every backend; stops at the first refusal, which is
 * the decision returned. Null when limiting is off.
 */
export async function takeTokens(limiter: RateLimiter, keyId: string, count: number): Promise<RateDecision | null> {
  let decision: RateDecision | null = null;
  for (let i = 0; i < count; i++) {
    decision = await limiter.take(keyId);
    if (!decision?.allowed) break;
  }
  return decision;
}
