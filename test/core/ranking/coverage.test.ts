import { describe, expect, it } from 'vitest';
import { sameWord, TermWeights } from '../../../src/core/ranking/coverage.js';
import { informalForms } from '../../../src/core/text/informal.js';
import { stemIn } from '../../../src/core/text/analyze.js';

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

describe('forms of one word among the related words', () => {
  it('tells forms of one word from other related words', () => {
    expect(sameWord('allergi', 'allerg')).toBe(true);
    expect(sameWord('medic', 'medicin')).toBe(true);
    expect(sameWord('car', 'carriag')).toBe(false);
    expect(sameWord('studi', 'student')).toBe(false);
  });

  it('gives a form of the term its whole weight, and another related word the credit', () => {
    const related = { stems: (s: string) => (s === 'allergi' ? ['allerg', 'hypersensit'] : []), credit: 0.3, forms: true };
    const w = new TermWeights(['allergi'], pool('allerg latex', 'hypersensit skin', 'walk'), 0, related);
    expect(w.coverage(new Set(['allerg', 'latex']))).toBeCloseTo(1);
    expect(w.coverage(new Set(['hypersensit']))).toBeCloseTo(0.3);
    expect(w.largestMissing(new Set(['allerg']))).toBe(0);
    // Only where the relation lists forms (WordNet's English): other languages' concepts keep the credit.
    const concepts = new TermWeights(['allergi'], pool('allerg latex', 'walk'), 0, { ...related, forms: false });
    expect(concepts.coverage(new Set(['allerg']))).toBeCloseTo(0.3);
  });
});

describe('words as typed in chat', () => {
  it('counts one as a form of the other: the whole weight, with forms on only', () => {
    const related = { stems: () => [], credit: 0.3, forms: true, informal: informalForms };
    const w = new TermWeights([stemIn('meds', 'en')], pool('medic blood pressur', 'walk'), 0, related);
    expect(w.coverage(new Set([stemIn('medication', 'en'), 'blood']))).toBeCloseTo(1);
    const off = new TermWeights([stemIn('meds', 'en')], pool('medic blood pressur', 'walk'), 0, { ...related, forms: false });
    expect(off.coverage(new Set([stemIn('medication', 'en')]))).toBe(0);
  });
});
