/** The MCP settings from flags and environment; the wiring that serves them is src/runtime/mcp.ts. */
import { appIdSchema, userIdSchema } from '../../core/schemas.js';
import { ConfigError, type RuntimeConfig } from '../../runtime/config.js';
import { defaultSessionMode, MCP_SESSION_MODES, type McpConfig, type McpSessionMode, type ToolDefaults } from '../../runtime/mcp.js';
import { runtimeConfig } from '../config.js';

type Env = Record<string, string | undefined>;
type Flags = Record<string, string | boolean | undefined>;

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

/** How /mcp keeps sessions: `--mcp-sessions`, else MEMORY_MCP_SESSIONS, else by backend (defaultSessionMode). */
export function mcpSessionMode(flags: Flags, env: Env, storage: Pick<RuntimeConfig, 'databaseUrl'>): McpSessionMode {
  const raw = setting(flags['mcp-sessions'], env.MEMORY_MCP_SESSIONS);
  if (raw === undefined) return defaultSessionMode(storage);
  const mode = MCP_SESSION_MODES.find((m) => m === raw);
  if (mode === undefined) throw new ConfigError(`--mcp-sessions must be ${MCP_SESSION_MODES.join(' or ')}, not "${raw}".`);
  return mode;
}
