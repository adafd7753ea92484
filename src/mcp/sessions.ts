import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface Session {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  /** The API key (its id) that created the session; no other key may use it. */
  owner: string;
  lastSeen: number;
  /** Requests in progress, counting an open GET event stream: a session in use is never closed. */
  active: number;
}

export type EvictReason = 'idle' | 'capacity' | 'key-quota';

export interface SessionRegistryOptions {
  /** At most this many sessions on the node. */
  maxSessions: number;
  /** At most this many sessions per API key, so that one key cannot take the node's room from the others. */
  maxPerOwner: number;
  /** A session unused for this long is closed by `sweep`. */
  idleMs: number;
  now?: () => number;
  /** Told about every eviction (for the log). */
  onEvict?: (id: string, reason: EvictReason) => void;
}

/** Whether a new session may start: `ok` once room is made, else why not (every candidate is in use). */
export type Admission = 'ok' | 'key-quota' | 'capacity';

/**
 * The live streamable HTTP sessions of one node, bounded in number and age so that clients that vanish without
 * a DELETE cannot grow memory without end. An evicted client gets the SDK's 404 and, as the protocol asks,
 * starts a new session.
 *
 * Room for a new session is made without hurting anyone at work: a key at its quota gives up its own least
 * recently used idle session; a full node gives up the least recently used idle session of the key that holds
 * the most. A session with a request in progress or an event stream open is never closed: when nothing can go,
 * the new session is refused instead.
 */
export class SessionRegistry {
  readonly #sessions = new Map<string, Session>();
  readonly #perOwner = new Map<string, number>();
  readonly #options: SessionRegistryOptions;
  readonly #now: () => number;

  constructor(options: SessionRegistryOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Sessions this key holds. */
  countOf(owner: string): number {
    return this.#perOwner.get(owner) ?? 0;
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

  /** Makes room for one more session of `owner`, closing idle sessions as the class comment says. */
  admit(owner: string): Admission {
    if (this.countOf(owner) >= this.#options.maxPerOwner) {
      const own = this.#leastRecentIdle((s) => s.owner === owner);
      if (own === undefined) return 'key-quota';
      this.#evict(own, 'key-quota');
    }
    if (this.#sessions.size >= this.#options.maxSessions) {
      const largest = this.#largestOwnerWithIdle();
      const victim = this.#leastRecentIdle((s) => s.owner === largest);
      if (victim === undefined) return 'capacity';
      this.#evict(victim, 'capacity');
    }
    return 'ok';
  }

  /** Records a session that `admit` made room for (sessions starting together may briefly exceed the bounds). */
  add(id: string, entry: Pick<Session, 'server' | 'transport' | 'owner'>): void {
    this.#sessions.set(id, { ...entry, lastSeen: this.#now(), active: 0 });
    this.#perOwner.set(entry.owner, this.countOf(entry.owner) + 1);
  }

  /** Forgets a session that closed by itself (DELETE, or its transport closed). */
  remove(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    const left = this.countOf(session.owner) - 1;
    if (left > 0) this.#perOwner.set(session.owner, left);
    else this.#perOwner.delete(session.owner);
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
    this.#perOwner.clear();
    await Promise.allSettled(servers.map((server) => server.close()));
  }

  /** The least recently used session matching `which` with nothing in progress. */
  #leastRecentIdle(which: (session: Session) => boolean): string | undefined {
    for (const [id, session] of this.#sessions) if (session.active === 0 && which(session)) return id;
    return undefined;
  }

  /** The key holding the most sessions among those with an idle one: a full node takes room from it first. */
  #largestOwnerWithIdle(): string | undefined {
    let best: string | undefined;
    for (const session of this.#sessions.values()) {
      if (session.active > 0) continue;
      if (best === undefined || this.countOf(session.owner) > this.countOf(best)) best = session.owner;
    }
    return best;
  }

  #touch(id: string, session: Session): void {
    session.lastSeen = this.#now();
    // Map order is insertion order: re-inserting keeps the least recently used first.
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
  }

  #evict(id: string, reason: EvictReason): void {
    const session = this.#sessions.get(id);
    this.remove(id);
    if (!session) return;
    this.#options.onEvict?.(id, reason);
    // Closing the server closes its transport: open streams end, later requests get 404.
    void session.server.close().catch(() => undefined);
  }
}
