import { readdirSync } from 'node:fs';
import { matchesGlob } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTERS, BACKENDS, UNIT } from '../vitest.config.js';

const files = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file.split('\\').join('/')}`)
  .sort();

const LISTS = { unit: UNIT, adapters: ADAPTERS, backends: BACKENDS };

describe('the vitest projects', () => {
  it('put each test file in at most one of unit, adapters and backends (end-to-end takes the rest)', () => {
    const twice = files
      .map((file) => ({ file, projects: Object.entries(LISTS).filter(([, globs]) => globs.some((g) => matchesGlob(file, g))).map(([name]) => name) }))
      .filter(({ projects }) => projects.length > 1);
    expect(twice).toEqual([]);
  });

  it('match an existing file with every glob, so that a renamed test does not silently leave its project', () => {
    const unmatched = Object.values(LISTS).flat().filter((glob) => !files.some((file) => matchesGlob(file, glob)));
    expect(unmatched).toEqual([]);
  });

  it('keep the real model, child processes and the browser out of the fast lane', () => {
    const fast = files.filter((file) => UNIT.some((glob) => matchesGlob(file, glob)));
    expect(fast.length).toBeGreaterThan(20);
    for (const slow of ['test/embeddings/use-lite.test.ts', 'test/mcp/stdio.test.ts', 'test/console/console.browser.test.ts', 'test/cli/reembed.test.ts']) {
      expect(fast).not.toContain(slow);
    }
  });
});
