import { requireScope, type Scope } from '../core/scopes.js';
import type { Caller } from '../core/types.js';

/** The tools that only read; every other tool (store, update, forget, and any name not known) needs `memory:write`. */
const READING_TOOLS = new Set(['recall_memories', 'list_memories', 'get_memory']);

export function toolScope(name: unknown): Scope {
  return typeof name === 'string' && READING_TOOLS.has(name) ? 'memory:read' : 'memory:write';
}

/**
 * Refuses a POST whose tool calls need a scope the caller's OAuth token lacks (core ScopeError: HTTP answers 403
 * with the `insufficient_scope` challenge, as the MCP authorization spec asks), before any of them runs. Every other
 * message (initialize, tools/list) needs only a valid token.
 */
export function requireToolScopes(caller: Caller, body: unknown): void {
  if (caller.scopes === undefined) return;
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    if (method === 'tools/call') requireScope(caller, toolScope(params?.name));
  }
}
