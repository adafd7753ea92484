import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { PROTOCOL_VERSION_META_KEY, type Transport as ModernTransport } from '@modelcontextprotocol/server';
import { serveStdio as serveModernStdio } from '@modelcontextprotocol/server/stdio';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import { createMcpServer, createModernMcpServer, type McpServerOptions } from './server.js';

/**
 * Counts the requests still waiting for their response, so that shutdown can let them finish: a client that
 * writes a store and closes its end of the pipe at once must not lose the store.
 */
class TrackedTransport implements Transport {
  readonly #inner: Transport;
  readonly #pending = new Set<RequestId>();
  #idle: (() => void) | undefined;

  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;

  constructor(inner: Transport) {
    this.#inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if (isJSONRPCRequest(message)) this.#pending.add(message.id);
      // A cancelled request gets no response at all.
      if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
        const id: unknown = message.params?.requestId;
        if (typeof id === 'string' || typeof id === 'number') this.#settle(id);
      }
      this.onmessage?.(message, extra);
    };
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      await this.#inner.send(message, options);
    } finally {
      if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) this.#settle(message.id);
    }
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  /** Resolves once no request is waiting for its response, or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.#idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  #settle(id: RequestId | undefined): void {
    if (id === undefined) return;
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#idle?.();
  }
}

/**
 * The server side of one era's traffic on the shared stdin/stdout: a transport that the chosen server connects to,
 * fed with the messages the router reads (the first one included, queued until the server has connected) and
 * sending through the shared transport. Starting it starts nothing: the shared transport already runs.
 */
class EraChannel implements Transport {
  readonly #wire: TrackedTransport;
  readonly #queue: JSONRPCMessage[] = [];
  #started = false;

  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;

  constructor(wire: TrackedTransport) {
    this.#wire = wire;
  }

  start(): Promise<void> {
    this.#started = true;
    // Both SDKs set onmessage before start and finish connecting right after it: deliver once they have.
    queueMicrotask(() => {
      for (const message of this.#queue.splice(0)) this.onmessage?.(message);
    });
    return Promise.resolve();
  }

  deliver(message: JSONRPCMessage): void {
    if (this.#started && this.#queue.length === 0) this.onmessage?.(message);
    else this.#queue.push(message);
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#wire.send(message, options);
  }

  close(): Promise<void> {
    return this.#wire.close();
  }
}

/**
 * Whether a connection's first message speaks the stateless revision 2026-07-28: a request or notification that
 * carries the revision's `_meta` envelope claim (a `server/discover` probe, or any call of a client pinned to it).
 * The 2025 handshake (`initialize`) and anything without the claim is 2025 traffic. Stdio has no headers: the body
 * is the only signal, as in the v2 SDK's own serveStdio.
 */
function opensModern(message: JSONRPCMessage): boolean {
  if (!('method' in message) || message.method === 'initialize') return false;
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta !== undefined && PROTOCOL_VERSION_META_KEY in meta;
}

export interface StdioOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** How long calls in flight may still run once the input has ended or shutdown was asked for. */
  graceMs?: number;
  logger?: Logger;
}

export interface StdioSession {
  /** Resolves once the server is closed: the input ended, the output broke, or `shutdown` was called. */
  closed: Promise<void>;
  /** Lets calls in flight finish (up to the grace period), then closes the server. Safe to call repeatedly. */
  shutdown(reason: string): Promise<void>;
}

/**
 * Serves the memory tools over stdin/stdout to a client of either protocol generation, chosen by the first message:
 * a 2025 client (the `initialize` handshake) gets the v1 SDK's server, exactly as before 2026-07-28 was served; a
 * client speaking 2026-07-28 gets the v2 SDK's serveStdio (strict: a later `initialize` is refused). Both servers
 * are built from `server` (the same tool table). Stdout carries protocol messages only; everything else goes to the
 * logger (stderr). The transport does not notice the end of its input by itself, so this does.
 */
export async function serveStdio(server: McpServerOptions, options: StdioOptions = {}): Promise<StdioSession> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const logger = options.logger ?? silentLogger;
  const graceMs = options.graceMs ?? 10_000;
  const transport = new TrackedTransport(new StdioServerTransport(stdin, stdout));

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let stopping: Promise<void> | undefined;

  const shutdown = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      logger.info('mcp stdio closing', { reason });
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      stdout.off('error', onOutputError);
      await transport.drained(graceMs);
      await (closeServer ?? (() => transport.close()))().catch((error: unknown) => logger.warn('mcp close failed', errorFields(error)));
      resolveClosed();
    })();
    return stopping;
  };
  const onEnd = () => void shutdown('input ended');
  // EPIPE: the client went away. Without a listener the error would crash the process.
  const onOutputError = (error: Error) => void shutdown(`output failed: ${error.message}`);

  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  stdout.on('error', onOutputError);
  let channel: EraChannel | undefined;
  let closeServer: (() => Promise<void>) | undefined;
  const connectFailed = (error: unknown) => {
    logger.error('mcp stdio connect failed', errorFields(error));
    void shutdown('connect failed');
  };
  transport.onmessage = (message) => {
    if (channel) {
      channel.deliver(message);
      return;
    }
    channel = new EraChannel(transport);
    channel.deliver(message);
    if (opensModern(message)) {
      const handle = serveModernStdio(() => createModernMcpServer(server), {
        // The same JSON-RPC messages; the v2 types spell some fields more narrowly.
        transport: channel as unknown as ModernTransport,
        legacy: 'reject',
        onerror: (error) => logger.debug('mcp stdio (2026-07-28) error', { error: error.message }),
      });
      closeServer = () => handle.close();
    } else {
      const legacy = createMcpServer(server);
      closeServer = () => legacy.close();
      legacy.connect(channel).catch(connectFailed);
    }
  };
  transport.onerror = (error) => {
    logger.warn('mcp stdio error', errorFields(error));
    channel?.onerror?.(error);
  };
  // The protocol layer closes the transport itself on some failures (e.g. an oversized message).
  transport.onclose = () => {
    channel?.onclose?.();
    void shutdown('transport closed');
  };
  await transport.start();
  return { closed, shutdown };
}
