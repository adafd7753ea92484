import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Authenticator } from '../core/auth.js';
import { createApiKey } from '../core/key-admin.js';
import { createLogger, errorFields, type Logger } from '../core/logger.js';
import type { MemoryService } from '../core/service.js';
import { createApp, type CallerHandler } from '../rest/app.js';
import { DEFAULT_CONSOLE_DIR } from '../rest/console.js';
import { answerClientErrors } from '../rest/client-error.js';
import { gracefulConnections } from '../rest/graceful.js';
import { OAuthServer } from '../core/oauth/server.js';
import { publicUrls } from '../rest/oauth/metadata.js';
import { checkPublicUrl, type ServeConfig } from './config.js';
import { consoleOutput, type Output } from './output.js';
import { openRuntime, type Runtime } from './runtime.js';
import { instrumentRateLimiter } from './instrument.js';
import type { McpHooks } from './mcp.js';
import { createMetrics, type Metrics } from './metrics.js';

export interface RunningServer {
  url: string;
  port: number;
  runtime: Runtime;
  /** The server's metrics, when a metrics token turned them on. */
  metrics: Metrics | undefined;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the model and the database. */
  close(graceMs?: number): Promise<void>;
}

export interface ServeOptions {
  logger?: Logger;
  output?: Output;
  /**
   * Builds the MCP endpoint for this service (mounted at /mcp), when the MCP adapter is present. Its `close`, if
   * any, runs when the server closes: it ends the MCP sessions, whose open event streams would otherwise hold
   * their connections until the grace period runs out.
   */
  mcpHandler?: (service: MemoryService, hooks?: McpHooks) => CallerHandler & { close?: (graceMs?: number) => Promise<void> };
}

/**
 * The authorization server over this runtime's database: tokens for this server's resources only, the consent
 * page checking keys alone (a token cannot approve another client).
 */
function oauthServer(config: NonNullable<ServeConfig['oauth']>, runtime: Runtime, logger: Logger): { server: OAuthServer; publicUrl: URL; registrationToken?: string | undefined } {
  const publicUrl = checkPublicUrl(config.publicUrl);
  const urls = publicUrls(publicUrl);
  const server = new OAuthServer({
    store: runtime.store,
    authenticator: new Authenticator({ store: runtime.store }),
    resources: [urls.mcpResource, urls.rootResource],
    logger,
    ...(config.accessTtlSeconds === undefined ? {} : { accessTtlSeconds: config.accessTtlSeconds }),
    ...(config.clientLimits === undefined ? {} : { clientLimits: config.clientLimits }),
  });
  return { server, publicUrl, registrationToken: config.registrationToken };
}

/** Starts the HTTP server (REST, the console, and /mcp when given): the CLI's `serve`, the server entry and the tests use it. */
export async function startServer(config: ServeConfig, options: ServeOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const output = options.output ?? consoleOutput;
  // Metrics only when a token guards them: nothing is measured, and there is no /metrics, otherwise.
  const metrics: Metrics | undefined = config.metricsToken !== undefined ? createMetrics() : undefined;
  const runtime = await openRuntime({ ...config, waitForEndpoint: true, backfill: true }, logger, metrics);
  try {
    // Only a database that never had a key gets one: after every key was revoked (a leak, say), a restart must not
    // mint and print a fresh unbound key. Revoked keys are listed too, so they count here.
    if (config.apiKey === undefined && (await runtime.store.listKeys()).length === 0) {
      const { key } = await createApiKey(runtime.store, { label: 'first run' });
      output.notice(
        `No API key existed, so one was created. Keep it: it is shown only this once.\n\n  ${key}\n\n` +
          'Paste it into the console at /console, or send it as "Authorization: Bearer <key>". Manage keys with `agent-memory keys`.',
      );
    }
  } catch (error) {
    await runtime.close();
    throw error;
  }

  const mcp = options.mcpHandler?.(runtime.service, metrics ? { onToolCall: (tool, outcome) => metrics.mcpToolCall(tool, outcome) } : {});
  const extraKeys = config.apiKey ? [config.apiKey] : [];
  const oauth = config.oauth ? oauthServer(config.oauth, runtime, logger) : undefined;
  if (oauth) logger.info('oauth authorization server on', { issuer: oauth.publicUrl.origin });
  const limiter = runtime.rateLimiter(config.rateLimit);
  const app = createApp({
    service: runtime.service,
    authenticator: new Authenticator({ store: runtime.store, extraKeys, tokens: oauth?.server }),
    oauth,
    trustProxy: config.trustProxy,
    rateLimiter: metrics ? instrumentRateLimiter(limiter, metrics) : limiter,
    logger,
    consoleDir: DEFAULT_CONSOLE_DIR,
    ...(mcp ? { mcp } : {}),
    ...(metrics && config.metricsToken !== undefined
      ? {
          metrics: {
            token: config.metricsToken,
            render: () => metrics.render(),
            httpRequest: (method: string, route: string, status: number, seconds: number) => metrics.httpRequest(method, route, status, seconds),
          },
        }
      : {}),
  });

  const server = await new Promise<Server>((resolve, reject) => {
    // Without a Host header Node answered a bare 400 itself; the app answers it in the contract's shape instead.
    const s = createServer({ requireHostHeader: false }, app);
    s.once('error', reject);
    s.listen(config.port, config.host, () => {
      s.off('error', reject);
      resolve(s);
    });
  }).catch(async (error: unknown) => {
    await runtime.close();
    throw error;
  });
  // Slow clients must not hold a connection forever; keep-alive a little longer than common proxies.
  server.headersTimeout = 30_000;
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 65_000;

  answerClientErrors(server);
  const connections = gracefulConnections(server);
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  let closing: Promise<void> | undefined;
  const close = (graceMs = 10_000): Promise<void> => {
    closing ??= (async () => {
      const stopped = connections.close();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await mcp?.close?.(graceMs).catch(() => undefined);
      await stopped;
      clearTimeout(timer);
      await oauth?.server.settled();
      await runtime.close();
    })();
    return closing;
  };

  runtime.modelReady.then(
    (info) => logger.info('model ready', { model: info.model, dimension: info.dimension }),
    (error: unknown) => logger.error('model unavailable: store and recall answer 503', errorFields(error)),
  );
  logger.info('listening', { url, db: runtime.location });
  return { url, port, runtime, metrics, close };
}
