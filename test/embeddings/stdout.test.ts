import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyBert } from './fixtures/tiny-bert.js';
import { TRANSFORMERS_INSTALLED } from '../helpers/lane-packages.js';

// stdout may be an MCP stdio channel: loading and running the models must write nothing to it. Run in a child
// process, which also shows that an idle embedder does not keep the process alive (the script never calls close()).

const INDEX = fileURLToPath(new URL('../../src/embeddings/index.ts', import.meta.url));

function run(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('embedders and stdout', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'agent-memory-models-'));
    writeTinyBert({ root, model: 'test-org/tiny-bert' });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('write nothing to stdout and let the process exit when idle', async () => {
    const script = `
      import { createEmbedder } from ${JSON.stringify(INDEX)};
      // transformers.js is a lane package (test/helpers/lane-packages.ts): without it, USE-lite alone.
      const tiny = { model: 'test-org/tiny-bert', modelDir: ${JSON.stringify(root)} };
      for (const options of ${TRANSFORMERS_INSTALLED} ? [{}, tiny] : [{}]) {
        const embedder = createEmbedder(options);
        const info = await embedder.ready();
        const [vector] = await embedder.embed(['hello stdout'], 'query');
        process.stderr.write(info.model + ' ' + vector.length + '\\n');
      }
    `;
    const { code, stdout, stderr } = await run(script);
    expect(stderr).toContain('use-lite 512');
    if (TRANSFORMERS_INSTALLED) expect(stderr).toContain('test-org/tiny-bert 16');
    expect(stdout).toBe('');
    expect(code).toBe(0);
  });
});
