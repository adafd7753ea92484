import { describe, expect, it } from 'vitest';
import { importOptional, isMissingPackage } from '../../src/embeddings/optional-import.js';

const MISSING = '@agent-memory-test/not-installed';

describe('importOptional', () => {
  it('says what to install when the package is missing', async () => {
    const failure: unknown = await importOptional(MISSING, 'The Hugging Face model "Xenova/x"', () => import(MISSING)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe(
      `The Hugging Face model "Xenova/x" needs the optional package ${MISSING}, which is not installed: run \`npm install ${MISSING}\` next to agent-memory.`,
    );
  });

  it('returns the module when it is installed', async () => {
    const zod = await importOptional('zod', 'this test', () => import('zod'));
    expect(typeof zod.z.object).toBe('function');
  });

  it('passes on any other failure as it is, including a missing dependency of the package itself', async () => {
    const broken = new Error('boom');
    await expect(importOptional(MISSING, 'x', () => Promise.reject(broken))).rejects.toBe(broken);
    const inner = Object.assign(new Error("Cannot find package 'onnxruntime-node' imported from /x.js"), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(isMissingPackage(inner, '@huggingface/transformers')).toBe(false);
    await expect(importOptional('@huggingface/transformers', 'x', () => Promise.reject(inner))).rejects.toBe(inner);
  });
});
