import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler, type Response } from 'express';
import { LIMITS } from '../../core/limits.js';
import { takeTokens, type RateLimiter } from '../../core/rate-limit.js';
import { applyDecision, limitKey } from './rate-limit.js';

const parseJson = express.json({
  limit: LIMITS.bodyMaxBytes,
  strict: false,
  type: () => true,
  // As on /v1: bytes that are not UTF-8 must not silently become U+FFFD.
  verify: (_req, _res, body) => {
    if (!isUtf8(body)) throw new Error('not UTF-8');
  },
});

/** JSON-RPC's own error shape, as the MCP SDK answers a body it cannot read. */
function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function toolCalls(body: unknown): number {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.filter((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call').length;
}

/**
 * Reads the body of a POST to /mcp (the MCP transport is then handed the parsed body) so that a JSON-RPC batch is
 * charged what it costs: the rate-limit middleware took one token for the request, this takes one more for each
 * further `tools/call` in it. One POST with 100 tool calls used to cost one token. A refused batch is a 429 like any
 * other, and runs none of its calls. Other methods and non-JSON bodies are left to the transport, which answers
 * them as the protocol says.
 */
export function mcpBody(limiter: RateLimiter): RequestHandler {
  return function mcpBodyMiddleware(req, res, next) {
    if (req.method !== 'POST' || !req.is('application/json')) {
      next();
      return;
    }
    parseJson(req, res, (error?: unknown) => {
      if (error !== undefined) {
        const type = (error as { type?: unknown }).type;
        if (type === 'entity.too.large') jsonRpcError(res, 413, -32000, `Payload too large: the body exceeds ${LIMITS.bodyMaxBytes} bytes.`);
        else if (type === 'entity.verify.failed') jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid UTF-8.');
        else jsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON');
        return;
      }
      const extra = toolCalls(req.body as unknown) - 1;
      if (extra <= 0) {
        next();
        return;
      }
      takeTokens(limiter, limitKey(res), extra).then((decision) => {
        applyDecision(res, decision);
        next();
      }, next).catch(next);
    });
  };
}
