import type { RequestHandler } from 'express';
import { OAUTH_PATHS } from './metadata.js';

/**
 * CORS on the OAuth endpoints that a browser-based MCP client (the Inspector's web UI, a web IDE) calls with fetch:
 * the metadata documents (GET), registration, token and revocation (POST). Any origin, no credentials: these take
 * no cookie, so an origin gains nothing a client outside a browser does not already have (the SDK's handlers answer
 * `*` too). The authorize and consent pages are navigations a person makes, with a cookie: no CORS there, and none
 * on /v1 and /mcp (browsers are not clients of the API).
 */
const METHODS = new Map<string, string>([
  ['/.well-known/oauth-authorization-server', 'GET'],
  ['/.well-known/oauth-protected-resource', 'GET'],
  ['/.well-known/oauth-protected-resource/mcp', 'GET'],
  [OAUTH_PATHS.register, 'POST'],
  [OAUTH_PATHS.token, 'POST'],
  [OAUTH_PATHS.revoke, 'POST'],
]);

const ALLOWED_HEADERS = 'Authorization, Content-Type, MCP-Protocol-Version';

export function oauthCors(): RequestHandler {
  return function oauthCorsMiddleware(req, res, next) {
    const methods = METHODS.get(req.path);
    if (methods === undefined) {
      next();
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method !== 'OPTIONS') {
      next();
      return;
    }
    // A preflight: what the endpoint takes, cached ten minutes. An OPTIONS that is not a preflight gets the same.
    res.setHeader('Access-Control-Allow-Methods', `${methods}, OPTIONS`);
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    res.setHeader('Allow', `${methods}, OPTIONS`);
    res.status(204).end();
  };
}
