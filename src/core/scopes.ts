import { MemoryError } from './errors.js';
import type { Caller } from './types.js';

/**
 * What an OAuth access token may do. An API key may do everything; a token carries the scopes its person allowed
 * on the consent page: `memory:read` (recall, list, get) or `memory:write` (store, update, forget; reading too).
 */
export const SCOPES = ['memory:read', 'memory:write'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Whether the caller may act with `scope`: a key (no scopes) always; a token when it holds it (write implies read). */
export function hasScope(caller: Caller, scope: Scope): boolean {
  if (caller.scopes === undefined) return true;
  return caller.scopes.includes(scope) || (scope === 'memory:read' && caller.scopes.includes('memory:write'));
}

/** 403 `forbidden`, carrying the scope that was missing so that HTTP can answer the `insufficient_scope` challenge. */
export class ScopeError extends MemoryError {
  readonly scope: Scope;

  constructor(scope: Scope) {
    super('forbidden', `This access token lacks the "${scope}" scope; authorize the client again and allow it.`);
    this.scope = scope;
  }
}

export function requireScope(caller: Caller, scope: Scope): void {
  if (!hasScope(caller, scope)) throw new ScopeError(scope);
}
