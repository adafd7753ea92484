/**
 * A PostgreSQL server for tests, without Docker: PGlite (PostgreSQL compiled to WebAssembly, in this process) with
 * pgvector, served over TCP by @electric-sql/pglite-socket on a loopback ephemeral port, so that the store talks
 * to it through `pg` exactly as to a real server. Two ways to use a real server instead:
 * - TEST_PG_SERVER_URL (set by `npm run test:postgres-server`, which starts one: tools/shared/postgres-cluster.ts): a superuser URL;
 *   each test database is a fresh database of its own on that server, dropped at the end;
 * - TEST_DATABASE_URL: a server of yours; tests then run in schemas of their own and drop them.
 * Where the server has no pgvector, the store keeps plain vectors (src/storage/postgres/vector-storage.ts).
 *
 * PGlite serves every connection from one session: transactions (and protocol message groups, see
 * keepProtocolGroupsWhole) of different connections are serialised by the socket server, one at a time, and
 * advisory locks do not exclude. Races that need two real sessions are only truly exercised against a real server.
 */
import { randomBytes } from 'node:crypto';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

export interface TestDatabase {
  /** `postgres://` URL of the server (through a TcpProxy: see `proxy`). */
  url: string;
  /** PGlite; a real server (one database of its own on TEST_PG_SERVER_URL); or TEST_DATABASE_URL. */
  kind: 'pglite' | 'server' | 'external';
  /** pgvector is enabled (in `public`); without it the store keeps plain vectors. */
  pgvector: boolean;
  /** Sits between the store and the server, so a test can cut or freeze the database mid-test. */
  proxy: TcpProxy;
  /** A new schema name, unique in this database (not created: the store creates it). */
  newSchema(): string;
  /** Drops a schema made by a test, with everything in it. */
  dropSchema(name: string): Promise<void>;
  close(): Promise<void>;
}

interface Started {
  url: string;
  kind: TestDatabase['kind'];
  close(): Promise<void>;
}

/** A fresh database on the test server that `npm run test:postgres-server` started, dropped by close(). */
async function freshDatabase(serverUrl: string): Promise<Started> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    kind: 'server',
    async close() {
      // FORCE: a node killed by a test may leave a session behind for a moment.
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end().catch(() => undefined);
    },
  };
}

/** Starts PGlite (or uses a real server: see above) and enables pgvector in `public` where the server has it. */
export async function startTestDatabase(): Promise<TestDatabase> {
  const external = process.env.TEST_DATABASE_URL;
  const serverUrl = process.env.TEST_PG_SERVER_URL;
  const server: Started = external
    ? { url: external, kind: 'external', close: () => Promise.resolve() }
    : serverUrl
      ? await freshDatabase(serverUrl)
      : await startPglite();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  const { rows } = await admin.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  const pgvector = rows.length > 0;
  // In public, so every test schema (search_path "<schema>, public") finds the vector type.
  if (pgvector) await admin.query('CREATE EXTENSION IF NOT EXISTS vector SCHEMA public');
  const target = new URL(server.url);
  const proxy = await TcpProxy.start(target.hostname.replace(/^\[(.*)\]$/, '$1'), Number(target.port || 5432));
  const proxied = new URL(server.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  const created: string[] = [];
  return {
    url: proxied.toString(),
    kind: server.kind,
    pgvector,
    proxy,
    newSchema() {
      const name = `t_${randomBytes(6).toString('hex')}`;
      created.push(name);
      return name;
    },
    async dropSchema(name) {
      await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    },
    async close() {
      for (const name of created) await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`).catch(() => undefined);
      await admin.end().catch(() => undefined);
      await proxy.close();
      await server.close();
    },
  };
}

/**
 * A test database of the suite's (or describe block's) own: started before its tests, closed after them. The
 * returned function gives it to the tests.
 */
export function useTestDatabase(): () => TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await startTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });
  return () => {
    if (database === undefined) throw new Error('The test database is not started yet.');
    return database;
  };
}

async function startPglite(): Promise<Started> {
  // Imported here so a run against TEST_DATABASE_URL never loads the WebAssembly build.
  const { PGlite } = await import('@electric-sql/pglite');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create({ extensions: { vector } });
  keepProtocolGroupsWhole(db);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 64 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return {
    // PGlite accepts any password; one is given so that masking is exercised on a realistic URL.
    url: `postgres://postgres:test-secret@127.0.0.1:${port}/postgres`,
    kind: 'pglite',
    async close() {
      await server.stop();
      await db.close();
    },
  };
}

/** Extended-protocol messages that open or continue a group; Sync (or a simple Query) closes it. */
const GROUP_MESSAGES = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((c) => c.charCodeAt(0)));

/**
 * pglite-socket runs one protocol message at a time, from any connection, and sticks to one connection only while
 * PGlite says it is inside a transaction. But `pg` sends every parameterised query as a group (Parse, Bind,
 * Describe, Execute, Sync) that works on the session's unnamed statement and portal: two connections' groups
 * interleaved in PGlite's one session overwrite each other's statement ("unnamed prepared statement does not
 * exist", "portal \"\" does not exist") and a connection can receive the rows of another's query. Under parallel
 * load that made the server answer 500s that no real PostgreSQL would cause. Reporting "in a transaction" from the
 * first message of a group to its Sync keeps each group whole, as separate sessions would.
 */
function keepProtocolGroupsWhole(db: PGlite): void {
  let open = false;
  const inTransaction = db.isInTransaction.bind(db);
  const execRaw = db.execProtocolRawStream.bind(db);
  const exec = db.exec.bind(db);
  db.isInTransaction = () => open || inTransaction();
  db.execProtocolRawStream = async (message, options) => {
    try {
      return await execRaw(message, options);
    } finally {
      // A startup message (no type byte) never comes mid-group: the queue keeps to the group's connection.
      open = GROUP_MESSAGES.has(message[0] ?? 0);
    }
  };
  // The socket server's ROLLBACK for a connection that went away mid-group (or mid-transaction) ends its group.
  db.exec = (text, options) => {
    open = false;
    return exec(text, options);
  };
}

/**
 * A TCP relay to the database that a test can break: `stop()` drops every connection and refuses new ones (a
 * server that went away), `freeze()` keeps connections open but stops relaying (a hung server or a network
 * partition), `start()` and `thaw()` undo them.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #host: string;
  readonly #targetPort: number;
  #port = 0;
  #frozen = false;

  static async start(host: string, port: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(host, port);
    await proxy.start();
    return proxy;
  }

  private constructor(host: string, targetPort: number) {
    this.#host = host;
    this.#targetPort = targetPort;
    this.#server = createServer((client) => this.#relay(client));
  }

  get port(): number {
    return this.#port;
  }

  #relay(client: Socket): void {
    const upstream = createConnection({ host: this.#host, port: this.#targetPort });
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (data) => {
      if (!this.#frozen) upstream.write(data);
    });
    upstream.on('data', (data) => {
      if (!this.#frozen) client.write(data);
    });
  }

  /** Listens again, on the same port after the first start. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#port, '127.0.0.1', () => {
        this.#server.off('error', reject);
        const address = this.#server.address();
        if (address && typeof address === 'object') this.#port = address.port;
        resolve();
      });
    });
  }

  /** Refuses new connections and drops the open ones. */
  stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  /** Stops relaying: connections stay open, nothing answers. */
  freeze(): void {
    this.#frozen = true;
  }

  /** Relays again; what was sent while frozen is lost, so drop those connections (the pool opens new ones). */
  thaw(): void {
    this.#frozen = false;
    for (const socket of this.#sockets) socket.destroy();
  }

  async close(): Promise<void> {
    if (this.#server.listening) await this.stop();
  }
}
