/**
 * The PostgreSQL backend against one PGlite server for the whole file (its start is the slow part): the shared
 * store contract, then what only a networked, multi-node backend has: migrations and model checks across nodes,
 * races between nodes, the HNSW path, the BM25 scale, outages and the shared rate limiter.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EmbeddingState } from '../../../src/core/embedding-state.js';
import { MemoryError } from '../../../src/core/errors.js';
import { silentLogger, type LogFields } from '../../../src/core/logger.js';
import { newMemoryId, newUuid } from '../../../src/core/ids.js';
import { textKey } from '../../../src/core/text-key.js';
import type { Candidate, NewMemory } from '../../../src/core/store.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';
import { createPool, query, withClient } from '../../../src/storage/postgres/connection.js';
import { nfcIdentifiers } from '../../../src/storage/postgres/nfc-ids.js';
import { openPgStore, PgRateLimiter, type PgStore } from '../../../src/storage/postgres/index.js';
import { LATEST_VERSION, MIGRATIONS, currentVersion, ensureSchema, migrate } from '../../../src/storage/postgres/migrations.js';
import { CONFLICT_RETRY } from '../../../src/storage/postgres/retry.js';
import { VectorBackfill } from '../../../src/runtime/backfill.js';
import { mulberry32 } from '../../../tools/shared/prng.js';
import { startTestDatabase, type TestDatabase } from '../../helpers/postgres.js';
import { storeContract, unit } from '../store-contract.js';
import { analyzeText, termsOf } from '../../../src/core/text/analyze.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

for (const [name, pgvector] of [
  ['postgres', true],
  // The fallback where the server has no pgvector (vector-storage.ts), on every server.
  ['postgres, plain vectors', false],
] as const) {
  storeContract(name, async () => {
    const schema = db.newSchema();
    const store = await openPgStore(db.url, { schema, pgvector });
    return {
      store,
      async cleanup() {
        await store.close();
        await db.dropSchema(schema);
      },
    };
  });
}

const MODEL = { model: 'test-vectors', dimension: 4 };

function memory(appId: string, userId: string, text: string, embedding: number[], minute = 0): NewMemory {
  return {
    id: newMemoryId(),
    uuid: newUuid(),
    userId,
    appId,
    text,
    metadata: {},
    createdAt: new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString(),
    embedding: unit(embedding),
  };
}

/** Several stores on one schema: what several stateless nodes see. */
async function nodes(count: number, schema = db.newSchema()): Promise<PgStore[]> {
  return Promise.all(Array.from({ length: count }, () => openPgStore(db.url, { schema, poolSize: 4 })));
}

async function closeAll(stores: PgStore[]): Promise<void> {
  await Promise.all(stores.map((s) => s.close()));
}

describe('PostgreSQL schema migrations', () => {
  it('migrates an empty schema once when several nodes start together', async () => {
    const schema = db.newSchema();
    const started = await nodes(4, schema);
    const { rows } = await query<{ version: number }>(started[0]!.pool, 'SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await currentVersion(started[0]!.pool)).toBe(LATEST_VERSION);
    await closeAll(started);
  });

  it('is a no-op on an up-to-date schema, and upgrades in place keeping rows', async () => {
    const [store] = await nodes(1);
    const app = await store!.ensureApp('default');
    await store!.useModel(MODEL);
    await store!.insertMemory(memory(app.id, 'u', 'kept', [1, 0, 0, 0]));
    expect(await migrate(store!.pool)).toEqual([]);
    const next = {
      version: LATEST_VERSION + 1,
      name: 'test: a new column',
      async up(client: Parameters<(typeof MIGRATIONS)[number]['up']>[0]) {
        await client.query("ALTER TABLE memories ADD COLUMN source text NOT NULL DEFAULT 'import'");
      },
    };
    expect(await migrate(store!.pool, [...MIGRATIONS, next])).toEqual([LATEST_VERSION + 1]);
    const { items } = await store!.listMemories({ userId: 'u', scope: { appId: null }, offset: 0, limit: 10 });
    expect(items.map((m) => m.text)).toEqual(['kept']);
    await store!.close();
  });

  it('upgrades a version-2 schema to the lifecycle fields in place: updated_at, duplicate key, metadata index', async () => {
    const schema = db.newSchema();
    const pool = createPool(db.url, { schema });
    await ensureSchema(pool, schema);
    expect(await migrate(pool, MIGRATIONS.slice(0, 2))).toEqual([1, 2]);
    const appId = newUuid();
    await query(pool, "INSERT INTO apps VALUES ($1, 'default', now())", [appId]);
    await query(
      pool,
      `INSERT INTO memories (id, uuid, user_id, app_id, text, metadata, created_at)
       VALUES ('mem_AAAAAAAAAAAA', $1, 'u', $2, ' kept  fact', '{"topic":"music","n":1.0}', '2024-01-01T00:00:00.000Z')`,
      [newUuid(), appId],
    );
    await pool.end();
    const store = await openPgStore(db.url, { schema });
    expect(await currentVersion(store.pool)).toBe(LATEST_VERSION);
    const { rows } = await query<{ text_key: string }>(store.pool, 'SELECT text_key FROM memories');
    expect(rows[0]?.text_key).toBe(textKey('kept fact'));
    const filtered = await store.listMemories({
      userId: 'u',
      scope: { appId: null },
      offset: 0,
      limit: 10,
      filter: { metadata: { topic: 'music', n: 1 } },
    });
    expect(filtered.items).toMatchObject([{ text: ' kept  fact', updatedAt: '2024-01-01T00:00:00.000Z', expiresAt: null }]);
    await store.close();
  });

  it('migration 7 renames decomposed user ids and keys to NFC, merging no two users', async () => {
    const schema = db.newSchema();
    const setup = await openPgStore(db.url, { schema });
    await setup.useModel(MODEL);
    const appId = (await setup.ensureApp('default')).id;
    const decomposed = 'cafe\u0301';
    const composed = 'caf\u00e9';
    const row = (userId: string, text: string, key?: string) => ({ ...memory(appId, userId, text, [1, 0, 0, 0]), metadata: { topic: 'coffee' }, ...(key ? { key } : {}) });
    await setup.insertMemory(row(decomposed, 'Drinks flat whites', `pref-${decomposed}`));
    await setup.insertMemory(row(`ren${decomposed}`, 'Also here'));
    await setup.insertMemory(row(`ren${composed}`, 'Composed already'));
    // The migration's step again on these rows (as on a database written before it); the runner would skip it.
    await withClient(setup.pool, (client) => nfcIdentifiers(client));
    await setup.close();
    const store = await openPgStore(db.url, { schema });
    await store.useModel(MODEL);
    const now = new Date().toISOString();
    const listed = await store.listMemories({ userId: composed, scope: { appId: null }, offset: 0, limit: 10, filter: { metadata: { topic: 'coffee' } } });
    expect(listed.items.map((m) => m.text)).toEqual(['Drinks flat whites']);
    expect(await store.getMemoryByKey({ userId: composed, appId, key: `pref-${composed}` }, now)).toMatchObject({ text: 'Drinks flat whites' });
    // "rencafé" existed in both forms: two users before, two users after.
    const users = await store.listUsers({ scope: { appId: null }, offset: 0, limit: 10 });
    expect(users.items.map((u) => u.userId).sort()).toEqual([composed, `ren${composed}`, `ren${decomposed}`].sort());
    await store.close();
  });

  it('rolls a failed migration back whole', async () => {
    const schema = db.newSchema();
    const pool = createPool(db.url, { schema });
    await ensureSchema(pool, schema);
    const broken = { version: LATEST_VERSION + 1, name: 'broken', up: () => Promise.reject(new Error('boom')) };
    await expect(migrate(pool, [...MIGRATIONS, broken])).rejects.toThrow('boom');
    expect(await currentVersion(pool)).toBe(0);
    const { rows } = await query<{ n: string }>(
      pool,
      "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'memories'",
      [schema],
    );
    expect(rows[0]?.n).toBe('0');
    await pool.end();
  });

  it('refuses a database from a newer release', async () => {
    const schema = db.newSchema();
    const [store] = await nodes(1, schema);
    await query(store!.pool, "INSERT INTO schema_migrations VALUES (999, 'future', now())");
    await store!.close();
    const refused = openPgStore(db.url, { schema });
    await expect(refused).rejects.toBeInstanceOf(MemoryError);
    await expect(openPgStore(db.url, { schema })).rejects.toThrow(/newer than this release/);
  });

  it('rejects a schema name that is not a plain identifier', async () => {
    await expect(openPgStore(db.url, { schema: 'x"; DROP TABLE apps; --' })).rejects.toThrow(/Invalid schema name/);
  });
});

describe('PgStore across nodes', () => {
  it('creates the vector column once and refuses another model on every node', async () => {
    const stores = await nodes(3);
    await Promise.all(stores.map((s) => s.useModel(MODEL)));
    for (const s of stores) expect(await s.getModel()).toEqual(MODEL);
    await expect(stores[1]!.useModel({ model: 'other-model', dimension: 8 })).rejects.toThrow(/built with the embedding model "test-vectors"/);
    const { rows } = await query<{ n: string }>(
      stores[0]!.pool,
      "SELECT count(*) AS n FROM pg_indexes WHERE tablename = 'memories' AND indexname = 'memories_embedding_hnsw' AND schemaname = current_schema()",
    );
    expect(rows[0]?.n).toBe(db.pgvector ? '1' : '0');
    await closeAll(stores);
  });

  it('stores one memory when two nodes race with one Idempotency-Key, and one app per slug', async () => {
    const [a, b] = await nodes(2);
    await a!.useModel(MODEL);
    const [appA, appB] = await Promise.all([a!.ensureApp('shared'), b!.ensureApp('shared')]);
    expect(appA).toEqual(appB);
    const claim = {
      keyId: 'key_x',
      key: 'retry-1',
      requestHash: 'h',
      response: '{"id":"first"}',
      duplicateResponse: () => '{"duplicate":true}',
      notBefore: '2000-01-01T00:00:00.000Z',
    };
    const outcomes = await Promise.all(
      [a!, b!, a!, b!].map((s, i) => s.insertMemory(memory(appA.id, 'u', `attempt ${i}`, [1, 0, 0, 0]), claim)),
    );
    expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(1);
    expect(await b!.countMemories()).toBe(1);
    await closeAll([a!, b!]);
  });

  it('embeds each pending memory once when the backfills of two nodes run at once, and takes over a dead node\'s claim', async () => {
    const [a, b] = await nodes(2);
    await a!.useModel(MODEL);
    await b!.useModel(MODEL);
    const app = await a!.ensureApp('default');
    const stored = Array.from({ length: 25 }, (_, i) => ({ ...memory(app.id, 'u', `pending memory ${i}`, [1, 0, 0, 0], i), embedding: null }));
    await a!.insertMemories(stored);
    // A node that claimed two memories and died: its lease (here 1 ms) runs out, and the live nodes take them over.
    expect(await b!.claimPendingVectors(2, 1)).toHaveLength(2);
    const embedded: string[] = [];
    const embedder = {
      model: MODEL.model,
      ready: () => Promise.resolve(MODEL),
      async embed(texts: readonly string[]) {
        embedded.push(...texts);
        // Slow enough that the nodes' rounds overlap.
        await new Promise((resolve) => setTimeout(resolve, 20));
        return texts.map(() => unit([0, 1, 0, 0]));
      },
      close: () => Promise.resolve(),
    };
    const embeddings = new EmbeddingState(embedder, Promise.resolve(MODEL));
    await embeddings.whenReady();
    const workers = [a!, b!].map((store) => new VectorBackfill({ store, embeddings, batchSize: 4 }));
    const filled = await Promise.all(
      workers.map(async (worker) => {
        let total = 0;
        for (;;) {
          const round = await worker.runOnce();
          if (round.claimed === 0) return total;
          total += round.filled;
        }
      }),
    );
    expect(filled[0]! + filled[1]!).toBe(25);
    expect(filled.every((n) => n > 0)).toBe(true);
    expect(embedded.sort()).toEqual(stored.map((m) => m.text).sort());
    expect(await a!.countPendingVectors()).toBe(0);
    await closeAll([a!, b!]);
  });
});

describe("PgStore: reembed's swap", () => {
  const NEXT = { model: 'next-vectors', dimension: 6 };

  async function vectorColumn(store: PgStore): Promise<{ type: string; hnsw: number; staging: number }> {
    const { rows } = await query<{ type: string; hnsw: string; staging: string }>(
      store.pool,
      `SELECT format_type(atttypid, atttypmod) AS type,
              (SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'memories_embedding_hnsw') AS hnsw,
              (SELECT count(*) FROM pg_class WHERE relname = 'reembed_vectors') AS staging
       FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attname = 'embedding' AND NOT attisdropped`,
    );
    return { type: rows[0]?.type ?? 'none', hnsw: Number(rows[0]?.hnsw), staging: Number(rows[0]?.staging) };
  }

  /** The column as this server makes it: pgvector's with its index, or plain bytes. */
  function column(dimension: number): { type: string; hnsw: number; staging: number } {
    return db.pgvector ? { type: `vector(${dimension})`, hnsw: 1, staging: 0 } : { type: 'bytea', hnsw: 0, staging: 0 };
  }

  it('replaces the column and its HNSW index, and every node on the old model is refused afterwards', async () => {
    const [store, node] = await nodes(2);
    await store!.useModel(MODEL);
    await node!.useModel(MODEL);
    const app = await store!.ensureApp('default');
    const stored = [memory(app.id, 'u', 'one', [1, 0, 0, 0], 1), memory(app.id, 'u', 'two', [0, 1, 0, 0], 2)];
    await store!.insertMemories(stored);
    expect(await vectorColumn(store!)).toEqual(column(4));

    const swapped = store!.replaceEmbeddings({
      model: NEXT,
      vectors: new Map(stored.map((m) => [m.id, unit([1, 2, 3, 4, 5, 6])])),
      embedMissing: () => Promise.reject(new Error('not expected')),
    });
    await expect(swapped.then(() => vectorColumn(store!))).resolves.toEqual(column(6));
    expect(await node!.getModel()).toEqual(NEXT);
    await expect(node!.useModel(MODEL)).rejects.toThrow(/built with the embedding model "next-vectors"/);
    await closeAll([store!, node!]);
  });

  it('keeps the column, its index and the model when the swap fails, and drops what it staged', async () => {
    const [store] = await nodes(1);
    await store!.useModel(MODEL);
    const app = await store!.ensureApp('default');
    await store!.insertMemory(memory(app.id, 'u', 'one', [1, 0, 0, 0]));
    await expect(
      store!.replaceEmbeddings({ model: NEXT, vectors: new Map(), embedMissing: () => Promise.reject(new Error('model crashed')) }),
    ).rejects.toThrow('model crashed');
    expect(await vectorColumn(store!)).toEqual(column(4));
    expect(await store!.getModel()).toEqual(MODEL);
    await store!.close();
  });
});

describe('PgStore without pgvector: plain vectors, exact scans', () => {
  it('keeps the vectors bit for bit in a bytea column that refuses another dimension, and warns at start', async () => {
    const warnings: Array<{ message: string; fields?: LogFields }> = [];
    const logger = { ...silentLogger, warn: (message: string, fields?: LogFields) => void warnings.push({ message, fields }) };
    const schema = db.newSchema();
    const store = await openPgStore(db.url, { schema, pgvector: false, logger });
    expect(warnings[0]?.message).toMatch(/^pgvector is not available: vectors are kept in a plain column/);
    // What the operator can do about it, for this server.
    expect(warnings[0]?.fields?.pgvector).toMatch(db.pgvector ? /is enabled, but this database keeps plain vectors: run reembed --force/ : /^not installed on the server$/);
    await store.useModel(MODEL);
    expect(store.vectorMode).toBe('plain');
    const app = await store.ensureApp('default');
    const exact = { ...memory(app.id, 'u', 'odd floats', [1, 0, 0, 0]), embedding: Float32Array.from([-0, 1e-38, 0.1, -3.4e38]) };
    await store.insertMemory(exact);
    const { memories } = await store.exportMemories(null, 10);
    const bytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    expect(bytes(memories[0]!.embedding!)).toEqual(bytes(exact.embedding!));
    const wrong = { ...memory(app.id, 'u', 'six', [1, 0, 0, 0]), embedding: unit([1, 2, 3, 4, 5, 6]) };
    await expect(store.insertMemory(wrong)).rejects.toMatchObject({ code: '23514' });
    // A second node on this database follows the column, whatever its own setting.
    const other = await openPgStore(db.url, { schema, logger });
    await other.useModel(MODEL);
    expect(other.vectorMode).toBe('plain');
    await closeAll([store, other]);
  });

  it('finds the same candidates with the same cosines as pgvector for the same data', async (ctx) => {
    if (!db.pgvector) ctx.skip('this server has no pgvector to compare with');
    const random = mulberry32(7);
    const next = () => random() - 0.5;
    const data = Array.from({ length: 300 }, (_, i) => ({ i, embedding: [next(), next(), next(), next()] }));
    const query = { userId: 'u', scope: { appId: null }, embedding: unit([0.3, -0.2, 0.9, 0.1]), vectorK: 25, alsoIds: ['mem_000000000299'] };
    // One store after the other: PGlite's one session cannot hold two search paths at once.
    const results = [];
    for (const pgvector of [true, false]) {
      const store = await openPgStore(db.url, { schema: db.newSchema(), pgvector });
      await store.useModel(MODEL);
      const app = await store.ensureApp('default');
      await store.insertMemories(data.map(({ i, embedding }) => ({ ...memory(app.id, 'u', `memory ${i}`, embedding, i), id: `mem_${String(i).padStart(12, '0')}` })));
      expect(store.vectorMode).toBe(pgvector ? 'pgvector' : 'plain');
      results.push((await store.recallCandidates(query)).sort((x, y) => (x.memory.id < y.memory.id ? -1 : 1)));
      await store.close();
    }
    const [a, b] = results as [Candidate[], Candidate[]];
    expect(b.map((c) => c.memory.id)).toEqual(a.map((c) => c.memory.id));
    expect(b).toHaveLength(26);
    b.forEach((c, i) => expect(c.cosine).toBeCloseTo(a[i]!.cosine, 6));
  });

  /** A store on a new schema kept in plain vectors (as on a server without pgvector), holding one memory. */
  async function plainWithOne(): Promise<{ schema: string; plain: PgStore; appId: string; stored: NewMemory }> {
    const schema = db.newSchema();
    const plain = await openPgStore(db.url, { schema, pgvector: false });
    await plain.useModel(MODEL);
    const appId = (await plain.ensureApp('default')).id;
    const stored = memory(appId, 'u', 'one', [1, 0, 0, 0]);
    await plain.insertMemory(stored);
    return { schema, plain, appId, stored };
  }

  it('moves a plain database onto pgvector with a reembed once pgvector is there', async (ctx) => {
    if (!db.pgvector) ctx.skip('this server has no pgvector');
    const { schema, plain, stored } = await plainWithOne();
    await plain.close();
    const store = await openPgStore(db.url, { schema });
    await store.useModel(MODEL);
    expect(store.vectorMode).toBe('plain');
    await store.replaceEmbeddings({ model: MODEL, vectors: new Map([[stored.id, unit([0, 1, 0, 0])]]), embedMissing: () => Promise.resolve([]) });
    expect(store.vectorMode).toBe('pgvector');
    const found = await store.recallCandidates({ userId: 'u', scope: { appId: null }, embedding: unit([0, 1, 0, 0]), vectorK: 5, alsoIds: [] });
    expect(found.map((c) => [c.memory.id, Math.round(c.cosine * 1e6) / 1e6])).toEqual([[stored.id, 1]]);
    await store.close();
  });

  it('follows the column when a reembed elsewhere moved it onto pgvector: one 503, never a 500', async (ctx) => {
    if (!db.pgvector) ctx.skip('this server has no pgvector');
    const { schema, plain: running, appId, stored: first } = await plainWithOne();
    const mover = await openPgStore(db.url, { schema });
    await mover.useModel(MODEL);
    await mover.replaceEmbeddings({ model: MODEL, vectors: new Map([[first.id, unit([1, 0, 0, 0])]]), embedMissing: () => Promise.resolve([]) });
    await mover.close();
    const search = { userId: 'u', scope: { appId: null }, embedding: unit([1, 0, 0, 0]), vectorK: 5, alsoIds: [] };
    await expect(running.recallCandidates(search)).rejects.toMatchObject({ code: 'unavailable', retryAfterSeconds: 1 });
    expect(running.vectorMode).toBe('pgvector');
    expect((await running.recallCandidates(search)).map((c) => c.memory.id)).toEqual([first.id]);
    await running.insertMemory(memory(appId, 'u', 'two', [0, 1, 0, 0]));
    await running.close();
  });
});

describe('PgStore specifics', () => {
  it('refuses what PostgreSQL cannot store (NUL in text, year 0) as validation errors, and ignores NUL in terms', async () => {
    const [store] = await nodes(1);
    await store!.useModel(MODEL);
    const app = await store!.ensureApp('default');
    const bad = store!.insertMemory(memory(app.id, 'u', 'a\u0000b', [1, 0, 0, 0]));
    await expect(bad).rejects.toMatchObject({ code: 'validation_error', details: [{ path: 'text' }] });
    const yearZero = { ...memory(app.id, 'u', 'ancient', [1, 0, 0, 0]), createdAt: '0000-06-01T00:00:00.000Z' };
    await expect(store!.insertMemory(yearZero)).rejects.toMatchObject({ code: 'validation_error', details: [{ path: 'createdAt' }] });
    await store!.insertMemory(memory(app.id, 'u', 'plain words', [1, 0, 0, 0]));
    const lists = await store!.findWordMatches({ userId: 'u', scope: { appId: null }, terms: ['wor\u0000d', '\u0000'], perTerm: 5 });
    expect(lists.map((l) => l.ids.length)).toEqual([1, 0]);
    await store!.close();
  });

  it('searches large users through the HNSW index without losing them among other users', async (ctx) => {
    if (!db.pgvector) ctx.skip('this server has no pgvector');
    const schema = db.newSchema();
    // A long statement timeout: PGlite builds the HNSW graph for the bulk insert below in a few seconds.
    const store = await openPgStore(db.url, { schema, exactScanLimit: 50, statementTimeoutMs: 60_000 });
    await store.useModel(MODEL);
    const app = await store.ensureApp('default');
    // 2,000 memories near the query, half of them ours: a plain filtered HNSW scan (ef_search 40) returns about
    // 20 of ours (14 when measured), fewer than the 30 asked; the iterative scan keeps going until it has 30.
    await query(
      store.pool,
      `INSERT INTO memories (id, uuid, user_id, app_id, text, created_at, updated_at, text_key, embedding)
       SELECT 'mem_' || lpad(i::text, 12, '0'), gen_random_uuid(), CASE WHEN i % 2 = 0 THEN 'ours' ELSE 'theirs' END, $1,
              'memory ' || i, now(), now(), md5('memory ' || i), ('[1,' || (random() / 10) || ',' || (random() / 10) || ',' || (random() / 10) || ']')::vector
       FROM generate_series(1, 2000) AS i`,
      [app.id],
    );
    await query(store.pool, 'ANALYZE memories');
    const target = memory(app.id, 'ours', 'the one', [1, 0, 0, 0]);
    await store.insertMemory(target);
    // With these statistics the planner takes the HNSW index for this user (the path under test); for a user with
    // a few hundred memories it would sort them exactly instead.
    const plan = await query<{ 'QUERY PLAN': string }>(
      store.pool,
      "EXPLAIN SELECT id FROM memories WHERE user_id = 'ours' ORDER BY embedding <=> '[1,0,0,0]'::vector LIMIT 30",
    );
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('memories_embedding_hnsw');
    const found = await store.recallCandidates({
      userId: 'ours',
      scope: { appId: null },
      embedding: unit([1, 0, 0, 0]),
      vectorK: 30,
      alsoIds: [],
    });
    expect(found).toHaveLength(30);
    expect(found.every((c) => c.memory.userId === 'ours')).toBe(true);
    expect(found.map((c) => c.memory.id)).toContain(target.id);
    await store.close();
  });

  it('finds the same memories by word as SQLite for one user, both indexing core\'s terms', async () => {
    const corpus = [
      'Caroline went to the LGBTQ support group on Tuesday and found it really moving.',
      'Melanie painted a sunrise over the lake last year.',
      'Caroline is researching adoption agencies because she wants to have a family.',
      'Melanie ran a charity race for mental health on Saturday.',
      'Caroline moved from Sweden four years ago.',
      'Melanie took her kids camping at the beach in June.',
      'The support group meets every week and Caroline rarely misses it.',
      'Melanie signed up for a pottery class and made a black and white bowl.',
      'Caroline wants to pursue a career in counseling and mental health.',
    ];
    // As the ranker's plan hands them to the store: index terms (stems).
    const terms = ['caroline', 'support', 'groups', 'melanie', 'paint', 'career', 'pursuing', 'pottery', 'bowl', 'mental', 'health', 'absent'].map(
      (word) => termsOf(analyzeText(word, 'en'))[0] as string,
    );
    const [pgStore] = await nodes(1);
    const sqlite = SqliteStore.open({ path: ':memory:' });
    const found: string[][][] = [];
    for (const store of [pgStore!, sqlite]) {
      await store.useModel(MODEL);
      const app = await store.ensureApp('default');
      const texts = new Map<string, string>();
      for (const [i, text] of corpus.entries()) {
        const m = memory(app.id, 'u', text, [0, 0, 0, 1], i);
        texts.set(m.id, text);
        await store.insertMemory(m);
      }
      const lists = await store.findWordMatches({ userId: 'u', scope: { appId: null }, terms, perTerm: 20 });
      found.push(lists.map((l) => l.ids.map((id) => texts.get(id) ?? id)));
    }
    expect(found[0]).toEqual(found[1]);
    expect(found[0]?.[0]).toHaveLength(5);
    await pgStore!.close();
    await sqlite.close();
  });
});

/** Awaits `promise`, expecting MemoryError 'unavailable'; returns it and how long the failure took. */
async function unavailable(promise: Promise<unknown>): Promise<{ error: MemoryError; ms: number }> {
  const start = Date.now();
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryError);
  expect((error as MemoryError).code).toBe('unavailable');
  return { error: error as MemoryError, ms: Date.now() - start };
}

describe('PgStore: what PostgreSQL says to retry', () => {
  /**
   * Makes the next `failures` inserts into memories fail as PostgreSQL fails a transaction that lost a
   * serialization conflict or a deadlock (alternately), with a real error from the server. The count lives in a
   * sequence, which a rollback does not undo.
   */
  async function failInserts(store: PgStore, failures: number): Promise<() => Promise<number>> {
    await query(
      store.pool,
      `CREATE SEQUENCE insert_attempts;
       CREATE FUNCTION fail_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE n bigint := nextval('insert_attempts');
       BEGIN
         IF n <= ${failures} THEN
           RAISE EXCEPTION 'conflict %', n USING ERRCODE = CASE WHEN n % 2 = 1 THEN '40001' ELSE '40P01' END;
         END IF;
         RETURN NEW;
       END $$;
       CREATE TRIGGER fail_inserts BEFORE INSERT ON memories FOR EACH ROW EXECUTE FUNCTION fail_inserts()`,
    );
    return async () => Number((await query<{ n: string }>(store.pool, 'SELECT last_value AS n FROM insert_attempts')).rows[0]?.n);
  }

  it('runs a store again after a serialization failure and a deadlock, and stores it once with its claim', async () => {
    const [store] = await nodes(1);
    await store!.useModel(MODEL);
    const app = await store!.ensureApp('default');
    const attempts = await failInserts(store!, 2);
    const claim = {
      keyId: 'key_r',
      key: 'k-1',
      requestHash: 'h',
      response: '{}',
      notBefore: '2000-01-01T00:00:00.000Z',
      duplicateResponse: () => '{"duplicate":true}',
    };
    expect(await store!.insertMemory(memory(app.id, 'u', 'third time lucky', [1, 0, 0, 0]), claim)).toEqual({ kind: 'created' });
    expect(await attempts()).toBe(3);
    expect(await store!.countMemories()).toBe(1);
    // The claims of the rolled-back attempts went with them: the key replays the one stored memory.
    expect(await store!.findIdempotency('key_r', 'k-1', claim.notBefore)).toMatchObject({ requestHash: 'h' });
    await store!.close();
  });

  it('gives up after a bounded number of tries with 503 unavailable and Retry-After, quickly', async () => {
    const [store] = await nodes(1);
    await store!.useModel(MODEL);
    const app = await store!.ensureApp('default');
    const attempts = await failInserts(store!, 1_000);
    const started = Date.now();
    const { error } = await unavailable(store!.insertMemory(memory(app.id, 'u', 'never', [1, 0, 0, 0])));
    expect(error.retryAfterSeconds).toBe(1);
    expect(await attempts()).toBe(CONFLICT_RETRY.attempts);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await store!.countMemories()).toBe(0);
    await store!.close();
  });
});

describe('PgStore when the database goes away', () => {
  it('fails fast with unavailable while the server is down, and recovers when it is back', async () => {
    const store = await openPgStore(db.url, { schema: db.newSchema(), connectTimeoutMs: 1_000 });
    await store.useModel({ model: 'm', dimension: 2 });
    expect(await store.countMemories()).toBe(0);
    await db.proxy.stop();
    try {
      const { error, ms } = await unavailable(store.countMemories());
      expect(ms).toBeLessThan(2_000);
      expect(error.message).toBe('The database is unavailable; retry shortly.');
      expect(error.retryAfterSeconds).toBeGreaterThan(0);
      await unavailable(store.ensureApp('x'));
      await unavailable(store.findWordMatches({ userId: 'u', scope: { appId: null }, terms: ['x'], perTerm: 5 }));
      await unavailable(store.recallCandidates({ userId: 'u', scope: { appId: null }, embedding: Float32Array.from([1, 0]), vectorK: 5, alsoIds: [] }));
      expect(await store.ping()).toBe(false);
    } finally {
      await db.proxy.start();
    }
    expect(await store.ping()).toBe(true);
    expect(await store.countMemories()).toBe(0);
    await store.close();
  });

  it('times out a hung database instead of waiting for it', async () => {
    const store = await openPgStore(db.url, { schema: db.newSchema(), statementTimeoutMs: 300, connectTimeoutMs: 500 });
    expect(await store.countMemories()).toBe(0);
    db.proxy.freeze();
    try {
      const { ms } = await unavailable(store.countMemories());
      // statementTimeoutMs + the client's one-second backstop, give or take.
      expect(ms).toBeLessThan(3_000);
      // A new connection cannot even finish its handshake.
      const opening = await unavailable(openPgStore(db.url, { connectTimeoutMs: 500 }));
      expect(opening.ms).toBeLessThan(2_000);
    } finally {
      db.proxy.thaw();
    }
    expect(await store.countMemories()).toBe(0);
    await store.close();
  });

  it('refuses to open on a server that is not there, without showing the password', async () => {
    const url = 'postgres://agent:hunter2-secret@127.0.0.1:1/memories';
    const { error, ms } = await unavailable(openPgStore(url, { connectTimeoutMs: 1_000 }));
    expect(ms).toBeLessThan(2_000);
    expect(error.message).not.toContain('hunter2');
    expect(JSON.stringify(error.toBody())).not.toContain('hunter2');
  });
});

describe('PgRateLimiter', () => {
  let store: PgStore;
  let schema: string;
  beforeAll(async () => {
    schema = db.newSchema();
    store = await openPgStore(db.url, { schema });
  });
  afterAll(async () => {
    await store?.close();
  });

  it('holds one limit across nodes', async () => {
    const other = await openPgStore(db.url, { schema });
    const nodeA = new PgRateLimiter(store.pool, { perMinute: 60, burst: 3 });
    const nodeB = new PgRateLimiter(other.pool, { perMinute: 60, burst: 3 });
    const decisions = await Promise.all([nodeA, nodeB, nodeA, nodeB, nodeA].map((l) => l.take('key_shared')));
    expect(decisions.filter((d) => d?.allowed)).toHaveLength(3);
    const refused = decisions.find((d) => d && !d.allowed);
    expect(refused).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(refused?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await nodeB.take('key_other'))?.allowed).toBe(true);
    await other.close();
  });

  it('spends every token once when 4 nodes take 400 at once (parallel sessions on a real server)', async () => {
    const others = await Promise.all(Array.from({ length: 3 }, () => openPgStore(db.url, { schema })));
    // One token a minute: the 100 of the burst are all there is during the test.
    const limiters = [store, ...others].map((s) => new PgRateLimiter(s.pool, { perMinute: 1, burst: 100 }));
    const decisions = await Promise.all(Array.from({ length: 400 }, (_, i) => limiters[i % 4]!.take('key_parallel')));
    const allowed = decisions.filter((d) => d?.allowed);
    expect(allowed).toHaveLength(100);
    // Each allowed take saw the bucket after its own token left: 99 down to 0, each once.
    expect(new Set(allowed.map((d) => d?.remaining)).size).toBe(100);
    await closeAll(others);
  });

  it('refills with time like the in-process bucket', async () => {
    let now = Date.UTC(2024, 0, 1);
    const limiter = new PgRateLimiter(store.pool, { perMinute: 60, burst: 2, now: () => now });
    expect(await limiter.take('key_t')).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 1, retryAfterSeconds: 0 });
    expect((await limiter.take('key_t'))?.allowed).toBe(true);
    expect(await limiter.take('key_t')).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 2, retryAfterSeconds: 1 });
    now += 1_000;
    expect((await limiter.take('key_t'))?.allowed).toBe(true);
    now += 60_000;
    expect((await limiter.take('key_t'))?.remaining).toBe(1);
  });

  it('prunes buckets idle long enough to be full again, in bounded batches, and keeps the others', async () => {
    const own = await openPgStore(db.url, { schema: db.newSchema() });
    let now = Date.UTC(2024, 5, 1);
    // 60 a minute with a burst of 60: an empty bucket is full again after 60 s.
    const limiter = new PgRateLimiter(own.pool, { perMinute: 60, burst: 60, now: () => now });
    for (const key of ['key_a', 'key_b', 'key_c']) await limiter.take(key);
    now += 30_000;
    await limiter.take('key_recent');
    now += 30_500;
    const keys = async () => (await query<{ key_id: string }>(own.pool, 'SELECT key_id FROM rate_buckets ORDER BY key_id')).rows.map((r) => r.key_id);
    expect(await limiter.prune(2)).toBe(2);
    expect(await limiter.prune(2)).toBe(1);
    expect(await keys()).toEqual(['key_recent']);
    // Requests prune by themselves, at most once a minute, in the background: the one that pokes is answered as usual.
    now += 60_000;
    await limiter.take('key_new');
    expect((await limiter.take('key_new'))?.remaining).toBe(58);
    await vi.waitFor(async () => expect(await keys()).toEqual(['key_new']));
    await own.close();
  });

  it('is off at 0 per minute, and unavailable when the database is', async () => {
    expect(await new PgRateLimiter(store.pool, { perMinute: 0 }).take('k')).toBeNull();
    await db.proxy.stop();
    try {
      await unavailable(new PgRateLimiter(store.pool, { perMinute: 10 }).take('k'));
    } finally {
      await db.proxy.start();
    }
  });
});
