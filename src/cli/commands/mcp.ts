import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';
import { createLogger, errorFields } from '../../core/logger.js';
import { appIdSchema, userIdSchema } from '../../core/schemas.js';
import type { MemoryService } from '../../core/service.js';
import { LOCAL_CALLER } from '../../core/types.js';
import { loopbackHostnames } from '../../mcp/host-guard.js';
import { createMcpHttpHandler, MCP_SESSION_MODES, type McpHttpHandler, type McpSessionMode } from '../../mcp/http.js';
import { createMcpServer } from '../../mcp/server.js';
import { serveStdio } from '../../mcp/stdio.js';
import type { ToolDefaults } from '../../mcp/tools.js';
import { ConfigError, runtimeConfig, type RuntimeConfig, type ServeConfig } from '../config.js';
import { openRuntime } from '../runtime.js';

type Env = Record<string, string | undefined>;
type Flags = Record<string, string | boolean | undefined>;

export interface McpConfig extends RuntimeConfig {
  defaults: ToolDefaults;
}

// Same depth under src/ and dist/: cli/commands/ -> the package root.
const VERSION = (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;

function setting(flag: string | boolean | undefined, env: string | undefined): string | undefined {
  if (typeof flag === 'string' && flag.length > 0) return flag;
  return env !== undefined && env.length > 0 ? env : undefined;
}

/** The user and app that tool calls fall back to: `--user-id` / `--app-id`, else MEMORY_USER_ID / MEMORY_APP_ID. */
export function mcpDefaults(flags: Flags, env: Env): ToolDefaults {
  const userId = setting(flags['user-id'], env.MEMORY_USER_ID);
  const appId = setting(flags['app-id'], env.MEMORY_APP_ID);
  // Checked at start, with the API's own rules, rather than failing every later call.
  if (userId !== undefined) {
    const parsed = userIdSchema.safeParse(userId);
    if (!parsed.success) throw new ConfigError(`--user-id: ${parsed.error.issues[0]?.message ?? 'invalid user id.'}`);
  }
  if (appId !== undefined) {
    const parsed = appIdSchema.safeParse(appId);
    if (!parsed.success) throw new ConfigError(`--app-id: ${parsed.error.issues[0]?.message ?? 'invalid app id.'}`);
  }
  return { userId, appId };
}

export function mcpConfig(flags: Flags, env: Env): McpConfig {
  return { ...runtimeConfig(flags, env), defaults: mcpDefaults(flags, env) };
}

/**
 * `agent-memory mcp`: the memory tools over stdio for one local agent, acting as a trusted local caller. Stdout
 * carries protocol messages only; logs go to stderr. Returns when stdin ends or on SIGTERM/SIGINT, after calls in
 * flight have finished, with the model worker and the database closed.
 */
export async function mcpCommand(config: McpConfig, io: { stdin?: Readable; stdout?: Writable } = {}): Promise<number> {
  const logger = createLogger({ level: config.logLevel });
  // One agent's calls come one at a time: a single worker (one copy of the model, ~120 MiB) unless told otherwise.
  const runtime = await openRuntime({ ...config, embedWorkers: config.embedWorkers ?? 1 }, logger);
  runtime.modelReady.then(
    (info) => logger.info('model ready', { model: info.model, dimension: info.dimension }),
    (error: unknown) => logger.error('model unavailable: store and recall answer unavailable', errorFields(error)),
  );
  const server = createMcpServer({
    service: runtime.service,
    caller: LOCAL_CALLER,
    defaults: config.defaults,
    logger,
    version: VERSION,
  });
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
  try {
    await session.closed;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await runtime.close();
  }
  return 0;
}

/**
 * How /mcp keeps sessions: `--mcp-sessions`, else MEMORY_MCP_SESSIONS, else by backend. On PostgreSQL the node is
 * presumably one of several behind a load balancer, where a session held in one node's memory would need sticky
 * routing: stateless there; stateful on SQLite (one node), which keeps the server-to-client event stream.
 */
export function mcpSessionMode(flags: Flags, env: Env, storage: Pick<RuntimeConfig, 'databaseUrl'>): McpSessionMode {
  const raw = setting(flags['mcp-sessions'], env.MEMORY_MCP_SESSIONS);
  if (raw === undefined) return storage.databaseUrl !== undefined ? 'stateless' : 'stateful';
  const mode = MCP_SESSION_MODES.find((m) => m === raw);
  if (mode === undefined) throw new ConfigError(`--mcp-sessions must be ${MCP_SESSION_MODES.join(' or ')}, not "${raw}".`);
  return mode;
}

/**
 * The /mcp endpoint for `serve`: sessions per API key (or none: see mcpSessionMode), DNS-rebinding guard when
 * listening on loopback.
 */
export function mcpHttpHandler(
  config: ServeConfig,
  defaults: ToolDefaults,
  sessions: McpSessionMode = mcpSessionMode({}, {}, config),
): (service: MemoryService) => McpHttpHandler {
  return (service) => {
    const logger = createLogger({ level: config.logLevel });
    logger.info('mcp over streamable http at /mcp', { sessions });
    return createMcpHttpHandler({
      service,
      sessions,
      defaults,
      logger,
      version: VERSION,
      allowedHostnames: loopbackHostnames(config.host),
    });
  };
}
