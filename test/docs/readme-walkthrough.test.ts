import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { LOCAL_CALLER } from '../../src/core/types.js';

// The README's REST walk-through, run through the real service and the real default model: the scores it prints
// are the scores the product gives (issue 14: the README printed 0.83 where the product gave 0.648 and returned
// nothing at the defaults).

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

function printedScore(text: string): number {
  // Up to the item's closing brace; an empty metadata object `{}` on the way does not end it.
  const m = new RegExp(`"text":"${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"(?:[^{}]|\\{\\})*?"score":([0-9.]+)`).exec(README);
  if (!m) throw new Error(`the README prints no score for "${text}"`);
  return Number(m[1]);
}

describe('README walk-through', () => {
  let runtime: Runtime;

  beforeAll(async () => {
    runtime = await openRuntime({ dbPath: ':memory:', model: 'use-lite', modelDir: undefined });
    await runtime.modelReady;
    await runtime.service.store(LOCAL_CALLER, { userId: 'alice', text: 'Alice is allergic to peanuts.', metadata: { source: 'chat' } });
  }, 120_000);
  afterAll(async () => {
    await runtime.close();
  });

  it('recalls the stored fact at the defaults with the score the README prints', async () => {
    const result = await runtime.service.recall(LOCAL_CALLER, { userId: 'alice', query: 'what can alice not eat' });
    expect(result.memories.map((m) => m.text)).toEqual(['Alice is allergic to peanuts.']);
    expect(result.memories[0]?.score).toBe(printedScore('Alice is allergic to peanuts.'));
    expect(result.memories[0]?.score).toBeGreaterThanOrEqual(0.7);
  });

  it('gives the lifecycle example (update, then a memory that expires) the scores the README prints', async () => {
    const stored = await runtime.service.store(LOCAL_CALLER, {
      userId: 'maria',
      text: 'Maria lives in Seattle.',
      metadata: { topic: 'home' },
      createdAt: '2025-06-01T08:00:00.000Z',
    });
    await runtime.service.update(LOCAL_CALLER, stored.result.id, { text: 'Maria moved to Lisbon.', metadata: { topic: 'home', city: 'Lisbon' } });
    await runtime.service.store(LOCAL_CALLER, { userId: 'maria', text: 'Maria is at the dentist this afternoon.', ttlSeconds: 3600 });
    const result = await runtime.service.recall(LOCAL_CALLER, { userId: 'maria', query: 'where does maria live', minScore: 0 });
    const printed = ['Maria moved to Lisbon.', 'Maria is at the dentist this afternoon.'].map((text) => ({ text, score: printedScore(text) }));
    const given = result.memories.map((m) => ({ text: m.text, score: m.score }));
    expect(given).toEqual(expect.arrayContaining(printed));
    expect(given).toHaveLength(2);
  });

  it('returns nothing at the defaults for a question the memory does not answer', async () => {
    const result = await runtime.service.recall(LOCAL_CALLER, { userId: 'alice', query: 'what is the capital of Mongolia?' });
    expect(result).toEqual({ memories: [], context: '' });
  });
});
