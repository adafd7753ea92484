/**
 * `agent-memory reembed` end to end on both backends: a database built with a stand-in model (hash vectors of 16
 * dimensions) is rebuilt with a real transformers.js model, the tiny BERT fixture (24 dimensions, written by the
 * test, no network).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { MemoryStore } from '../../src/core/store.js';
import { createEmbedder, type Embedder } from '../../src/embeddings/index.js';
import { openPgStore } from '../../src/storage/postgres/index.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { writeTinyBert } from '../embeddings/fixtures/tiny-bert.js';
import { hashVector, newMemory } from '../helpers/memories.js';
import { useTestDatabase } from '../helpers/postgres.js';
import { TRANSFORMERS_INSTALLED } from '../helpers/lane-packages.js';

const OLD = { model: 'fake', dimension: 16 };
const MODEL = 'test-org/tiny-bert';
const TEXTS = ['The cat sat on the mat.', 'Deploy the server tomorrow.', 'The user prefers dark mode.', 'A meeting in the database room.'];

const pg = useTestDatabase();
let dir: string;
let tiny: Embedder;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-reembed-cli-'));
  writeTinyBert({ root: dir, model: MODEL, hiddenSize: 24 });
  tiny = createEmbedder({ model: MODEL, modelDir: dir });
});
afterAll(async () => {
  await tiny?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function seed(store: MemoryStore): Promise<void> {
  await store.useModel(OLD);
  const app = await store.ensureApp('default');
  await store.insertMemories(
    TEXTS.map((text, minute) => newMemory({ userId: 'u', appId: app.id, text, minute, embedding: hashVector(text, OLD.dimension) })),
  );
}

async function run(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await main(['reembed', '--model', MODEL, '--model-dir', dir, '--log-level', 'error', ...args], {
    print: (l) => lines.push(l),
    notice: (l) => lines.push(l),
  });
  return { code, text: lines.join('\n') };
}

/** The store now answers with the tiny model: its vector of a text finds that text. */
async function expectRebuilt(store: MemoryStore): Promise<void> {
  expect(await store.getModel()).toEqual({ model: MODEL, dimension: 24 });
  await expect(store.useModel(OLD)).rejects.toThrow(/reembed/);
  const [query] = await tiny.embed(['Deploy the server tomorrow.'], 'document');
  const found = await store.recallCandidates({ userId: 'u', scope: { appId: null }, embedding: query!, vectorK: 4, alsoIds: [] });
  const best = found.sort((a, b) => b.cosine - a.cosine)[0];
  expect(best?.memory.text).toBe('Deploy the server tomorrow.');
  expect(best?.cosine).toBeCloseTo(1, 4);
}

describe.runIf(TRANSFORMERS_INSTALLED)('agent-memory reembed', () => {
  it('rebuilds a SQLite file with another model and dimension', async () => {
    const path = join(dir, 'm.db');
    const store = SqliteStore.open({ path });
    await seed(store);
    await store.close();
    const { code, text } = await run(['--db', path]);
    expect(code).toBe(0);
    expect(text).toMatch(/Re-embedded 4 memories with "test-org\/tiny-bert" \(24 dimensions\), replacing "fake"/);
    const after = SqliteStore.open({ path });
    await expectRebuilt(after);
    await after.close();
  }, 60_000);

  it('rebuilds a PostgreSQL database with --database-url', async () => {
    // The public schema of this file's own server: what the CLI sees at that URL.
    const store = await openPgStore(pg().url);
    await seed(store);
    const { code, text } = await run(['--database-url', pg().url]);
    expect(code).toBe(0);
    expect(text).toMatch(/Re-embedded 4 memories with "test-org\/tiny-bert" \(24 dimensions\), replacing "fake"/);
    expect(text).not.toContain('test-secret');
    // The store that seeded still embeds with "fake": it is refused now (a node must restart with the new model).
    await expect(store.recallCandidates({ userId: 'u', scope: { appId: null }, embedding: new Float32Array(4), vectorK: 1, alsoIds: [] })).rejects.toMatchObject({
      code: 'unavailable',
    });
    await store.close();
    const after = await openPgStore(pg().url);
    await expectRebuilt(after);
    await after.close();
  }, 60_000);

  it('refuses to rebuild with the model that made the vectors, unless --force', async () => {
    const path = join(dir, 'same.db');
    const store = SqliteStore.open({ path });
    await store.useModel({ model: MODEL, dimension: 24 });
    const app = await store.ensureApp('default');
    await store.insertMemories([newMemory({ userId: 'u', appId: app.id, text: 'Stale vector.', embedding: hashVector('x', 24) })]);
    await store.close();
    const refused = await run(['--db', path]);
    expect(refused.code).toBe(1);
    expect(refused.text).toMatch(/already made with "test-org\/tiny-bert".*--force/s);
    const forced = await run(['--db', path, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.text).toMatch(/Re-embedded 1 memories/);
  }, 60_000);

  it('says so when the SQLite file does not exist, instead of creating one', async () => {
    const { code, text } = await run(['--db', join(dir, 'nothing-here.db')]);
    expect(code).toBe(1);
    expect(text).toMatch(/no database at/);
  });
});
