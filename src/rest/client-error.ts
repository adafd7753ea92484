import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { MemoryError } from '../core/errors.js';

/** How long a rejected connection may keep sending (its oversized headers, say) before it is cut. */
const DRAIN_MS = 2_000;

function answerFor(code: string | undefined): MemoryError | 'timeout' {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'timeout';
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new MemoryError('payload_too_large', 'The request headers are larger than the server accepts (16 KiB).');
  }
  return new MemoryError('invalid_json', 'The request is not valid HTTP/1.1.');
}

/**
 * Requests that are not valid HTTP (oversized headers, a broken request line, a bad header character) never reach
 * express: Node's parser rejects them and by default writes a bare `400` or `431` with no body and destroys the
 * socket at once, so a client still sending (a 100 KB header) saw a connection reset instead of an answer. They get
 * the contract's error body here, with a status that matches its code, and the connection is drained and closed.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Node's own rule: never write into a connection whose response has already started (or that is gone).
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = answerFor(error.code);
    if (answer === 'timeout') {
      socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    } else {
      const body = JSON.stringify(answer.toBody());
      socket.end(
        `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
      );
    }
    // Read and discard what the client is still sending, so that closing does not reset the connection before it
    // has read the answer; a client that never stops is cut after DRAIN_MS.
    socket.on('data', () => undefined);
    socket.resume();
    setTimeout(() => socket.destroy(), DRAIN_MS).unref();
  });
}
