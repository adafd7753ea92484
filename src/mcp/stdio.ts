import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
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
 * Serves `server` over stdin/stdout. Stdout carries protocol messages only; everything else goes to the logger
 * (stderr). The transport does not notice the end of its input by itself, so this does.
 */
export async function serveStdio(server: McpServer, options: StdioOptions = {}): Promise<StdioSession> {
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
      await server.close().catch((error: unknown) => logger.warn('mcp close failed', errorFields(error)));
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
  transport.onerror = (error) => logger.warn('mcp stdio error', errorFields(error));
  await server.connect(transport);
  // The protocol layer closes the transport itself on some failures (e.g. an oversized message).
  const closeHandler = transport.onclose;
  transport.onclose = () => {
    closeHandler?.();
    void shutdown('transport closed');
  };
  return { closed, shutdown };
}
