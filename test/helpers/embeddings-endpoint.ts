import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { HashingEmbedder } from '../../src/embeddings/hashing.js';
import { startEmbeddingsServer, type EmbeddingsServer } from '../../tools/shared/embeddings-server.js';
import { useTestDatabase } from './postgres.js';

export interface EndpointFixture {
  /** The hash model behind an OpenAI-compatible server on loopback, told to fail on demand. */
  readonly server: EmbeddingsServer;
  /** Where each backend keeps its data: a SQLite file in a temp dir, or the file's PostgreSQL database. */
  readonly backends: ReadonlyArray<readonly [string, () => { dbPath: string; databaseUrl?: string }]>;
  /** A new SQLite file's path in the temp dir. */
  file(name: string): string;
}

/**
 * The fixture of the tests of an embedding endpoint that goes down (recall on the words, stores kept pending): the
 * endpoint's server and both backends, started before the file's tests and stopped after them.
 */
export function useEmbeddingsEndpoint(prefix: string): EndpointFixture {
  const pg = useTestDatabase();
  let dir: string | undefined;
  let server: EmbeddingsServer | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `agent-memory-${prefix}-`));
    server = await startEmbeddingsServer({ embedder: new HashingEmbedder() });
  });
  afterAll(async () => {
    await server?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  const file = (name: string): string => {
    if (dir === undefined) throw new Error('The endpoint fixture is not started yet.');
    return join(dir, name);
  };
  return {
    get server() {
      if (server === undefined) throw new Error('The endpoint fixture is not started yet.');
      return server;
    },
    backends: [
      ['SQLite', () => ({ dbPath: file(`${prefix}.db`) })],
      ['PostgreSQL', () => ({ dbPath: '', databaseUrl: pg().url })],
    ],
    file,
  };
}
