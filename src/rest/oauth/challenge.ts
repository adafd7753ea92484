import type { RequestHandler } from 'express';
import type { MemoryError } from '../../core/errors.js';
import { ScopeError, SCOPES } from '../../core/scopes.js';
import { locals } from '../locals.js';

const quoted = (text: string) => `"${text.replace(/["\\]/g, '')}"`;

/**
 * The Bearer challenge of a protected resource (RFC 6750 3, RFC 9728 5.1, MCP authorization): where its metadata
 * is, which scopes to ask for, and, when a token was sent, why it failed (`invalid_token`, `insufficient_scope`).
 * The error handler puts it on 401 and 403 answers of the routes this middleware runs on.
 */
export function bearerChallenge(resourceMetadataUrl: string): RequestHandler {
  return function bearerChallengeMiddleware(req, res, next) {
    const sentToken = /^Bearer\s+\S/i.test(req.get('Authorization') ?? '');
    locals(res).challenge = (error: MemoryError): string | undefined => {
      const parts = [`resource_metadata=${quoted(resourceMetadataUrl)}`];
      if (error instanceof ScopeError) {
        parts.unshift('error="insufficient_scope"');
        parts.push(`scope=${quoted(error.scope)}`, `error_description=${quoted(error.message)}`);
      } else if (error.code === 'auth_error') {
        if (sentToken) parts.unshift('error="invalid_token"', `error_description=${quoted(error.message)}`);
        parts.push(`scope=${quoted(SCOPES.join(' '))}`);
      } else {
        return undefined;
      }
      return `Bearer ${parts.join(', ')}`;
    };
    next();
  };
}
