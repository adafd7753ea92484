import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyStore } from '../../src/core/copy.js';
import { streamSink } from '../../src/cli/commands/export.js';
import { exportJsonl } from '../../src/core/export.js';
import type { ImportTarget } from '../../src/core/import.js';
import { importJsonlFile } from '../../src/runtime/jsonl-file.js';
import { main } from '../../src/cli/main.js';
import { createProgress } from '../../src/cli/progress.js';
import { newMemoryId, newUuid } from '../../src/core/ids.js';
import type { MemoryStore } from '../../src/core/store.js';
import { openPgStore } from '../../src/storage/postgres/index.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { hashVector } from '../helpers/memories.js';
import { useTestDatabase } from '../helpers/postgres.js';

const DIM = 16;

/** A stand-in model, so tests run without loading USE-lite. */
function fakeVector(text: string): Float32Array {
  return hashVector(text, DIM);
}

let dir: string;
let store: SqliteStore;
let embedCalls: string[][];

function target(options: { failOnCall?: number } = {}): ImportTarget {
  return {
    store,
    async embed(texts) {
      embedCalls.push(texts);
      if (options.failOnCall !== undefined && embedCalls.length === options.failOnCall) throw new Error('model crashed');
      return texts.map(fakeVector);
    },
  };
}

function writeLines(name: string, lines: readonly (string | object)[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return path;
}

async function exportAll(from: MemoryStore = store, userId?: string): Promise<string[]> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  await exportJsonl(from, streamSink(out), { userId });
  out.end();
  return Buffer.concat(chunks).toString('utf8').split('\n').filter((l) => l.length > 0);
}

type BackendKind = 'sqlite' | 'postgres';
const pg = useTestDatabase();
const opened: MemoryStore[] = [];

/** A new empty store on either backend, with the fake model declared; closed after the test. */
async function freshStore(kind: BackendKind): Promise<MemoryStore> {
  const fresh = kind === 'sqlite' ? SqliteStore.open({ path: join(dir, `${newUuid()}.db`) }) : await openPgStore(pg().url, { schema: pg().newSchema() });
  opened.push(fresh);
  await fresh.useModel({ model: 'fake', dimension: DIM });
  return fresh;
}

const fakeTarget = (into: MemoryStore): ImportTarget => ({ store: into, embed: (texts) => Promise.resolve(texts.map(fakeVector)) });


const count = () => (store.database.prepare('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-import-'));
  store = SqliteStore.open({ path: join(dir, 'm.db') });
  await store.useModel({ model: 'fake', dimension: DIM });
  embedCalls = [];
});
afterEach(async () => {
  await store.close();
  for (const other of opened.splice(0)) await other.close();
  rmSync(dir, { recursive: true, force: true });
});

const ROUND_TRIP_INPUT = [
  { userId: 'alice', text: 'Alice likes green tea.', createdAt: '2024-03-01T10:00:00.000Z' },
  {
    userId: 'alice',
    text: 'Alice moved to Lyon.',
    appId: 'travel',
    metadata: { source: 'chat', tags: ['move'] },
    createdAt: '2024-03-02T10:00:00.000Z',
    updatedAt: '2024-04-02T10:00:00.000Z',
    expiresAt: '2999-01-01T00:00:00Z',
  },
  { userId: 'bob', text: 'Bob has a cat named Miso.', id: 'crm-42', createdAt: '2024-03-03T09:00:00+01:00' },
  { userId: 'bob', text: 'Bob has a cat named Miso.', createdAt: '2024-03-03T09:00:00.000Z' },
];

// The lifecycle fields travel: updatedAt always (createdAt until an update), expiresAt when the memory expires.
const ROUND_TRIP_OUTPUT = [
  { userId: 'alice', text: 'Alice likes green tea.', appId: 'default', metadata: {}, createdAt: '2024-03-01T10:00:00.000Z', updatedAt: '2024-03-01T10:00:00.000Z' },
  {
    userId: 'alice',
    text: 'Alice moved to Lyon.',
    appId: 'travel',
    metadata: { source: 'chat', tags: ['move'] },
    createdAt: '2024-03-02T10:00:00.000Z',
    updatedAt: '2024-04-02T10:00:00.000Z',
    expiresAt: '2999-01-01T00:00:00.000Z',
  },
  {
    userId: 'bob',
    text: 'Bob has a cat named Miso.',
    appId: 'default',
    metadata: { externalId: 'crm-42' },
    createdAt: '2024-03-03T08:00:00.000Z',
    updatedAt: '2024-03-03T08:00:00.000Z',
  },
  { userId: 'bob', text: 'Bob has a cat named Miso.', appId: 'default', metadata: {}, createdAt: '2024-03-03T09:00:00.000Z', updatedAt: '2024-03-03T09:00:00.000Z' },
];

describe.each<BackendKind>(['sqlite', 'postgres'])('import and export on %s', (kind) => {
  it('round-trips: export writes exactly what import reads', async () => {
    const into = await freshStore(kind);
    const file = writeLines('in.jsonl', ROUND_TRIP_INPUT);
    const calls: number[] = [];
    const result = await importJsonlFile(
      { store: into, embed: (texts) => (calls.push(texts.length), Promise.resolve(texts.map(fakeVector))) },
      file,
      { batchSize: 3 },
    );
    expect(result).toMatchObject({ lines: 4, imported: 4, present: 0, invalid: 0 });
    // One embedding call per batch.
    expect(calls).toEqual([3, 1]);

    const exported = await exportAll(into);
    expect(exported.map((l) => JSON.parse(l))).toEqual(ROUND_TRIP_OUTPUT);
    // The vectors are the model's, and recall finds the imported memories.
    const found = await into.recallCandidates({
      userId: 'alice',
      scope: { appId: null },
      embedding: fakeVector('Alice moved to Lyon.'),
      vectorK: 1,
      alsoIds: [],
    });
    expect(found[0]?.memory.text).toBe('Alice moved to Lyon.');
    expect(found[0]?.cosine).toBeCloseTo(1, 5);
    // One user's memories only, still oldest first.
    expect(await exportAll(into, 'bob')).toEqual(exported.slice(2));
    expect(await exportAll(into, 'nobody')).toEqual([]);

    // The export imports into a fresh database as the same lines.
    await into.close();
    const copy = await freshStore(kind);
    const again = await importJsonlFile(fakeTarget(copy), writeLines('out.jsonl', exported));
    expect(again.imported).toBe(4);
    expect(await exportAll(copy)).toEqual(exported);
  });
});

describe.each<BackendKind>(['sqlite', 'postgres'])('caller keys through export, import and copy on %s', (kind) => {
  const keyed = async (into: MemoryStore, key: string, text: string, userId = 'kay') => {
    const appId = (await into.ensureApp('default')).id;
    const memory = { id: newMemoryId(), uuid: newUuid(), userId, appId, key, text, metadata: { k: key }, createdAt: '2024-05-01T00:00:00.000Z' };
    return into.upsertMemory({ ...memory, embedding: fakeVector(text) }, new Date().toISOString());
  };

  it('exports the key, imports it back onto the same key once, and reports a key held by another memory', async () => {
    const source = await freshStore(kind);
    await keyed(source, 'profile:city', 'Kay lives in Oslo.');
    await keyed(source, 'pet', 'Kay has a dog.');
    await keyed(source, 'pet', 'Kay has a dog named Rex.');
    const exported = await exportAll(source);
    const lines = exported.map((l) => JSON.parse(l) as { key?: string; text: string });
    // Both were created at one instant: ordered by their (random) ids.
    expect(lines.sort((a, b) => String(a.key).localeCompare(String(b.key)))).toEqual([
      expect.objectContaining({ key: 'pet', text: 'Kay has a dog named Rex.' }),
      expect.objectContaining({ key: 'profile:city', text: 'Kay lives in Oslo.' }),
    ]);
    await source.close();

    const target = await freshStore(kind);
    const appId = (await target.ensureApp('default')).id;
    expect(await importJsonlFile(fakeTarget(target), writeLines('keys.jsonl', exported))).toMatchObject({ imported: 2, collisions: 0 });
    // The same lines; their order (one instant, then the memories' random ids) is not the point.
    expect((await exportAll(target)).sort()).toEqual([...exported].sort());
    const pet = await target.getMemoryByKey({ userId: 'kay', appId, key: 'pet' }, new Date().toISOString());
    expect(pet).toMatchObject({ key: 'pet', text: 'Kay has a dog named Rex.' });
    // Again: the same key maps to the same memory, nothing is added.
    expect(await importJsonlFile(fakeTarget(target), writeLines('keys.jsonl', exported))).toMatchObject({ imported: 0, present: 2 });

    // A key another memory holds (stored through the API) is a collision: an import never replaces a memory.
    await keyed(target, 'taken', 'Held by the API.');
    const bad: Array<[number, string]> = [];
    const result = await importJsonlFile(
      fakeTarget(target),
      writeLines('taken.jsonl', [{ userId: 'kay', key: 'taken', text: 'From the file.' }, { userId: 'kay', key: 'free', text: 'New here.' }]),
      { onInvalid: (n, m) => bad.push([n, m]) },
    );
    expect(result).toMatchObject({ imported: 1, collisions: 1 });
    expect(bad[0]?.[0]).toBe(1);
    expect(bad[0]?.[1]).toMatch(/^key "taken" is already held by the memory mem_\w+ of this user and app; this line is not imported\.$/);
    expect((await target.getMemoryByKey({ userId: 'kay', appId, key: 'taken' }, new Date().toISOString()))?.text).toBe('Held by the API.');
  });

  it('refuses a bad key in a line with its line number', async () => {
    const into = await freshStore(kind);
    const bad: Array<[number, string]> = [];
    const result = await importJsonlFile(
      fakeTarget(into),
      writeLines('bad-keys.jsonl', [{ userId: 'u', key: 'a/b', text: 'x' }, { userId: 'u', key: '', text: 'y' }, { userId: 'u', key: 'ok', text: 'z' }]),
      { onInvalid: (n, m) => bad.push([n, m]) },
    );
    expect(result).toMatchObject({ imported: 1, invalid: 2 });
    expect(bad).toEqual([
      [1, 'key: key must not contain "/".'],
      [2, 'key: key must not be empty.'],
    ]);
  });

  it('copy keeps every key, so the copy answers by key with the same memory', async () => {
    const source = await freshStore(kind);
    const { memory } = await keyed(source, 'moved', 'Kay keeps bees.');
    const other = await freshStore(kind === 'sqlite' ? 'postgres' : 'sqlite');
    await copyStore(source, other);
    const appId = (await other.ensureApp('default')).id;
    const copied = await other.getMemoryByKey({ userId: 'kay', appId, key: 'moved' }, new Date().toISOString());
    expect(copied).toMatchObject({ id: memory.id, key: 'moved', text: 'Kay keeps bees.', createdAt: memory.createdAt });
    // The unique key holds in the copy too: an upsert there replaces the copied memory.
    expect(await keyed(other, 'moved', 'Kay keeps many bees.')).toMatchObject({ kind: 'updated', memory: { id: memory.id } });
  });
});

describe('export across backends', () => {
  it('gives the same lines from PostgreSQL as from SQLite, oldest first, and orders ties alike', async () => {
    const sqlite = await freshStore('sqlite');
    const postgres = await freshStore('postgres');
    // (PGlite serves every connection from one session, whose search_path the last schema opened sets: the tests
    // here keep one PostgreSQL schema open at a time.)
    // Out of time order in the file, across users and apps.
    const many = Array.from({ length: 30 }, (_, i) => ({
      userId: `u${i % 3}`,
      text: `fact ${i}`,
      createdAt: `2024-0${1 + (i % 5)}-01T00:${String(i).padStart(2, '0')}:00.000Z`,
      ...(i % 4 === 0 ? { appId: 'other' } : {}),
    }));
    const file = writeLines('many.jsonl', [...ROUND_TRIP_INPUT, ...many]);
    await importJsonlFile(fakeTarget(sqlite), file);
    const fromSqlite = await exportAll(sqlite);
    expect(fromSqlite).toHaveLength(34);
    // SQLite's export imported into PostgreSQL exports as the very same lines.
    await importJsonlFile(fakeTarget(postgres), writeLines('from-sqlite.jsonl', fromSqlite));
    expect(await exportAll(postgres)).toEqual(fromSqlite);
    await postgres.close();
    const created = fromSqlite.map((l) => (JSON.parse(l) as { createdAt: string }).createdAt);
    expect(created).toEqual([...created].sort());
    // Memories of one instant (an import without createdAt) are ordered by id: an import assigns new ids, so only
    // the same memories, ids included (as `copy` moves them), are scanned in the very same order on both backends.
    const instant = Array.from({ length: 12 }, (_, i) => ({ userId: `u${i % 2}`, text: `same time ${i}`, createdAt: '2024-01-01T00:00:00.000Z' }));
    await importJsonlFile(fakeTarget(sqlite), writeLines('instant.jsonl', instant));
    const copied = await freshStore('postgres');
    await copyStore(sqlite, copied);
    const order = async (from: MemoryStore): Promise<string[]> => {
      const ids: string[] = [];
      await from.scanMemories({ pageSize: 7 }, (page) => {
        ids.push(...page.memories.map((m) => m.id));
        return Promise.resolve();
      });
      return ids;
    };
    const sqliteOrder = await order(sqlite);
    expect(sqliteOrder).toHaveLength(46);
    expect(await order(copied)).toEqual(sqliteOrder);
  });
});

describe('import and export', () => {
  it('resumes after a crash without duplicates, embedding only what is missing', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => ({ userId: `u${i % 2}`, text: `fact number ${i}` }));
    // Two identical lines: both are memories, on the first run and on the resume.
    lines.push({ userId: 'u0', text: 'fact number 0' });
    const file = writeLines('in.jsonl', lines);
    await expect(importJsonlFile(target({ failOnCall: 3 }), file, { batchSize: 3 })).rejects.toThrow(/model crashed/);
    const afterCrash = count();
    // Whole batches only: the third batch and later are not in, nothing is half-written.
    expect(afterCrash % 3).toBe(0);
    expect(afterCrash).toBeGreaterThanOrEqual(3);
    expect(afterCrash).toBeLessThanOrEqual(6);
    const vectors = (store.database.prepare('SELECT COUNT(*) AS n FROM memory_vectors').get() as { n: number }).n;
    expect(vectors).toBe(afterCrash);

    embedCalls = [];
    const resumed = await importJsonlFile(target(), file, { batchSize: 3 });
    expect(resumed).toMatchObject({ lines: 11, imported: 11 - afterCrash, present: afterCrash, invalid: 0 });
    expect(embedCalls.flat()).toHaveLength(11 - afterCrash);
    expect(count()).toBe(11);

    // A third run stores and embeds nothing.
    embedCalls = [];
    expect(await importJsonlFile(target(), file)).toMatchObject({ imported: 0, present: 11 });
    expect(embedCalls).toEqual([]);
    const texts = (store.database.prepare("SELECT text FROM memories WHERE text = 'fact number 0'").all() as unknown[]).length;
    expect(texts).toBe(2);
  });

  it('keeps one memory per external id', async () => {
    const file = writeLines('ids.jsonl', [
      { userId: 'u', text: 'first version', id: 'x-1' },
      { userId: 'u', text: 'first version', id: 'x-1' },
      { userId: 'u', text: 'another', id: 'x-2', metadata: { externalId: 'x-2' } },
    ]);
    expect(await importJsonlFile(target(), file)).toMatchObject({ imported: 2, present: 1 });
    expect(await importJsonlFile(target(), file)).toMatchObject({ imported: 0, present: 3 });
  });

  it('reports bad lines with their numbers and imports the rest; --strict refuses the file', async () => {
    const file = writeLines('bad.jsonl', [
      { userId: 'u', text: 'good one' },
      '{"userId": "u", "text": ',
      { userId: 'u' },
      '',
      { userId: 'u', text: 'unknown field', colour: 'blue' },
      { userId: 'u', text: 'from the future', createdAt: '2999-01-01T00:00:00Z' },
      { userId: 'u', text: 'no such app', appId: '00000000-0000-4000-8000-000000000000' },
      '[1, 2]',
      { userId: 'u', text: 'clash', id: 'a', metadata: { externalId: 'b' } },
      { userId: 'u', text: 'good two' },
    ]);
    const strictBad: Array<[number, string]> = [];
    const refused = await importJsonlFile(target(), file, { strict: true, onInvalid: (n, m) => strictBad.push([n, m]) });
    expect(refused).toMatchObject({ refused: true, imported: 0 });
    expect(count()).toBe(0);
    expect(embedCalls).toEqual([]);
    // The app UUID is only checked while importing; every other bad line is found by --strict.
    expect(strictBad.map(([n]) => n)).toEqual([2, 3, 5, 6, 8, 9]);

    const bad: Array<[number, string]> = [];
    const result = await importJsonlFile(target(), file, { onInvalid: (n, m) => bad.push([n, m]) });
    expect(result).toMatchObject({ lines: 9, imported: 2, invalid: 7, refused: false });
    expect(bad.map(([n]) => n)).toEqual([2, 3, 5, 6, 7, 8, 9]);
    const byLine = new Map(bad);
    expect(byLine.get(2)).toMatch(/not valid JSON/);
    expect(byLine.get(3)).toMatch(/text/);
    expect(byLine.get(5)).toMatch(/colour/);
    expect(byLine.get(6)).toMatch(/future/);
    expect(byLine.get(7)).toMatch(/appId: No app has this UUID/);
    expect(byLine.get(8)).toMatch(/JSON object/);
    expect(byLine.get(9)).toMatch(/externalId/);
    expect((await exportAll()).map((l) => (JSON.parse(l) as { text: string }).text)).toEqual(['good one', 'good two']);
  });
});

describe('round trips and collisions', () => {
  it('keeps every memory of an export, also memories that share metadata.externalId', async () => {
    const appId = (await store.ensureApp('default')).id;
    const shared = (text: string, minute: number) => ({
      id: newMemoryId(),
      uuid: newUuid(),
      userId: 'dana',
      appId,
      text,
      metadata: { externalId: 'ticket-7' },
      createdAt: new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString(),
      embedding: fakeVector(text),
    });
    await store.insertMemories([shared('Dana opened ticket 7.', 1), shared('Dana closed ticket 7.', 2), shared('Dana reopened ticket 7.', 3)]);
    const exported = await exportAll();
    const copy = await freshStore('sqlite');
    const result = await importJsonlFile(fakeTarget(copy), writeLines('shared.jsonl', exported));
    expect(result).toMatchObject({ imported: 3, present: 0, collisions: 0 });
    expect(await exportAll(copy)).toEqual(exported);
  });

  it('reports an id stored (or used earlier in the file) with another text as a collision, with its line number', async () => {
    expect(await importJsonlFile(target(), writeLines('first.jsonl', [{ userId: 'u', text: 'Version one.', id: 'doc-1' }]))).toMatchObject({ imported: 1 });
    const bad: Array<[number, string]> = [];
    const file = writeLines('second.jsonl', [
      { userId: 'u', text: 'Version one.', id: 'doc-1' },
      { userId: 'u', text: 'Version two.', id: 'doc-1' },
      { userId: 'u', text: 'Fresh.', id: 'doc-2' },
      { userId: 'u', text: 'Fresh, but changed.', id: 'doc-2' },
    ]);
    const result = await importJsonlFile(target(), file, { onInvalid: (n, m) => bad.push([n, m]) });
    expect(result).toMatchObject({ imported: 1, present: 1, collisions: 2, invalid: 0 });
    expect(bad).toEqual([
      [2, 'id "doc-1" is already stored with another text or metadata; this line is not imported.'],
      [4, 'id "doc-2" was used by line 3 with another text or metadata; this line is not imported.'],
    ]);
  });
});

describe('reading the input', () => {
  it('reads stdin (-), accepts a UTF-8 BOM and CRLF, and reports lines too long or not UTF-8 by number', async () => {
    const long = JSON.stringify({ userId: 'u', text: 'x'.repeat(10), metadata: { pad: 'y'.repeat(1024 * 1024) } });
    const input = Buffer.concat([
      Buffer.from('\uFEFF{"userId":"u","text":"First, after a BOM."}\r\n'),
      Buffer.from(`${long}\n`),
      Buffer.from('{"userId":"u","text":"Bad byte '),
      Buffer.from([0xff]),
      Buffer.from('"}\n{"userId":"u","text":"Last."}'),
    ]);
    const bad: Array<[number, string]> = [];
    const result = await importJsonlFile(target(), '-', { stdin: Readable.from([input.subarray(0, 7), input.subarray(7)]), onInvalid: (n, m) => bad.push([n, m]) });
    expect(result).toMatchObject({ lines: 4, imported: 2, invalid: 2 });
    expect(bad).toEqual([
      [2, 'the line is longer than 1048576 bytes.'],
      [3, 'the line is not valid UTF-8.'],
    ]);
    expect((await exportAll()).map((l) => (JSON.parse(l) as { text: string }).text).sort()).toEqual(['First, after a BOM.', 'Last.']);
  });

  it('counts progress by what is stored, not by what was read ahead', async () => {
    const lines = Array.from({ length: 600 }, (_, i) => ({ userId: 'u', text: `Progress fact ${i}.` }));
    const file = writeLines('progress.jsonl', lines);
    const total = statSync(file).size;
    const seen: Array<{ bytes: number; stored: number }> = [];
    await importJsonlFile(target(), file, { batchSize: 64, onProgress: (p) => seen.push({ bytes: p.bytes, stored: p.imported + p.present }) });
    // The file fits in one read chunk: counting bytes read said 100% after the first batch of 64.
    for (const { bytes, stored } of seen) {
      expect(bytes / total).toBeCloseTo(stored / 600, 1);
      if (stored < 600) expect(bytes).toBeLessThan(total);
    }
    expect(seen.at(-1)).toEqual({ bytes: total, stored: 600 });
  });
});

describe('progress', () => {
  function sink(isTTY: boolean) {
    const chunks: string[] = [];
    return { chunks, stream: { isTTY, columns: 80, write: (c: string) => chunks.push(c) > 0 } };
  }

  it('redraws one line on a terminal and prints plain periodic lines elsewhere', () => {
    let now = 0;
    const tty = sink(true);
    const bar = createProgress({ label: 'import', stream: tty.stream, now: () => now });
    for (let i = 1; i <= 10; i++) {
      now += 50;
      bar.update({ done: i * 10, total: 100, detail: `${i * 10} imported` });
    }
    bar.done();
    expect(tty.chunks.every((c) => c.startsWith('\r'))).toBe(true);
    expect(tty.chunks.some((c) => /\[#+\.*\]\s+50%/.test(c))).toBe(true);
    expect(tty.chunks.at(-2)).toMatch(/100% 100\/100/);
    expect(tty.chunks.join('')).not.toContain('\n');

    now = 0;
    const plain = sink(false);
    const lines = createProgress({ label: 'import', stream: plain.stream, now: () => now, lineIntervalMs: 1000 });
    for (let i = 1; i <= 10; i++) {
      now += 250;
      lines.update({ done: i * 10, total: 100 });
    }
    lines.done();
    expect(plain.chunks.length).toBeGreaterThanOrEqual(2);
    expect(plain.chunks.length).toBeLessThanOrEqual(4);
    expect(plain.chunks.every((c) => c.endsWith('\n') && !c.includes('\r'))).toBe(true);
    expect(plain.chunks[0]).toMatch(/^import:\s+\d+% \d+\/100/);
  });
});

describe('agent-memory export on PostgreSQL (CLI)', () => {
  // A server of its own: the CLI works in the public schema, which the other tests' schemas would shadow.
  const own = useTestDatabase();

  it('exports with --database-url to a file, or one user, leaving no temporary file', async () => {
    const shared = await openPgStore(own().url);
    opened.push(shared);
    await shared.useModel({ model: 'fake', dimension: DIM });
    await importJsonlFile(fakeTarget(shared), writeLines('in.jsonl', ROUND_TRIP_INPUT));
    const notices: string[] = [];
    const out = { print: (l: string) => notices.push(l), notice: (l: string) => notices.push(l) };
    const read = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);

    const all = join(dir, 'pg.jsonl');
    expect(await main(['export', all, '--database-url', own().url], out)).toBe(0);
    expect(read(all)).toEqual(ROUND_TRIP_OUTPUT);
    const bob = join(dir, 'bob.jsonl');
    expect(await main(['export', bob, '--database-url', own().url, '--user-id', 'bob'], out)).toBe(0);
    expect(read(bob)).toEqual(ROUND_TRIP_OUTPUT.slice(2));
    expect(notices.join('\n')).toMatch(/Exported 4 memories to .*pg\.jsonl/);
    expect(notices.join('\n')).toMatch(/Exported 2 memories of user "bob"/);
    const travel = join(dir, 'travel.jsonl');
    expect(await main(['export', travel, '--database-url', own().url, '--app-id', 'travel'], out)).toBe(0);
    expect(read(travel)).toEqual(ROUND_TRIP_OUTPUT.filter((l) => l.appId === 'travel'));
    expect(await main(['export', join(dir, 'none.jsonl'), '--database-url', own().url, '--app-id', 'nope'], out)).toBe(1);
    expect(notices.join('\n')).toMatch(/no app is called "nope"/);
    expect(await main(['export', all, '--database-url', own().url], out)).toBe(1);
    expect(readdirSync(dir).filter((name) => name.includes('partial'))).toEqual([]);
  });
});

describe('agent-memory import / export (CLI, real model)', () => {
  it('imports with the embedding model and exports to a file', async () => {
    const db = join(dir, 'cli.db');
    const file = writeLines('cli.jsonl', [
      { userId: 'carol', text: 'Carol plays the cello in a quartet.' },
      { userId: 'carol', text: 'Carol is allergic to peanuts.', metadata: { source: 'intake' } },
      'not json',
    ]);
    const notices: string[] = [];
    const out = { print: (l: string) => notices.push(l), notice: (l: string) => notices.push(l) };
    // One bad line: the good ones are imported and the exit code says something was skipped.
    expect(await main(['import', file, '--db', db, '--batch', '8', '--log-level', 'error'], out)).toBe(1);
    expect(notices.join('\n')).toMatch(/line 3: not valid JSON/);
    expect(notices.join('\n')).toMatch(/Imported 2 memories/);

    const exported = join(dir, 'out.jsonl');
    expect(await main(['export', exported, '--db', db], out)).toBe(0);
    const lines = readFileSync(exported, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { text: string; metadata: unknown });
    // Imported in the same millisecond (no createdAt): oldest first leaves their order to their random ids.
    expect(lines.map((l) => l.text).sort()).toEqual(['Carol is allergic to peanuts.', 'Carol plays the cello in a quartet.']);
    expect(lines.find((l) => l.text.includes('peanuts'))?.metadata).toEqual({ source: 'intake' });
    // Never overwrites; running the same import again stores nothing (and the bad line is still reported).
    expect(await main(['export', exported, '--db', db], out)).toBe(1);
    expect(existsSync(`${exported}.partial`)).toBe(false);
    notices.length = 0;
    expect(await main(['import', file, '--db', db, '--log-level', 'error'], out)).toBe(1);
    expect(notices.join('\n')).toMatch(/Imported 0 memories .* 2 were already there; 1 invalid line/);

    const check = SqliteStore.open({ path: db });
    expect(await check.getModel()).toEqual({ model: 'use-lite', dimension: 512 });
    expect((check.database.prepare('SELECT COUNT(*) AS n FROM memory_vectors').get() as { n: number }).n).toBe(2);
    await check.close();
  }, 120_000);
});
