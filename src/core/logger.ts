/**
 * Structured logs, one JSON object per line on stderr: stdout may be an MCP stdio channel and must carry nothing
 * but protocol messages. Secrets (API keys, database passwords) are never passed to a logger.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Anything shaped like an API key, wherever it came from (a key pasted into a URL path that the access log records,
 * say), is cut down to its displayable prefix (`amk_` and 4 characters, as `keys list` shows) in every log line.
 */
const API_KEY_LIKE = /(amk_[0-9A-Za-z]{4})[0-9A-Za-z]{4,}/g;

export function createLogger(options: { level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const min = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const log = (level: LogLevel) => (message: string, fields: LogFields = {}) => {
    if (ORDER[level] < min) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }).replace(API_KEY_LIKE, '$1…[redacted]')}\n`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** What an unexpected error looks like in a log line: name, message and stack, never sent to a client. */
export function errorFields(error: unknown): LogFields {
  if (error instanceof Error) return { error: error.name, detail: error.message, stack: error.stack };
  return { error: String(error) };
}
