import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { writeTinyBert } from './fixtures/tiny-bert.js';
import { TRANSFORMERS_INSTALLED } from '../helpers/lane-packages.js';

// A transformers.js model is calibrated like any other: `agent-memory calibrate` on the tiny local BERT the tests build.

const MODEL = 'test-org/tiny-bert';

describe.runIf(TRANSFORMERS_INSTALLED)('agent-memory calibrate with a transformers.js model', () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'agent-memory-calibrate-models-'));
    writeTinyBert({ root, model: MODEL, hiddenSize: 24 });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('embeds the shipped sets with it, decides per language and stores the calibration under its name', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const db = join(root, 'memory.db');
    const code = await main(['calibrate', '--model', MODEL, '--model-dir', root, '--embed-workers', '1', '--db', db], {
      print: (l) => out.push(l),
      notice: (l) => err.push(l),
    });
    expect(code, err.join('\n')).toBe(0);
    expect(err[0]).toBe(`Calibrating "${MODEL}" (24 dimensions) on 3,771 texts of the shipped labelled sets...`);
    const rows = out.filter((l) => /^\| [a-z]{2} \|/.test(l));
    expect(rows).toHaveLength(9);
    expect(out.at(-1)).toBe(`Stored for "${MODEL}" (24 dimensions): every node of this database uses it from its next start.`);
    const store = SqliteStore.open({ path: db });
    try {
      expect(await store.getCalibration({ model: MODEL, dimension: 24 })).toMatchObject({ model: MODEL });
    } finally {
      await store.close();
    }
  }, 180_000);
});
