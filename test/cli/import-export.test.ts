import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportJsonl } from '../../src/cli/commands/export.js';
import { importJsonl, type ImportTarget } from '../../src/cli/commands/import.js';
import { main } from '../../src/cli/main.js';
import { createProgress } from '../../src/cli/progress.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

const DIM = 16;

/** A stand-in model: a unit vector from the text's hash, so tests run without loading USE-lite. */
function fakeVector(text: string): Float32Array {
  const h = createHash('sha256').update(text).digest();
  const v = Float32Array.from({ length: DIM }, (_, i) => ((h[i] as number) - 127.5) / 128);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
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

async function exportAll(db = store.database): Promise<string[]> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  await exportJsonl(db, out);
  out.end();
  return Buffer.concat(chunks).toString('utf8').split('\n').filter((l) => l.length > 0);
}

const count = () => (store.database.prepare('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-import-'));
  store = SqliteStore.open({ path: join(dir, 'm.db') });
  await store.useModel({ model: 'fake', dimension: DIM });
  embedCalls = [];
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('import and export', () => {
  it('round-trips: export writes exactly what import reads', async () => {
    const input = [
      { userId: 'alice', text: 'Alice likes green tea.', createdAt: '2024-03-01T10:00:00.000Z' },
      { userId: 'alice', text: 'Alice moved to Lyon.', appId: 'travel', metadata: { source: 'chat', tags: ['move'] }, createdAt: '2024-03-02T10:00:00.000Z' },
      { userId: 'bob', text: 'Bob has a cat named Miso.', id: 'crm-42', createdAt: '2024-03-03T09:00:00+01:00' },
      { userId: 'bob', text: 'Bob has a cat named Miso.', createdAt: '2024-03-03T09:00:00.000Z' },
    ];
    const file = writeLines('in.jsonl', input);
    const result = await importJsonl(target(), file, { batchSize: 3 });
    expect(result).toMatchObject({ lines: 4, imported: 4, present: 0, invalid: 0 });
    // One embedding call per batch.
    expect(embedCalls.map((c) => c.length)).toEqual([3, 1]);

    const exported = await exportAll();
    expect(exported.map((l) => JSON.parse(l))).toEqual([
      { userId: 'alice', text: 'Alice likes green tea.', appId: 'default', metadata: {}, createdAt: '2024-03-01T10:00:00.000Z' },
      { userId: 'alice', text: 'Alice moved to Lyon.', appId: 'travel', metadata: { source: 'chat', tags: ['move'] }, createdAt: '2024-03-02T10:00:00.000Z' },
      { userId: 'bob', text: 'Bob has a cat named Miso.', appId: 'default', metadata: { externalId: 'crm-42' }, createdAt: '2024-03-03T08:00:00.000Z', id: 'crm-42' },
      { userId: 'bob', text: 'Bob has a cat named Miso.', appId: 'default', metadata: {}, createdAt: '2024-03-03T09:00:00.000Z' },
    ]);
    // The vectors are the model's, and recall finds the imported memories.
    const found = await store.recallCandidates({
      userId: 'alice',
      scope: { appId: null },
      embedding: fakeVector('Alice moved to Lyon.'),
      vectorK: 1,
      alsoIds: [],
    });
    expect(found[0]?.memory.text).toBe('Alice moved to Lyon.');
    expect(found[0]?.cosine).toBeCloseTo(1, 5);

    // The export imports into a fresh database as the same lines.
    const copy = SqliteStore.open({ path: join(dir, 'copy.db') });
    await copy.useModel({ model: 'fake', dimension: DIM });
    const again = await importJsonl({ store: copy, embed: async (t) => t.map(fakeVector) }, writeLines('out.jsonl', exported));
    expect(again.imported).toBe(4);
    expect(await exportAll(copy.database)).toEqual(exported);
    await copy.close();
  });

  it('resumes after a crash without duplicates, embedding only what is missing', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => ({ userId: `u${i % 2}`, text: `fact number ${i}` }));
    // Two identical lines: both are memories, on the first run and on the resume.
    lines.push({ userId: 'u0', text: 'fact number 0' });
    const file = writeLines('in.jsonl', lines);
    await expect(importJsonl(target({ failOnCall: 3 }), file, { batchSize: 3 })).rejects.toThrow(/model crashed/);
    const afterCrash = count();
    // Whole batches only: the third batch and later are not in, nothing is half-written.
    expect(afterCrash % 3).toBe(0);
    expect(afterCrash).toBeGreaterThanOrEqual(3);
    expect(afterCrash).toBeLessThanOrEqual(6);
    const vectors = (store.database.prepare('SELECT COUNT(*) AS n FROM memory_vectors').get() as { n: number }).n;
    expect(vectors).toBe(afterCrash);

    embedCalls = [];
    const resumed = await importJsonl(target(), file, { batchSize: 3 });
    expect(resumed).toMatchObject({ lines: 11, imported: 11 - afterCrash, present: afterCrash, invalid: 0 });
    expect(embedCalls.flat()).toHaveLength(11 - afterCrash);
    expect(count()).toBe(11);

    // A third run stores and embeds nothing.
    embedCalls = [];
    expect(await importJsonl(target(), file)).toMatchObject({ imported: 0, present: 11 });
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
    expect(await importJsonl(target(), file)).toMatchObject({ imported: 2, present: 1 });
    expect(await importJsonl(target(), file)).toMatchObject({ imported: 0, present: 3 });
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
    const refused = await importJsonl(target(), file, { strict: true, onInvalid: (n, m) => strictBad.push([n, m]) });
    expect(refused).toMatchObject({ refused: true, imported: 0 });
    expect(count()).toBe(0);
    expect(embedCalls).toEqual([]);
    // The app UUID is only checked while importing; every other bad line is found by --strict.
    expect(strictBad.map(([n]) => n)).toEqual([2, 3, 5, 6, 8, 9]);

    const bad: Array<[number, string]> = [];
    const result = await importJsonl(target(), file, { onInvalid: (n, m) => bad.push([n, m]) });
    expect(result).toMatchObject({ lines: 9, imported: 2, invalid: 7, refused: false });
    expect(bad.map(([n]) => n)).toEqual([2, 3, 5, 6, 7, 8, 9]);
    const byLine = new Map(bad);
    expect(byLine.get(2)).toMatch(/not valid JSON/);
    expect(byLine.get(3)).toMatch(/text/);
    expect(byLine.get(5)).toMatch(/colour/);
    expect(byLine.get(6)).toMatch(/future/);
    expect(byLine.get(7)).toMatch(/no app has the UUID/);
    expect(byLine.get(8)).toMatch(/JSON object/);
    expect(byLine.get(9)).toMatch(/externalId/);
    expect((await exportAll()).map((l) => (JSON.parse(l) as { text: string }).text)).toEqual(['good one', 'good two']);
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
    expect(lines.map((l) => l.text)).toEqual(['Carol plays the cello in a quartet.', 'Carol is allergic to peanuts.']);
    expect(lines[1]?.metadata).toEqual({ source: 'intake' });
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
