import { parseArgs, type ParseArgsConfig } from 'node:util';
import { MemoryError } from '../core/errors.js';
import { runtimeConfig, serveConfig } from './config.js';
import { ConfigError } from '../runtime/config.js';
import { consoleOutput, type Output } from '../runtime/output.js';

const HELP = `agent-memory: memory for AI agents (REST API and MCP tools over SQLite or PostgreSQL)

Usage:
  agent-memory serve [--port 8787] [--host 127.0.0.1] [--db ./data/memory.db]   REST under /v1, MCP at /mcp
                     [--oauth --public-url https://memory.example.com]   OAuth for hosted MCP clients
  agent-memory oauth clients | oauth revoke CLIENT_ID   the OAuth clients registered, and revoking one
  agent-memory mcp [--db PATH] [--user-id ID] [--app-id SLUG]   the MCP tools over stdio, for one local agent
  agent-memory keys create [--app SLUG] [--name LABEL]
  agent-memory keys list
  agent-memory keys revoke KEY_ID
  agent-memory backup PATH   an online copy of the SQLite file (on PostgreSQL use pg_dump)
  agent-memory calibrate [--model NAME]   fit the score map of a model without a built-in one, from labelled
                     sets shipped with the package, and store it in the database for every node (serve and mcp
                     do it in the background when the model has none)
  agent-memory reembed [--model NAME] [--force]   rebuild every vector after changing the embedding model
                     (--force: with the model that made them, after its files changed)
  agent-memory import FILE.jsonl|- [--batch 64] [--strict]   bulk import, one {"userId","text",...} per line;
                     resumable (re-run skips what is in), bad lines reported and skipped (--strict: refuse the file)
  agent-memory import --from mcp-memory FILE --user-id ID [--app-id SLUG]   the MCP memory server's memory.jsonl
  agent-memory import --from mem0 FILE [--user-id ID] [--app-id SLUG]   mem0's get_all JSON (--user-id: instead
                     of each entry's user_id); both re-runnable without duplicates
  agent-memory export FILE.jsonl|- [--user-id ID] [--app-id SLUG]   every memory (of one user, of one app) as
                     JSONL, in the format import reads
  agent-memory copy --from SOURCE --to TARGET [--batch 500]   move a whole database (each a SQLite path or a
                     postgres:// URL), vectors included; re-running it copies only what is missing

Common options:
  --db PATH          SQLite database file (env MEMORY_DB_PATH, default ./data/memory.db)
  --database-url URL PostgreSQL instead of SQLite: postgres://user:pass@host/db (env DATABASE_URL;
                     pool size env MEMORY_PG_POOL, default 10)
  --model NAME       embedding model (env MEMORY_EMBED_MODEL, default use-lite; hash: no model, for tests)
  --model-dir DIR    local directory holding transformers.js models (env MEMORY_MODEL_DIR)
  --embed-url URL    the model runs behind an OpenAI-compatible API at URL (env MEMORY_EMBED_URL), e.g.
                     http://127.0.0.1:11434/v1 for Ollama; needs --model (its name there); key: env
                     MEMORY_EMBED_API_KEY. Prefixes by model family, or --query-prefix / --document-prefix
  --embed-workers N  most embedding worker threads, each with its own copy of the model (env
                     MEMORY_EMBED_WORKERS; default one per core, at most 8; mcp over stdio: 1); the pool
                     starts with one and grows with its queue
  --metrics-token T  serve: Prometheus metrics at /metrics, to "Authorization: Bearer T" only (env
                     MEMORY_METRICS_TOKEN, at least 16 characters); without it there is no /metrics
  --log-level LEVEL  debug, info, warn or error (env MEMORY_LOG_LEVEL, default info)
  --user-id ID       MCP: the user that tool calls without a userId act for (env MEMORY_USER_ID)
  --app-id SLUG      MCP: the app that tool calls without an appId use (env MEMORY_APP_ID)
  --mcp-sessions M   serve: stateful (MCP sessions in this node's memory) or stateless (any node answers any
                     request, for several nodes behind a load balancer); env MEMORY_MCP_SESSIONS, default
                     stateless on PostgreSQL, stateful on SQLite
  --oauth            serve: the OAuth 2.1 authorization server for hosted MCP clients (claude.ai, ChatGPT);
                     env MEMORY_OAUTH=1. Needs --public-url (env MEMORY_PUBLIC_URL): the https URL of the TLS
                     proxy in front (http only on loopback). Access tokens live MEMORY_OAUTH_ACCESS_TTL s (3600)
  --trust-proxy LIST serve: the reverse proxies in front (addresses, CIDR ranges, or loopback/linklocal/
                     uniquelocal; comma-separated; env MEMORY_TRUST_PROXY): only from them is the client's
                     address read from X-Forwarded-For (rate limits by address); default: none, the peer counts
  -h, --help         this text
`;

const OPTIONS = {
  db: { type: 'string' },
  'database-url': { type: 'string' },
  model: { type: 'string' },
  'embed-workers': { type: 'string' },
  'model-dir': { type: 'string' },
  'embed-url': { type: 'string' },
  'query-prefix': { type: 'string' },
  'document-prefix': { type: 'string' },
  'log-level': { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'rate-limit': { type: 'string' },
  'metrics-token': { type: 'string' },
  'trust-proxy': { type: 'string' },
  app: { type: 'string' },
  name: { type: 'string' },
  'user-id': { type: 'string' },
  'app-id': { type: 'string' },
  batch: { type: 'string' },
  strict: { type: 'boolean' },
  force: { type: 'boolean' },
  from: { type: 'string' },
  to: { type: 'string' },
  'mcp-sessions': { type: 'string' },
  oauth: { type: 'boolean' },
  'public-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Waits for SIGTERM or SIGINT, then runs `stop` once. */
function onShutdown(stop: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const handler = () => {
      process.off('SIGTERM', handler);
      process.off('SIGINT', handler);
      stop().then(resolve, resolve);
    };
    process.on('SIGTERM', handler);
    process.on('SIGINT', handler);
  });
}

export async function main(argv: string[], out: Output = consoleOutput): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    out.notice(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, sub, arg] = positionals;
  if (values.help || command === undefined || command === 'help') {
    out.print(HELP);
    return command === undefined && !values.help ? 2 : 0;
  }
  const env = process.env;
  try {
    // Each command imports what it runs, when it runs: `--help`, a usage error or `keys list` need not load the HTTP
    // stack, the MCP SDK or the embedding model (`--help`: median of 5 runs 1.35 s -> 0.47 s here).
    switch (command) {
      case 'serve': {
        const { mcpHttpHandler } = await import('../runtime/mcp.js');
        const { mcpDefaults, mcpSessionMode } = await import('./commands/mcp.js');
        const { startServer } = await import('../runtime/serve.js');
        const { refusedAtStart } = await import('../runtime/runtime.js');
        const config = serveConfig(values, env);
        const mcpHandler = mcpHttpHandler(config, mcpDefaults(values, env), mcpSessionMode(values, env, config));
        const server = await startServer(config, { output: out, mcpHandler });
        out.notice(`agent-memory is listening on ${server.url} (console at ${server.url}/console, REST under /v1, MCP at /mcp, health at /healthz).`);
        const stopped = onShutdown(() => server.close()).then(() => undefined);
        const refusal = await Promise.race([stopped, refusedAtStart(server.runtime.modelReady)]);
        if (refusal === undefined) return 0;
        out.notice(`Stopping: ${refusal.message}`);
        await server.close();
        return 1;
      }
      case 'mcp': {
        const { runMcpStdio } = await import('../runtime/mcp.js');
        const { mcpConfig } = await import('./commands/mcp.js');
        // Stdout is the protocol channel: this command never prints.
        return await runMcpStdio(mcpConfig(values, env));
      }
      case 'keys': {
        const { keysCreate, keysList, keysRevoke } = await import('./commands/keys.js');
        const config = runtimeConfig(values, env);
        if (sub === 'create') return await keysCreate(config, { ...(values.app ? { app: values.app } : {}), ...(values.name ? { label: values.name } : {}) }, out);
        if (sub === 'list') return await keysList(config, out);
        if (sub === 'revoke' && arg) return await keysRevoke(config, arg, out);
        out.notice('Usage: agent-memory keys create [--app SLUG] [--name LABEL] | keys list | keys revoke KEY_ID');
        return 2;
      }
      case 'oauth': {
        const { oauthClients, oauthRevoke } = await import('./commands/oauth.js');
        const config = runtimeConfig(values, env);
        if (sub === 'clients') return await oauthClients(config, out);
        if (sub === 'revoke' && arg) return await oauthRevoke(config, arg, out);
        out.notice('Usage: agent-memory oauth clients | oauth revoke CLIENT_ID');
        return 2;
      }
      case 'backup': {
        const { backup } = await import('./commands/backup.js');
        if (!sub) {
          out.notice('Usage: agent-memory backup PATH');
          return 2;
        }
        return await backup(runtimeConfig(values, env), sub, out);
      }
      case 'import': {
        const { IMPORT_SOURCES, importCommand, isImportSource } = await import('./commands/import.js');
        const { DEFAULT_IMPORT_BATCH, MAX_IMPORT_BATCH } = await import('../core/import.js');
        const usage = 'Usage: agent-memory import FILE.jsonl|- [--batch 64] [--strict], or import --from mcp-memory|mem0 FILE [--user-id ID] [--app-id SLUG]';
        if (!sub || arg !== undefined) {
          out.notice(usage);
          return 2;
        }
        const from = values.from;
        if (from !== undefined && !isImportSource(from)) {
          out.notice(`--from must be ${IMPORT_SOURCES.join(' or ')}, not "${from}" (without --from, FILE is agent-memory's own JSONL).\n${usage}`);
          return 2;
        }
        if (from === undefined && (values['user-id'] !== undefined || values['app-id'] !== undefined)) {
          out.notice(`--user-id and --app-id go with --from: in agent-memory's own JSONL each line names its user and app.\n${usage}`);
          return 2;
        }
        const batch = values.batch === undefined ? DEFAULT_IMPORT_BATCH : Number(values.batch);
        if (!Number.isInteger(batch) || batch < 1 || batch > MAX_IMPORT_BATCH) {
          out.notice(`--batch must be an integer from 1 to ${MAX_IMPORT_BATCH}, not "${values.batch}".`);
          return 2;
        }
        return await importCommand(
          runtimeConfig(values, env),
          sub,
          {
            batchSize: batch,
            strict: values.strict === true,
            from,
            scope: { userId: values['user-id'], appId: values['app-id'] },
          },
          out,
        );
      }
      case 'export': {
        const { exportCommand } = await import('./commands/export.js');
        if (!sub) {
          out.notice('Usage: agent-memory export FILE.jsonl|- [--user-id ID] [--app-id SLUG]');
          return 2;
        }
        return await exportCommand(runtimeConfig(values, env), sub, { userId: values['user-id'], appId: values['app-id'] }, out);
      }
      case 'calibrate': {
        const { calibrateCommand } = await import('./commands/calibrate.js');
        if (sub !== undefined) {
          out.notice('Usage: agent-memory calibrate [--model NAME] [--model-dir DIR] [--db PATH | --database-url URL]');
          return 2;
        }
        return await calibrateCommand(runtimeConfig(values, env), out);
      }
      case 'reembed': {
        const { reembedCommand } = await import('./commands/reembed.js');
        return await reembedCommand(runtimeConfig(values, env), out, { force: values.force === true });
      }
      case 'copy': {
        const { copyCommand } = await import('./commands/copy.js');
        const { DEFAULT_COPY_BATCH, MAX_COPY_BATCH } = await import('../core/copy.js');
        if (!values.from || !values.to || sub !== undefined) {
          out.notice('Usage: agent-memory copy --from SQLITE_PATH|POSTGRES_URL --to SQLITE_PATH|POSTGRES_URL [--batch 500]');
          return 2;
        }
        const batch = values.batch === undefined ? DEFAULT_COPY_BATCH : Number(values.batch);
        if (!Number.isInteger(batch) || batch < 1 || batch > MAX_COPY_BATCH) {
          out.notice(`--batch must be an integer from 1 to ${MAX_COPY_BATCH}, not "${values.batch}".`);
          return 2;
        }
        return await copyCommand(values.from, values.to, { batchSize: batch }, out);
      }
      default:
        out.notice(`Unknown command "${command}".\n\n${HELP}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof MemoryError) {
      out.notice(`agent-memory: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
