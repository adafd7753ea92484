import type { RequestHandler } from 'express';
import { requireScope } from '../../core/scopes.js';
import { callerOf } from '../locals.js';

/** The POST routes under /v1 that only read (a query in a body); every other non-GET route writes. */
const READING_POSTS = new Set(['/memories/list', '/memories/recall']);

/**
 * An OAuth token's scope on /v1: `memory:read` for reads, `memory:write` for changes; 403 `forbidden` (with the
 * `insufficient_scope` challenge) otherwise. API keys hold every scope. Mounted at /v1, after authentication.
 */
export function requireRouteScope(): RequestHandler {
  return function requireRouteScopeMiddleware(req, res, next) {
    const reads = req.method === 'GET' || req.method === 'HEAD' || (req.method === 'POST' && READING_POSTS.has(req.path.replace(/\/+$/, '')));
    requireScope(callerOf(res), reads ? 'memory:read' : 'memory:write');
    next();
  };
}
