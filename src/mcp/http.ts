import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Request, Response } from 'express';
import { createMcpHandler, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { LIMITS } from '../core/limits.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { MemoryService } from '../core/service.js';
import type { Caller } from '../core/types.js';
import { rebindingGuard } from './host-guard.js';
import { requireToolScopes } from './scopes.js';
import { createMcpServer, createModernMcpServer, type McpServerOptions } from './server.js';
import type { ToolCallListener } from './tools.js';
import { SessionRegistry, type Admission } from './sessions.js';
import type { ToolDefaults } from './tools.js';

/**
 * How /mcp keeps MCP sessions. `stateful`: as the SDK intends by default, a session lives in this node's memory,
 * so every request of a client must reach the node that created it (sticky sessions). `stateless`: no session at
 * all, a fresh server and transport per POST, so any node can answer any request and a load balancer may spread
 * one client over many nodes; GET (the server-to-client event stream) and DELETE answer 405.
 */
export type McpSessionMode = 'stateful' | 'stateless';

export const MCP_SESSION_MODES: readonly McpSessionMode[] = ['stateful', 'stateless'];

export interface McpHttpOptions {
  service: MemoryService;
  /** Default `stateful`. */
  sessions?: McpSessionMode;
  defaults?: ToolDefaults;
  logger?: Logger;
  version?: string;
  /** Default 1,000: a new session beyond it closes an idle one (see SessionRegistry), or is refused with 503. */
  maxSessions?: number;
  /** Default 100: a key's new session beyond it closes that key's least recently used idle one, or is refused with 429. */
  maxSessionsPerKey?: number;
  /** Default 30 minutes: a session with no request for this long is closed. */
  idleMs?: number;
  /**
   * Hostnames (no port) that the Host header, and the Origin header when sent, must name: the DNS-rebinding
   * guard for a server on loopback. Undefined turns the check off (the API key still guards every request).
   */
  allowedHostnames?: readonly string[] | undefined;
  /** Told of every tool call and its outcome (metrics). */
  onToolCall?: ToolCallListener | undefined;
}

/**
 * The /mcp endpoint, plus `close` to end every session when the server stops. The HTTP app calls it behind its key
 * check with the caller that check found (so this adapter knows nothing of how REST authenticates); it rejects
 * only on an unexpected failure, which the app turns into its error answer.
 */
export interface McpHttpHandler {
  (req: Request, res: Response, caller: Caller): Promise<void>;
  /** Lets tool calls in flight finish (up to `graceMs`), then closes every session and its event streams. */
  close(graceMs?: number): Promise<void>;
  readonly sessionCount: number;
}

/** The SDK's own error bodies, so that a client sees the same answers as from a bare SDK server. */
function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** When no session can make room for a new one: every candidate is in use. */
const REFUSED: Record<Exclude<Admission, 'ok'>, { status: number; retryAfter: number; message: string }> = {
  'key-quota': {
    status: 429,
    retryAfter: 60,
    message: 'This API key has as many MCP sessions in use as it may open; end one (DELETE) or retry later.',
  },
  capacity: { status: 503, retryAfter: 30, message: 'The server has no room for another MCP session; retry later.' },
};

/** The body a middleware already read (mcp-body.ts charges a batch per tool call), else undefined: the transport reads it. */
function parsedBody(req: Request): unknown {
  return req.method === 'POST' ? (req.body as unknown) : undefined;
}

/**
 * The request as the v2 SDK's web-standard handler reads it: method, URL and headers. The body is not copied: the
 * handler is given the body mcp-body.ts parsed. `signal` aborts the exchange when the client goes away.
 */
function webRequest(req: Request, signal: AbortSignal): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const url = new URL(req.originalUrl, `http://${req.headers.host ?? 'localhost'}`);
  return new globalThis.Request(url, { method: req.method, headers, signal });
}

/** Writes a web-standard response (a JSON body or an SSE stream) to the Express response. */
async function sendWebResponse(res: Response, response: globalThis.Response): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (response.body === null) {
    res.end();
    return;
  }
  // A client that goes away mid-stream ends the pipeline with an error: nothing is left to answer.
  await pipeline(Readable.fromWeb(response.body as WebReadableStream), res).catch(() => undefined);
}

/** Whom a 2026-07-28 request acts as: the caller the key check found, passed through the SDK as `authInfo`. */
function authInfoOf(caller: Caller): AuthInfo {
  return { token: '', clientId: caller.keyId ?? 'local', scopes: [...(caller.scopes ?? [])], extra: { caller } };
}

/** Resolves once the response is over, closing its socket instead of keeping it alive for a next request. */
function releaseConnection(res: Response): Promise<void> {
  return new Promise((done) => {
    const finish = () => {
      res.socket?.destroySoon();
      done();
    };
    if (res.writableFinished) finish();
    else {
      res.once('finish', finish);
      res.once('close', () => done());
    }
  });
}

/**
 * Streamable HTTP with sessions, as the SDK intends: an initialize POST creates a session (its id comes back in
 * `Mcp-Session-Id`), GET opens its event stream, DELETE ends it. Each session's server acts as the API key that
 * created it (a bound key stays confined to its app, as over REST), and only that key may use the session: with
 * another key it answers the same 404 as an unknown session, so ids leak nothing. Mounted behind the REST key
 * check and rate limit, so nothing here runs without a valid key.
 *
 * With `sessions: 'stateless'` (several nodes behind a load balancer) there are no sessions: see McpSessionMode.
 *
 * All of that is MCP 2025. A POST in the stateless revision 2026-07-28 (its `_meta` envelope in the body) is served
 * by the v2 SDK instead, in either mode, after the same checks: see routeModern.
 */
export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const logger = options.logger ?? silentLogger;
  const stateless = options.sessions === 'stateless';
  const idleMs = options.idleMs ?? 30 * 60 * 1000;
  const sessions = new SessionRegistry({
    maxSessions: options.maxSessions ?? 1_000,
    maxPerOwner: options.maxSessionsPerKey ?? 100,
    idleMs,
    onEvict: (id, reason) => logger.info('mcp session evicted', { session: id, reason }),
  });
  const sweeper = setInterval(() => sessions.sweep(), Math.min(idleMs, 60_000));
  sweeper.unref();
  const hostAllowed = options.allowedHostnames ? rebindingGuard(options.allowedHostnames) : undefined;

  let inFlight = 0;
  let drained: (() => void) | undefined;
  let closing = false;

  const streams = new Set<Response>();

  /**
   * Counts POST and DELETE until their response ends, so that `close` can wait for tool calls in flight, and keeps
   * the open GET event streams, so that `close` can release their connections.
   */
  const track = (req: Request, res: Response): void => {
    if (req.method === 'GET') {
      streams.add(res);
      res.once('close', () => streams.delete(res));
      return;
    }
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) drained?.();
    });
  };

  const serveSession = async (req: Request, res: Response, sessionId: string, owner: string): Promise<void> => {
    const session = sessions.acquire(sessionId);
    if (!session || session.owner !== owner) {
      if (session) sessions.release(sessionId);
      jsonRpcError(res, 404, -32001, 'Session not found');
      return;
    }
    res.once('close', () => sessions.release(sessionId));
    await session.transport.handleRequest(req, res, parsedBody(req));
  };

  /** What an MCP server acting as the key that sent this request is built from, on either revision. */
  const serverOptions = (caller: Caller): McpServerOptions => ({
    service: options.service,
    caller,
    defaults: options.defaults ?? {},
    logger,
    ...(options.version === undefined ? {} : { version: options.version }),
    onToolCall: options.onToolCall,
  });
  /** A 2025 server (v1 SDK) acting as the key that sent this request. */
  const serverFor = (caller: Caller) => createMcpServer(serverOptions(caller));

  /**
   * The stateless revision 2026-07-28 (v2 SDK): one server per request, acting as the caller passed in `authInfo`.
   * Strict (`legacy: 'reject'`): 2025 traffic never reaches it, routeModern sends that to the v1 wiring above, which
   * keeps its sessions exactly as before.
   */
  const modern = createMcpHandler(
    ({ authInfo }) => createModernMcpServer(serverOptions((authInfo?.extra as { caller: Caller }).caller)),
    {
      legacy: 'reject',
      maxRequestBodySize: LIMITS.bodyMaxBytes,
      onerror: (error) => logger.debug('mcp 2026-07-28 request refused or failed', { error: error.message }),
    },
  );

  /**
   * Serves the request on the 2026-07-28 path when it is one (a POST whose body carries the revision's `_meta`
   * envelope claim: the SDK's own isLegacyRequest decides), and says whether it did. Everything else (the
   * `initialize` handshake, session GET and DELETE, bodies the JSON parser did not read) is 2025 traffic.
   */
  const routeModern = async (req: Request, res: Response, caller: Caller): Promise<boolean> => {
    const body = parsedBody(req);
    if (body === undefined) return false;
    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const request = webRequest(req, aborted.signal);
    if (await isLegacyRequest(request, body, { maxRequestBodySize: LIMITS.bodyMaxBytes })) return false;
    await sendWebResponse(res, await modern.fetch(request, { authInfo: authInfoOf(caller), parsedBody: body }));
    return true;
  };

  const startSession = async (req: Request, res: Response, caller: Caller, owner: string): Promise<void> => {
    // Room is made (or refused) before the SDK starts the session; a body the SDK will refuse needs none.
    const admission = isInitializeRequest(parsedBody(req)) ? sessions.admit(owner) : 'ok';
    if (admission !== 'ok') {
      const refusal = REFUSED[admission];
      logger.warn('mcp session refused', { key: owner, reason: admission });
      res.setHeader('Retry-After', String(refusal.retryAfter));
      jsonRpcError(res, refusal.status, -32000, refusal.message);
      return;
    }
    const server = serverFor(caller);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.add(id, { server, transport, owner });
        logger.info('mcp session started', { session: id, key: owner });
      },
      maxRequestBodySize: LIMITS.bodyMaxBytes,
    });
    // Set before connect: the protocol layer keeps it and calls it when the session ends (DELETE, eviction).
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.remove(transport.sessionId);
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, parsedBody(req));
    } finally {
      // Not an initialize request (the SDK answered it with an error), or it failed: no session exists to keep.
      if (transport.sessionId === undefined) await server.close();
    }
  };

  /**
   * Stateless: one server and transport for this POST alone, acting as the key that sent it (so the key binding
   * holds request by request), both closed when the response ends. Nothing outlives the request.
   */
  const serveStateless = async (req: Request, res: Response, caller: Caller): Promise<void> => {
    const server = serverFor(caller);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize: LIMITS.bodyMaxBytes });
    // Before handling, so that a response that ends early still closes them.
    res.once('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, parsedBody(req));
  };

  const handler = async function mcpHandler(req: Request, res: Response, caller: Caller): Promise<void> {
    if (hostAllowed && !hostAllowed(req, res)) return;
    if (closing) {
      jsonRpcError(res, 503, -32000, 'The server is shutting down.');
      return;
    }
    requireToolScopes(caller, parsedBody(req));
    if (req.method === 'POST') {
      track(req, res);
      if (await routeModern(req, res, caller)) return;
    }
    if (stateless) {
      if (req.method !== 'POST') {
        // No session, so no event stream to open (GET) and none to end (DELETE): the SDK's stateless answer.
        res.setHeader('Allow', 'POST');
        jsonRpcError(res, 405, -32000, 'Method not allowed.');
        return;
      }
      await serveStateless(req, res, caller);
      return;
    }
    const owner = caller.keyId ?? 'local';
    if (req.method !== 'POST') track(req, res);
    const sessionId = req.get('mcp-session-id');
    if (sessionId !== undefined) {
      await serveSession(req, res, sessionId, owner);
    } else if (req.method === 'POST') {
      await startSession(req, res, caller, owner);
    } else if (req.method === 'GET' || req.method === 'DELETE') {
      jsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    } else {
      res.setHeader('Allow', 'GET, POST, DELETE');
      jsonRpcError(res, 405, -32000, 'Method not allowed.');
    }
  } as McpHttpHandler;

  Object.defineProperty(handler, 'sessionCount', { get: () => sessions.size });
  handler.close = async (graceMs = 10_000) => {
    closing = true;
    clearInterval(sweeper);
    if (inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await modern.close();
    await sessions.closeAll();
    // Closing a session ends its event stream, but the SDK sent it with "Connection: keep-alive": the idle socket
    // would then hold the HTTP server's close until its grace period ends. Close each one once its stream is done.
    await Promise.all([...streams].map(releaseConnection));
  };
  return handler;
}
