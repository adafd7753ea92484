import type { MemoryClient } from '../client/client.js';
import { MemoryApiError, MemoryClientError, MemoryValidationError } from '../client/errors.js';
import { MemoryError, type ErrorDetail } from '../core/errors.js';

/**
 * What the tools and the middleware need of a memory backend: the methods of `MemoryClient` they call. Narrow on
 * purpose, so that anything with these methods serves: a `MemoryClient`, or `serviceBackend(service)` in process.
 */
export type MemoryBackend = Pick<MemoryClient, 'store' | 'recall' | 'recallRaw' | 'list' | 'get' | 'update' | 'forget' | 'forgetMany'>;

/** Whose memories a tool set or a middleware reads and writes: fixed by the program, never chosen by the model. */
export interface MemoryScope {
  userId: string;
  /** The app's slug (created on first store). Omitted: the client's `appId` option, else the API key's app, else "default". */
  appId?: string | undefined;
}

/** A failure as a tool result the model can read and act on, in the contract's error shape. */
export interface ToolErrorResult {
  error: { code: string; message: string; details?: ErrorDetail[] };
}

/**
 * Any failure as a result, never a throw: a thrown error would end the agent's turn, while a result lets the
 * model read what went wrong (a bad argument, an unknown id, the server out of reach) and go on.
 */
export function toolErrorResult(error: unknown): ToolErrorResult {
  // The in-process service's errors (serviceBackend) carry the same codes as the client's.
  if (error instanceof MemoryError) {
    const details = error.details ?? [];
    return { error: { code: error.code, message: error.message, ...(details.length > 0 ? { details } : {}) } };
  }
  if (error instanceof MemoryClientError) {
    const details = error instanceof MemoryValidationError || error instanceof MemoryApiError ? error.details : [];
    return { error: { code: error.code, message: error.message, ...(details.length > 0 ? { details } : {}) } };
  }
  return { error: { code: 'server_error', message: error instanceof Error ? error.message : String(error) } };
}

/** Runs a tool's work, turning any failure into a ToolErrorResult. */
export async function asToolResult<T>(work: () => Promise<T>): Promise<T | ToolErrorResult> {
  try {
    return await work();
  } catch (error) {
    return toolErrorResult(error);
  }
}

/**
 * True when memory `id` belongs to the scope's user (and app): update and forget take ids from the model, and an
 * id of someone else's memory (one the key could reach) must be treated as unknown, not changed.
 */
export async function inScope(client: MemoryBackend, scope: MemoryScope, id: string): Promise<boolean> {
  try {
    const memory = await client.get(id);
    return memory.userId === scope.userId && (scope.appId === undefined || memory.appId === scope.appId);
  } catch (error) {
    // The client's NotFoundError, or the service's MemoryError: both say not_found.
    if ((error instanceof MemoryClientError || error instanceof MemoryError) && error.code === 'not_found') return false;
    throw error;
  }
}
