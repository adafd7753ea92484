import type { Server, ServerResponse } from 'node:http';

/**
 * Graceful shutdown with keep-alive clients. `server.close()` stops accepting and closes the connections idle at
 * that moment, but a connection busy with a request stays open after answering it (keep-alive): the process then
 * waited out the whole grace period for clients that never hung up, and cut whatever they had sent meanwhile. Once
 * draining, every response says `Connection: close` (a client knows not to send another request on it) and each
 * connection is closed as soon as its last response is out.
 */
export function gracefulConnections(server: Server): { drain(): void } {
  const open = new Set<ServerResponse>();
  let draining = false;
  server.on('request', (_req, res: ServerResponse) => {
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
    open.add(res);
    res.once('close', () => {
      open.delete(res);
      if (draining) setImmediate(() => server.closeIdleConnections());
    });
  });
  return {
    drain() {
      draining = true;
      for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
      server.closeIdleConnections();
    },
  };
}
