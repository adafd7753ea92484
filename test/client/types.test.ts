import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/**
 * Type-checks files with the repo's compiler options, from a config in the OS temp dir so that nothing is written
 * into the repo; answers tsc's diagnostics, '' when clean.
 */
async function typecheck(dir: string, files: string[]): Promise<string> {
  const config = join(dir, 'tsconfig.json');
  const compilerOptions = { noEmit: true, typeRoots: [join(root, 'node_modules/@types')] };
  writeFileSync(config, JSON.stringify({ extends: join(root, 'tsconfig.json'), compilerOptions, files, include: [] }));
  const output = await run(process.execPath, [tsc, '-p', config], { cwd: root }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  return output.trim();
}

describe('types', () => {
  it('usage.ts compiles with no any and its @ts-expect-error calls stay errors; a wrong call fails to compile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-memory-types-'));
    try {
      // A control, so that a clean usage.ts cannot be a vacuous pass (a check that compiles nothing).
      // .mts: the temp dir has no package.json saying "type": "module".
      const wrong = join(dir, 'wrong.mts');
      writeFileSync(
        wrong,
        `import { MemoryClient } from ${JSON.stringify(join(root, 'src/client/index.js'))};\n` +
          "export const p = new MemoryClient({ apiKey: 'k' }).store({ text: 'no user' });\n",
      );
      const output = await typecheck(dir, [join(root, 'test/client/fixtures/usage.ts'), wrong]);
      const lines = output.split('\n').filter((line) => /error TS\d+/.test(line));
      expect(lines.filter((line) => !line.includes('wrong.mts'))).toEqual([]);
      expect(lines).toHaveLength(1);
      expect(output).toMatch(/wrong\.mts\(2,\d+\): error TS2345/);
      expect(output).toContain("'userId'");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
