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

  it('gives a related word the credit, less for a term related to more words than the breadth', () => {
    const narrow = (stem: string): readonly string[] => (stem === 'salari' ? ['wage', 'pay'] : []);
    const broad = (stem: string): readonly string[] => (stem === 'work' ? ['job', ...Array.from({ length: 99 }, (_, i) => `w${i}`)] : []);
    const pool = [new Set(['wage']), new Set(['job'])];
    const salary = new TermWeights(['salari'], pool, 0, { stems: narrow, credit: 0.3, breadth: 30 });
    expect(salary.coverage(new Set(['wage']))).toBeCloseTo(0.3);
    const work = new TermWeights(['work'], pool, 0, { stems: broad, credit: 0.3, breadth: 30 });
    expect(work.coverage(new Set(['job']))).toBeCloseTo((0.3 * 30) / 100);
    expect(work.largestMissing(new Set(['job']))).toBeCloseTo(1 - (0.3 * 30) / 100);
    const unbounded = new TermWeights(['work'], pool, 0, { stems: broad, credit: 0.3 });
    expect(unbounded.coverage(new Set(['job']))).toBeCloseTo(0.3);
  });
});
