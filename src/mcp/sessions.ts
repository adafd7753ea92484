import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface Session {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  /** The API key (its id) that created the session; no other key may use it. */
  owner: string;
  lastSeen: number;
  /** Requests in progress, counting an open GET event stream: a session in use is never closed as idle. */
  active: number;
}

export interface SessionRegistryOptions {
  /** At most this many sessions; a new one evicts the least recently used. */
  maxSessions: number;
  /** A session unused for this long is closed by `sweep`. */
  idleMs: number;
  now?: () => number;
  /** Told about every eviction (for the log). */
  onEvict?: (id: string, reason: 'idle' | 'capacity') => void;
}

/**
 * The live streamable HTTP sessions of one node, bounded in number and age so that clients that vanish without
 * a DELETE cannot grow memory without end. An evicted client gets the SDK's 404 and, as the protocol asks,
 * starts a new session.
 */
export class SessionRegistry {
  readonly #sessions = new Map<string, Session>();
  readonly #options: SessionRegistryOptions;
  readonly #now: () => number;

  constructor(options: SessionRegistryOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The session, marked as in use until `release`; undefined when it does not exist (any more). */
  acquire(id: string): Session | undefined {
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    session.active += 1;
    this.#touch(id, session);
    return session;
  }

  release(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    session.active = Math.max(0, session.active - 1);
    this.#touch(id, session);
  }

  add(id: string, entry: Pick<Session, 'server' | 'transport' | 'owner'>): void {
    while (this.#sessions.size >= this.#options.maxSessions) {
      const oldest = this.#sessions.keys().next();
      if (oldest.done) break;
      this.#evict(oldest.value, 'capacity');
    }
    this.#sessions.set(id, { ...entry, lastSeen: this.#now(), active: 0 });
  }

  /** Forgets a session that closed by itself (DELETE, or its transport closed). */
  remove(id: string): void {
    this.#sessions.delete(id);
  }

  /** Closes the sessions idle for longer than `idleMs`. */
  sweep(): void {
    const cutoff = this.#now() - this.#options.idleMs;
    for (const [id, session] of this.#sessions) {
      // Least recently used first: the first recent one ends the scan.
      if (session.lastSeen > cutoff) break;
      if (session.active === 0) this.#evict(id, 'idle');
    }
  }

  async closeAll(): Promise<void> {
    const servers = [...this.#sessions.values()].map((s) => s.server);
    this.#sessions.clear();
    await Promise.allSettled(servers.map((server) => server.close()));
  }

  #touch(id: string, session: Session): void {
    session.lastSeen = this.#now();
    // Map order is insertion order: re-inserting keeps the least recently used first.
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
  }

  #evict(id: string, reason: 'idle' | 'capacity'): void {
    const session = this.#sessions.get(id);
    this.#sessions.delete(id);
    if (!session) return;
    this.#options.onEvict?.(id, reason);
    // Closing the server closes its transport: open streams end, later requests get 404.
    void session.server.close().catch(() => undefined);
  }
}
