import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Authenticator } from '../core/auth.js';
import type { Logger } from '../core/logger.js';
import type { RateLimiter } from '../core/rate-limit.js';
import type { MemoryService } from '../core/service.js';
import type { Caller } from '../core/types.js';
import type { OAuthServer } from '../core/oauth/server.js';
import { consoleRouter } from './console.js';
import { bearerChallenge } from './oauth/challenge.js';
import { publicUrls, resourceMetadataUrl } from './oauth/metadata.js';
import { oauthCors } from './oauth/cors.js';
import { oauthRouter } from './oauth/router.js';
import { requireRouteScope } from './middleware/scope.js';
import { callerOf } from './locals.js';
import { accessLog } from './middleware/access-log.js';
import { authenticate } from './middleware/authenticate.js';
import { errorHandler, notFound, refuseHostless, refuseOptions } from './middleware/errors.js';
import { mcpBody } from './middleware/mcp-body.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestId } from './middleware/request-id.js';
import { mountPoint, requestMetrics } from './middleware/request-metrics.js';
import { metricsRouter, type MetricsEndpoint } from './routes/metrics.js';
import { healthRouter } from './routes/health.js';
import { memoriesRouter } from './routes/memories.js';
import { usersRouter } from './routes/users.js';
import { openApiRouter } from './routes/openapi.js';

/**
 * An endpoint served as the caller the key check found: the MCP streamable HTTP endpoint (src/mcp/http.ts), which
 * this app mounts without depending on the MCP adapter (and which depends on nothing of REST).
 */
export type CallerHandler = (req: Request, res: Response, caller: Caller) => Promise<void>;

export interface AppDeps {
  service: MemoryService;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  logger: Logger;
  /** The MCP streamable HTTP endpoint, mounted at /mcp behind the same key check and rate limit. */
  mcp?: CallerHandler | undefined;
  /** The web console's built files, served at /console; no console when absent. */
  consoleDir?: string;
  /** Prometheus metrics at /metrics (behind their own token) and request timings; no /metrics when absent. */
  metrics?: MetricsEndpoint | undefined;
  /** The OAuth authorization server (`serve --oauth`): its endpoints, and the Bearer challenge on /v1 and /mcp. */
  oauth?: OAuthDeps | undefined;
  /** Reverse proxies whose X-Forwarded-For names the client (runtime/trust-proxy.ts); none: the peer is the client. */
  trustProxy?: readonly string[] | undefined;
}

export interface OAuthDeps {
  server: OAuthServer;
  publicUrl: URL;
  /** Closed registration: /oauth/register needs this as a Bearer token (RFC 7591 initial access token). */
  registrationToken?: string | undefined;
}

/** The HTTP application: no side effects at import, everything it uses is passed in. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Express 5's default "simple" parser: a repeated parameter becomes an array, which validation rejects.
  app.set('query parser', 'simple');
  // req.ip, which every rate limit keyed by address reads: the peer, or behind a trusted proxy the client it names.
  app.set('trust proxy', deps.trustProxy && deps.trustProxy.length > 0 ? [...deps.trustProxy] : false);

  app.use(requestId());
  app.use(accessLog(deps.logger));
  const { metrics } = deps;
  if (metrics) app.use(requestMetrics((...args) => metrics.httpRequest(...args)));
  app.use(refuseHostless());
  // The OAuth endpoints' CORS answers their preflights; every other OPTIONS is the contract's 404.
  if (deps.oauth) app.use(oauthCors());
  app.use(refuseOptions());
  app.use(healthRouter(deps.service));
  if (deps.consoleDir !== undefined) app.use('/console', mountPoint(), consoleRouter(deps.consoleDir));
  app.use(openApiRouter());
  if (metrics) app.use(metricsRouter(metrics, deps.rateLimiter));

  const guarded = [authenticate(deps.authenticator, deps.rateLimiter), rateLimit(deps.rateLimiter)];
  const challenge = { v1: [] as RequestHandler[], mcp: [] as RequestHandler[] };
  if (deps.oauth) {
    const urls = publicUrls(deps.oauth.publicUrl);
    app.use(oauthRouter({ server: deps.oauth.server, urls, rateLimiter: deps.rateLimiter, secure: deps.oauth.publicUrl.protocol === 'https:', registrationToken: deps.oauth.registrationToken }));
    challenge.v1.push(bearerChallenge(resourceMetadataUrl(urls, 'root')));
    challenge.mcp.push(bearerChallenge(resourceMetadataUrl(urls, 'mcp')));
  }
  app.use('/v1', ...challenge.v1, ...guarded, requireRouteScope());
  app.use('/v1/memories', mountPoint(), memoriesRouter(deps.service));
  app.use('/v1/users', mountPoint(), usersRouter(deps.service));
  const { mcp } = deps;
  if (mcp) app.all('/mcp', ...challenge.mcp, ...guarded, mcpBody(deps.rateLimiter), (req, res, next) => mcp(req, res, callerOf(res)).catch(next));

  app.use(notFound());
  app.use(errorHandler(deps.logger));
  return app;
}
