import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// USE-lite's loading through the real worker, in child processes started with V8 flags that make the hard cases
// happen on any machine: `--v8-pool-size=1` leaves V8 one background thread, so TensorFlow.js's WASM compile finishes
// well after the weights are read (what many workers started at once from the sources did on 16 cores: "Backend
// 'wasm' has not yet been initialized"); `--jitless` leaves Node without WebAssembly, so the backend cannot start.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/load-use-lite.ts', import.meta.url));

interface Outcome {
  info?: { model: string; dimension: number };
  sent: number[];
  reported?: number;
  error?: string;
}

function load(flags: string[], workers: number, cores: number, from: 'sources' | 'dist'): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const args = [...flags, '--import', 'tsx', FIXTURE, String(workers), String(cores), ...(from === 'dist' ? ['dist'] : [])];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = stdout.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(line) as Outcome);
      } catch {
        reject(new Error(`load-use-lite exited ${code} without a result: ${stdout}\n${stderr}`));
      }
    });
  });
}

describe('USE-lite loading in the worker', () => {
  it('loads from the sources when the WASM compile finishes after the weights are read; threads follow the rule', async () => {
    const outcome = await load(['--v8-pool-size=1'], 2, 16, 'sources');
    expect(outcome.error).toBeUndefined();
    expect(outcome.info).toEqual({ model: 'use-lite', dimension: 512 });
    // 16 cores shared by 2 workers: 8 threads each offered; TensorFlow.js under Node runs its single-threaded build
    // and says so (its threaded build needs browser workers), so it reports 1.
    expect(outcome.sent).toEqual([8, 8]);
    expect(outcome.reported).toBe(1);
  });

  it('loads through the compiled worker the same way; workers filling the cores get one thread each', async () => {
    const outcome = await load(['--v8-pool-size=1'], 2, 2, 'dist');
    expect(outcome.error).toBeUndefined();
    expect(outcome.info).toEqual({ model: 'use-lite', dimension: 512 });
    expect(outcome.sent).toEqual([1, 1]);
    expect(outcome.reported).toBe(1);
  });

  it('a backend that cannot start fails the load with the backend\u2019s own reason', async () => {
    for (const from of ['sources', 'dist'] as const) {
      const outcome = await load(['--jitless'], 1, 4, from);
      expect(outcome.info).toBeUndefined();
      expect(outcome.error).toMatch(/^Could not load embedding model "use-lite": TensorFlow\.js could not start its WASM backend: /);
      expect(outcome.error).toContain('Aborted(no native wasm support detected)');
      expect(outcome.error).toContain('WebAssembly is not defined');
    }
  });
});
