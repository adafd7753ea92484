import { describe, expect, it } from 'vitest';
import { TermWeights } from '../../../src/core/ranking/coverage.js';

const pool = (...texts: string[]): Set<string>[] => texts.map((t) => new Set(t.split(' ')));

describe('TermWeights', () => {
  const memories = pool('ana pottery', 'ana run', 'ana walk', 'ana read', 'ben swim');

  it('is 1 when every query term occurs and 0 when none does', () => {
    const w = new TermWeights(['ana', 'pottery'], memories);
    expect(w.coverage(new Set(['ana', 'pottery', 'class']))).toBeCloseTo(1);
    expect(w.coverage(new Set(['swim']))).toBe(0);
  });

  it('weighs a rare term above a common one', () => {
    const w = new TermWeights(['ana', 'pottery'], memories);
    expect(w.coverage(new Set(['pottery']))).toBeGreaterThan(0.5);
    expect(w.coverage(new Set(['ana']))).toBeLessThan(0.5);
  });

  it('gives a term absent from the pool the highest weight', () => {
    const w = new TermWeights(['pottery', 'mongolia'], memories);
    expect(w.coverage(new Set(['pottery']))).toBeLessThan(0.5);
  });

  it('counts terms found in the companion text (a memory read with its neighbour)', () => {
    const w = new TermWeights(['ana', 'pottery'], memories);
    expect(w.coverage(new Set(['ana']), new Set(['pottery']))).toBeCloseTo(1);
  });

  it('is 0 for a query without terms', () => {
    expect(new TermWeights([], memories).coverage(new Set(['ana']))).toBe(0);
  });
});
