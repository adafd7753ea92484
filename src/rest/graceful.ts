import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection idle at shutdown stays open, so that a request already on its way is read and answered. */
export const LAME_DUCK_MS = 250;

/**
 * Graceful shutdown with keep-alive clients.
 *
 * `server.close()` stops accepting and at once closes every connection with no request in progress, then waits for
 * the others. Two things went wrong with that under load: a connection busy at that moment stayed open after its
 * answer (keep-alive), so the process waited out the whole grace period for clients that never hung up; and a
 * connection counted as idle may hold a request the event loop has not read yet (sent just before the signal, while
 * the loop was busy), which was then reset instead of answered.
 *
 * A third: a connection still in the listen backlog (the kernel completed it while the loop was busy) was reset
 * when the listening socket closed. Here the server keeps accepting for LAME_DUCK_MS, accepts the backlog (one
 * poll phase), then closes the socket.
 *
 * Here, once closing: every response says `Connection: close` (the client will not send another request on it, and
 * Node closes it after the answer); connections idle at that moment are closed only after LAME_DUCK_MS, and only
 * after an event-loop poll has read whatever they had received (a request that arrives is then served, with
 * `Connection: close`); sweeps repeat until every connection is gone.
 */
export function gracefulConnections(server: Server): { close(): Promise<void> } {
  const open = new Set<ServerResponse>();
  // Each connection: requests in progress, and since when it has had none (accepted, or its last answer sent).
  const connections = new Map<Socket, { active: number; idleSince: number }>();
  let draining = false;
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { active: 0, idleSince: performance.now() });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
    open.add(res);
    const state = connections.get(req.socket);
    if (state) state.active++;
    res.once('close', () => {
      open.delete(res);
      if (state) {
        state.active--;
        state.idleSince = performance.now();
      }
    });
  });
  /**
   * Closes the connections that have had no request for LAME_DUCK_MS. Node's closeIdleConnections() closes every
   * connection without a request in progress, including one accepted from the backlog in this very turn of the loop
   * whose request has not been read yet: under load (a request sent a second before SIGTERM, its connection waiting
   * in the backlog while recalls kept the loop busy) that reset a request the server had promised to answer.
   */
  const closeIdle = (): void => {
    const now = performance.now();
    for (const [socket, state] of connections) {
      if (state.active === 0 && now - state.idleSince >= LAME_DUCK_MS) socket.destroy();
    }
  };
  return {
    close() {
      draining = true;
      for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
      const stopped = new Promise<void>((resolve) => {
        // Connections the kernel completed while the loop was busy wait in the listen backlog until the loop
        // accepts them; closing the listening socket resets them, though their requests were sent before the
        // signal. So the server keeps accepting for LAME_DUCK_MS (answering with `Connection: close`), then lets
        // two turns of the loop pass (one full poll phase, which accepts the whole backlog) and stops.
        setTimeout(() => {
          setImmediate(() =>
            setImmediate(() => {
              // Stop accepting, without Node's immediate sweep of idle connections (see above).
              const sweep = server.closeIdleConnections;
              server.closeIdleConnections = () => undefined;
              try {
                server.close(() => resolve());
              } finally {
                server.closeIdleConnections = sweep;
              }
            }),
          );
        }, LAME_DUCK_MS);
      });
      let done = false;
      void stopped.then(() => (done = true));
      const later = () => {
        if (done) return;
        // setImmediate runs after the poll phase, so bytes that arrived while the loop was busy are parsed first.
        setImmediate(() => {
          closeIdle();
          setTimeout(later, LAME_DUCK_MS / 5).unref();
        });
      };
      setTimeout(later, LAME_DUCK_MS).unref();
      return stopped;
    },
  };
}
