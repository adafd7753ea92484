import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toMemoryError, type ErrorBody } from '../core/errors.js';
import { errorFields, type Logger } from '../core/logger.js';

/** Where an error result carries the contract's error body for programs (the text is for the model). */
export const ERROR_META_KEY = 'agent-memory/error';

/**
 * A failure as a tool result: `isError` with "<code>: <message>" as text, the same code and message REST answers.
 * Anything that is not a MemoryError is a bug: logged on stderr, answered with a generic `server_error`.
 *
 * The error body travels in `_meta`, not in `structuredContent`: the SDK's v1 `Client.callTool` validates any
 * `structuredContent` against the tool's output schema even when `isError` is set (typescript-sdk issue #1943),
 * so an `{error}` object there makes SDK-based clients throw instead of showing the error.
 */
export function toolError(error: unknown, logger: Logger): CallToolResult {
  const mapped = toMemoryError(error);
  if (mapped !== error) logger.error('tool failed', errorFields(error));
  const body: ErrorBody = mapped.toBody();
  return {
    isError: true,
    content: [{ type: 'text', text: `${mapped.code}: ${mapped.message}` }],
    _meta: { [ERROR_META_KEY]: body.error },
  };
}
