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

/**
 * The service's operations that are measured; anything else (imports, housekeeping) counts as "other". Checked
 * against the class: a name that is not a method of MemoryService does not compile.
 */
const OPERATIONS = [
  'store',
  'putByKey',
  'getByKey',
  'forgetByKey',
  'recall',
  'get',
  'update',
  'list',
  'listUsers',
  'forget',
  'forgetMany',
  'forgetAll',
] as const satisfies ReadonlyArray<keyof MemoryService>;

interface OperationContext {
  operation: string;
  /** Seconds spent in store calls so far; observed once, when the operation ends. */
  storageSeconds: number;
}

const context = new AsyncLocalStorage<OperationContext>();

/**
 * The same service, its measured operations each run in a context of its own and their storage time observed when
 * they settle. No Proxy: the measured operations become the instance's own properties, each calling the class's
 * method on the instance itself, so every method (measured or not, present or added later) runs with the real
 * MemoryService as `this` and its private members (#upsert, #keySlot, ...) work. A Proxy handed back unmeasured
 * methods unbound, and each one reaching a private member failed ("Receiver must be an instance of class").
 */
export function instrumentService(service: MemoryService, metrics: Metrics): MemoryService {
  for (const operation of OPERATIONS) {
    const method = (service[operation] as (...args: unknown[]) => Promise<unknown>).bind(service);
    const measured = (...args: unknown[]): Promise<unknown> => {
      const ctx: OperationContext = { operation, storageSeconds: 0 };
      const settle = () => metrics.phase(operation, 'storage', ctx.storageSeconds);
      return context.run(ctx, () => {
        const result = method(...args);
        result.then(settle, settle);
        return result;
      });
    };
    Object.defineProperty(service, operation, { value: measured, configurable: true, writable: false, enumerable: false });
  }
  return service;
}

/** The store with every call timed (into the running operation) and every database error counted by kind. */
export function instrumentStore(store: MemoryStore, metrics: Metrics): MemoryStore {
  return new Proxy(store, {
    // Every property is read on the store itself (getters such as `pool` read private fields) and every function
    // is applied to it, so nothing the store has runs with the Proxy as `this`.
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
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
