import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'am-calibrate-cli-'));
const db = join(dir, 'memory.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.MEMORY_MODEL_IDENTITY;
});

async function run(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { print: (l) => out.push(l), notice: (l) => err.push(l) });
  return { code, out, err };
}

describe('agent-memory calibrate', () => {
  it('fits the model from the shipped sets, prints a row per language and stores the calibration', async () => {
    // The hash model under a name that has no calibration of its own.
    process.env.MEMORY_MODEL_IDENTITY = 'hash-cli';
    const result = await run('calibrate', '--model', 'hash', '--db', db);
    expect(result.code).toBe(0);
    expect(result.err[0]).toBe('Calibrating "hash-cli" (256 dimensions) on 3,771 texts of the shipped labelled sets...');
    expect(result.out[0]).toBe('| language | texts | AUC | path | score map (raw→score) | time |');
    const rows = result.out.filter((l) => /^\| [a-z]{2} \|/.test(l));
    expect(rows.map((r) => r.split('|')[1]?.trim())).toEqual(['en', 'zh', 'ja', 'ko', 'de', 'es', 'fr', 'ru', 'pt']);
    // Every row: texts, an AUC, a path, a map through 0.7, a time.
    for (const row of rows) expect(row).toMatch(/^\| [a-z]{2} \| [\d,]+ \| (0\.\d{3}|1\.000) \| (semantic|words) \| 0→0, [\d.]+→0\.7, [\d.]+→1 \| \d+\.\d s \|$/);
    expect(rows[0]).toMatch(/^\| en \| 3,067 \|/);
    expect(result.out.join('\n')).toMatch(/3,771 texts embedded in \d+\.\d s\./);
    expect(result.out.at(-1)).toBe('Stored for "hash-cli" (256 dimensions): every node of this database uses it from its next start.');

    const store = SqliteStore.open({ path: db });
    try {
      expect(await store.getCalibration({ model: 'hash-cli', dimension: 256 })).toMatchObject({ model: 'hash-cli', fittedOn: expect.stringContaining('people-facts') });
    } finally {
      await store.close();
    }
  });

  it('says that a built-in calibration stays in use', async () => {
    const result = await run('calibrate', '--model', 'hash', '--db', join(dir, 'builtin.db'));
    expect(result.code).toBe(0);
    expect(result.out.at(-1)).toBe('Stored for "hash" (256 dimensions), but this model has a built-in calibration, which stays in use.');
  });

  it('refuses extra arguments, and reports a model that does not load in one line', async () => {
    expect((await run('calibrate', 'now', '--db', db)).code).toBe(2);
    const missing = await run('calibrate', '--model', 'nobody/no-such-model', '--model-dir', join(dir, 'models'), '--db', db, '--embed-workers', '1');
    expect(missing.code).toBe(1);
    expect(missing.err.at(-1)).toMatch(/^agent-memory calibrate: .+/);
  });
});
