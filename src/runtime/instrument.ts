/**
 * Wraps the runtime's parts so that metrics.ts sees them work, without the core knowing about metrics: the service
 * (which operation is running), the store (storage time, database errors), the rate limiter (refusals) and the
 * embedder (queue wait and model time, through the pool's observer). The operation in progress travels with the
 * async context (AsyncLocalStorage), so a store call or an embedding is counted under the operation that made it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { MemoryError } from '../core/errors.js';
import type { RateLimiter } from '../core/rate-limit.js';
import type { MemoryService } from '../core/service.js';
import type { MemoryStore } from '../core/store.js';
import type { EmbedKind } from '../core/embedder.js';
import type { EmbedPoolObserver } from '../embeddings/embed-pool.js';
import type { Metrics } from './metrics.js';

/** The service's operations that are measured; anything else (imports, housekeeping) counts as "other". */
const OPERATIONS = ['store', 'recall', 'get', 'update', 'list', 'listUsers', 'forget', 'forgetMany', 'forgetAll'] as const;

interface OperationContext {
  operation: string;
  /** Seconds spent in store calls so far; observed once, when the operation ends. */
  storageSeconds: number;
}

const context = new AsyncLocalStorage<OperationContext>();

/** The service with each operation run in a context of its own, its storage time observed when it settles. */
export function instrumentService(service: MemoryService, metrics: Metrics): MemoryService {
  const measured = new Set<string>(OPERATIONS);
  return new Proxy(service, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !measured.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const ctx: OperationContext = { operation: property, storageSeconds: 0 };
        const settle = () => metrics.phase(property, 'storage', ctx.storageSeconds);
        return context.run(ctx, () => {
          const result = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          result.then(settle, settle);
          return result;
        });
      };
    },
  });
}

/** The store with every call timed (into the running operation) and every database error counted by kind. */
export function instrumentStore(store: MemoryStore, metrics: Metrics): MemoryStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const done = () => {
          const ctx = context.getStore();
          if (ctx) ctx.storageSeconds += (performance.now() - started) / 1000;
        };
        const failed = (error: unknown) => {
          done();
          const kind = databaseErrorKind(error);
          if (kind !== undefined) metrics.databaseError(kind);
        };
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          failed(error);
          throw error;
        }
        if (result instanceof Promise) {
          result.then(done, failed);
        } else {
          done();
        }
        return result;
      };
    },
  });
}

/** The limiter, counting its refusals. */
export function instrumentRateLimiter(limiter: RateLimiter, metrics: Metrics): RateLimiter {
  return {
    async take(keyId) {
      const decision = await limiter.take(keyId);
      if (decision && !decision.allowed) metrics.rateLimitRefusal();
      return decision;
    },
  };
}

/** The embedding pool's observer: each call's queue wait and model time, under the operation that asked for it. */
export function embedObserver(metrics: Metrics): EmbedPoolObserver {
  return {
    begin(_kind: EmbedKind) {
      const operation = context.getStore()?.operation ?? 'other';
      return (queueSeconds, modelSeconds) => {
        metrics.phase(operation, 'queue_wait', queueSeconds);
        metrics.phase(operation, 'model', modelSeconds);
      };
    },
  };
}

/**
 * A database error's kind, from a small fixed set: a SQLite result code (sqlite_busy), a PostgreSQL SQLSTATE class
 * (sqlstate_08: connection), a network error code (econnrefused), `unavailable`, or `other`. Contract errors that
 * the store raises on purpose (not found, duplicate, conflicts) are answers, not database errors: undefined.
 */
export function databaseErrorKind(error: unknown): string | undefined {
  if (error instanceof MemoryError && error.code !== 'unavailable' && error.code !== 'server_error') return undefined;
  let current: unknown = error;
  for (let depth = 0; current !== null && typeof current === 'object' && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (/^SQLITE_[A-Z_]+$/.test(code)) return code.toLowerCase();
      // Before SQLSTATEs: EPIPE has five characters too (no SQLSTATE class starts with E).
      if (/^E[A-Z]{2,20}$/.test(code)) return code.toLowerCase();
      if (/^[0-9A-Z]{5}$/.test(code)) return `sqlstate_${code.slice(0, 2).toLowerCase()}`;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return error instanceof MemoryError && error.code === 'unavailable' ? 'unavailable' : 'other';
}
