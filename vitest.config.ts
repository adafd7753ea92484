import { defineConfig } from 'vitest/config';

/**
 * The suite in four projects, from fastest to slowest. `npm test` runs them all (then the Postgres lane);
 * `npm run test:unit` runs the first, the fast lane: no model, no server process, no browser, no database server.
 * Every test file belongs to exactly one project (test/vitest-projects.test.ts checks it).
 */

/** Pure logic and in-process SQLite: the ranker, the store, the client's retry and error logic, the hash model. */
export const UNIT = [
  'test/core/ranking/**/*.test.ts',
  'test/core/calibration/**/*.test.ts',
  'test/core/{housekeeping,rate-limit,vector,printable}.test.ts',
  'test/core/text/{statements,fillers}.test.ts',
  'test/core/oauth/*.test.ts',
  'test/embeddings/{fair-queue,hashing,optional-import,worker-embedder,embed-pool,endpoint}.test.ts',
  'test/cli/config.test.ts',
  'test/runtime/trust-proxy.test.ts',
  'test/client/{client,retry,errors}.test.ts',
  'test/storage/sqlite/**/*.test.ts',
  'test/storage/postgres/{pg-helpers,retry}.test.ts',
  'test/mcp/sessions.test.ts',
  'test/tools/{evaluate,metrics,bench-speed,eval-data,calibration-sets,test-lanes}.test.ts',
  'test/{vitest-projects,entry-points,architecture,packaging}.test.ts',
];

/** REST, MCP, the CLI's key commands, the client and the AI SDK adapter against the real app in process, on the hash model. */
export const ADAPTERS = [
  'test/rest/**/*.test.ts',
  'test/mcp/{batch,http,parity,tools}.test.ts',
  'test/cli/{first-key,keys,oauth,calibrate,embed-endpoint}.test.ts',
  'test/client/*.live.test.ts',
  'test/ai-sdk/*.test.ts',
  'test/langgraph/*.test.ts',
  'test/scale/mcp-stateless.test.ts',
  'test/runtime/instrument.test.ts',
  'test/runtime/background-calibration.test.ts',
];

/** The PostgreSQL backend (PGlite in process, or TEST_DATABASE_URL) and what moves data between backends. */
export const BACKENDS = [
  'test/storage/postgres/pg-store.test.ts',
  'test/storage/model-change.test.ts',
  'test/storage/calibrations.test.ts',
  'test/core/reembed.test.ts',
  'test/core/recall-on-words.test.ts',
  'test/core/pending-vectors.test.ts',
  'test/scale/copy.test.ts',
];

/** The rest: the real model, the built CLI in child processes, the browser, crash and load tests. */
export const END_TO_END_EXCLUDE = [...UNIT, ...ADAPTERS, ...BACKENDS];

export default defineConfig({
  test: {
    // Servers, worker threads and a real model: generous per-test time, files run in parallel on 2 cores.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      { extends: true, test: { name: 'adapters', include: ADAPTERS } },
      { extends: true, test: { name: 'backends', include: BACKENDS } },
      {
        extends: true,
        // Builds dist/ when missing or stale, once, before the tests that spawn the compiled CLI.
        test: { name: 'end-to-end', include: ['test/**/*.test.ts'], exclude: END_TO_END_EXCLUDE, globalSetup: ['test/helpers/built.ts'] },
      },
    ],
  },
});
