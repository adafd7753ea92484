import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';
import { createLogger, errorFields } from '../core/logger.js';
import type { MemoryService } from '../core/service.js';
import { LOCAL_CALLER } from '../core/types.js';
import { loopbackHostnames } from '../mcp/host-guard.js';
import { createMcpHttpHandler, type McpHttpHandler, type McpSessionMode } from '../mcp/http.js';
import { serveStdio } from '../mcp/stdio.js';
import type { ToolDefaults } from '../mcp/tools.js';
import type { ToolCallListener } from '../mcp/tools.js';
import type { RuntimeConfig, ServeConfig } from './config.js';
import { openRuntime, refusedAtStart } from './runtime.js';

// What the CLI needs to read the MCP settings, without depending on the MCP adapter itself.
export { MCP_SESSION_MODES, type McpSessionMode } from '../mcp/http.js';
export type { ToolDefaults } from '../mcp/tools.js';

export interface McpConfig extends RuntimeConfig {
  defaults: ToolDefaults;
}

// Same depth under src/ and dist/: runtime/ -> the package root.
const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/**
 * `agent-memory mcp`: the memory tools over stdio for one local agent, acting as a trusted local caller. Stdout
 * carries protocol messages only; logs go to stderr. Returns when stdin ends or on SIGTERM/SIGINT, after calls in
 * flight have finished, with the model worker and the database closed.
 */
export async function runMcpStdio(config: McpConfig, io: { stdin?: Readable; stdout?: Writable } = {}): Promise<number> {
  const logger = createLogger({ level: config.logLevel });
  // One agent's calls come one at a time: a single worker (one copy of the model, ~120 MiB) unless told otherwise.
  const runtime = await openRuntime({ ...config, embedWorkers: config.embedWorkers ?? 1, waitForEndpoint: true, backfill: true }, logger);
  runtime.modelReady.then(
    (info) => logger.info('model ready', { model: info.model, dimension: info.dimension }),
    (error: unknown) => logger.error('model unavailable: store and recall answer unavailable', errorFields(error)),
  );
  const server = { service: runtime.service, caller: LOCAL_CALLER, defaults: config.defaults, logger, version: VERSION };
  let session;
  try {
    session = await serveStdio(server, { logger, ...io });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const onSignal = (signal: NodeJS.Signals) => void session.shutdown(signal);
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  logger.info('mcp server ready on stdio', {
    db: config.dbPath,
    userId: config.defaults.userId ?? null,
    appId: config.defaults.appId ?? null,
  });
  // A refusal by the model's endpoint (401, 403) ends the session: the agent's host shows the exit, not 503s.
  let refused = false;
  void refusedAtStart(runtime.modelReady).then((error) => {
    refused = true;
    logger.error('stopping: the embedding endpoint refused this service', { error: error.message });
    void session.shutdown('SIGTERM');
  });
  try {
    await session.closed;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await runtime.close();
  }
  return refused ? 1 : 0;
}

/**
 * How /mcp keeps sessions unless told: on PostgreSQL the node is presumably one of several behind a load balancer,
 * where a session held in one node's memory would need sticky routing: stateless there; stateful on SQLite (one
 * node), which keeps the server-to-client event stream.
 */
export function defaultSessionMode(storage: Pick<RuntimeConfig, 'databaseUrl'>): McpSessionMode {
  return storage.databaseUrl !== undefined ? 'stateless' : 'stateful';
}

/** What the server tells the MCP endpoint to report (metrics). */
export interface McpHooks {
  onToolCall?: ToolCallListener | undefined;
}

/**
 * The DNS-rebinding guard's names on loopback; behind a TLS proxy (`--oauth --public-url`) requests name the public
 * host, which is then allowed too.
 */
function allowedHostnames(config: ServeConfig): string[] | undefined {
  const loopback = loopbackHostnames(config.host);
  if (!loopback || !config.oauth) return loopback;
  return [...loopback, new URL(config.oauth.publicUrl).hostname];
}

/**
 * The /mcp endpoint for `serve`: sessions per API key (or none: see defaultSessionMode), DNS-rebinding guard when
 * listening on loopback.
 */
export function mcpHttpHandler(
  config: ServeConfig,
  defaults: ToolDefaults,
  sessions: McpSessionMode = defaultSessionMode(config),
): (service: MemoryService, hooks?: McpHooks) => McpHttpHandler {
  return (service, hooks) => {
    const logger = createLogger({ level: config.logLevel });
    logger.info('mcp over streamable http at /mcp', { sessions });
    return createMcpHttpHandler({
      service,
      sessions,
      defaults,
      logger,
      version: VERSION,
      allowedHostnames: allowedHostnames(config),
      onToolCall: hooks?.onToolCall,
    });
  };
}
