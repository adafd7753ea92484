import { Chore, pruneInBatches } from '../../core/housekeeping.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { RateDecision, RateLimiter } from '../../core/rate-limit.js';
import { query, type Pool } from './connection.js';
import { translatePgError } from './errors.js';
import { retryConflicts } from './retry.js';

export interface PgRateLimiterOptions {
  perMinute: number;
  burst?: number;
  /** Milliseconds since the epoch; default: the database's clock, which every node shares. */
  now?: () => number;
  /** For the failures of pruning idle buckets; silent by default. */
  logger?: Logger;
}

interface BucketRow {
  tokens: number;
  allowed: boolean;
}

/**
 * The token bucket of core/rate-limit.ts with its buckets in PostgreSQL (table rate_buckets), so that a key's
 * limit holds across all nodes instead of multiplying with them. Each request is one atomic upsert: the row lock
 * of INSERT ... ON CONFLICT DO UPDATE serialises concurrent requests for a key, and the refill and the take are
 * computed from the row's previous values inside that one statement, so no two nodes can spend the same token.
 * Time comes from the database's clock by default, so clock skew between nodes cannot mint tokens.
 */
export class PgRateLimiter implements RateLimiter {
  readonly #pool: Pool;
  readonly #perMinute: number;
  readonly #burst: number;
  readonly #now: (() => number) | undefined;
  readonly #pruning: Chore;

  constructor(pool: Pool, options: PgRateLimiterOptions) {
    this.#pool = pool;
    this.#perMinute = options.perMinute;
    this.#burst = Math.max(1, options.burst ?? options.perMinute);
    this.#now = options.now;
    this.#pruning = new Chore(() => pruneInBatches((limit) => this.prune(limit)), {
      name: 'rate bucket pruning',
      logger: options.logger ?? silentLogger,
      ...(options.now ? { now: options.now } : {}),
    });
  }

  /**
   * Deletes at most `limit` buckets idle long enough to have refilled completely: such a bucket says nothing that a
   * missing one does not (the next request starts a full one), so the table keeps only keys in recent use. Its own
   * statement, bounded, skipping rows that a request holds; a bucket touched meanwhile no longer matches and stays.
   */
  async prune(limit: number): Promise<number> {
    if (this.#perMinute <= 0) return 0;
    const refillSeconds = this.#burst / (this.#perMinute / 60);
    const now = this.#now === undefined ? null : new Date(this.#now()).toISOString();
    try {
      const result = await query(
        this.#pool,
        `DELETE FROM rate_buckets b
         USING (
           SELECT key_id FROM rate_buckets
           WHERE updated_at < COALESCE($1::timestamptz, statement_timestamp()) - make_interval(secs => $2::float8)
           LIMIT $3 FOR UPDATE SKIP LOCKED
         ) idle
         WHERE b.key_id = idle.key_id`,
        [now, refillSeconds, limit],
      );
      return result.rowCount ?? 0;
    } catch (error) {
      translatePgError(error);
    }
  }

  async take(keyId: string): Promise<RateDecision | null> {
    if (this.#perMinute <= 0) return null;
    const perSecond = this.#perMinute / 60;
    const now = this.#now === undefined ? null : new Date(this.#now()).toISOString();
    let row: BucketRow | undefined;
    try {
      // The bucket refilled since its last use, capped at the burst (excluded.updated_at is this request's time;
      // a clock that went back refills nothing). In DO UPDATE, b.* are the values before this request.
      const refilled = `LEAST($2::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM (excluded.updated_at - b.updated_at))::float8) * $3::float8)`;
      const result = await retryConflicts(() => query<BucketRow>(
        this.#pool,
        `INSERT INTO rate_buckets AS b (key_id, tokens, allowed, updated_at)
         VALUES ($1, $2::float8 - 1, true, COALESCE($4::timestamptz, statement_timestamp()))
         ON CONFLICT (key_id) DO UPDATE SET
           tokens = ${refilled} - CASE WHEN ${refilled} >= 1 THEN 1 ELSE 0 END,
           allowed = ${refilled} >= 1,
           updated_at = GREATEST(b.updated_at, excluded.updated_at)
         RETURNING tokens, allowed`,
        [keyId, this.#burst, perSecond, now],
      ));
      row = result.rows[0];
    } catch (error) {
      translatePgError(error);
    }
    if (!row) throw new Error('The rate limit upsert returned no row.');
    this.#pruning.poke();
    const perMs = this.#perMinute / 60_000;
    return {
      allowed: row.allowed,
      limit: this.#burst,
      remaining: Math.floor(row.tokens),
      resetSeconds: Math.ceil((this.#burst - row.tokens) / perMs / 1000),
      retryAfterSeconds: row.allowed ? 0 : Math.max(1, Math.ceil((1 - row.tokens) / perMs / 1000)),
    };
  }
}
