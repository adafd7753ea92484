import { describe, expect, it } from 'vitest';
import { pickWordCandidates } from '../../../src/core/ranking/word-candidates.js';

describe('pickWordCandidates', () => {
  it('prefers memories holding rarer terms, and more of them', () => {
    const common = Array.from({ length: 20 }, (_, i) => `c${String(i).padStart(2, '0')}`);
    const picked = pickWordCandidates(
      [
        { term: 'the-speaker', ids: [...common, 'both'] },
        { term: 'rare', ids: ['rare-only', 'both'] },
      ],
      3,
    );
    // "both" has the rare term and the common one; "rare-only" the rare one; then the newest common-only memory.
    expect(picked).toEqual(['both', 'rare-only', 'c00']);
  });

  it('breaks ties by position in the lists (most recently stored first), then by id', () => {
    expect(pickWordCandidates([{ term: 'a', ids: ['m3', 'm1', 'm2'] }], 10)).toEqual(['m3', 'm1', 'm2']);
    expect(pickWordCandidates([{ term: 'a', ids: ['x', 'y'] }, { term: 'b', ids: ['z', 'w'] }], 10)).toEqual(['x', 'z', 'w', 'y']);
  });

  it('counts a memory once per term even when a list repeats it, and handles empty input', () => {
    expect(pickWordCandidates([{ term: 'a', ids: ['m1', 'm1', 'm2'] }, { term: 'b', ids: ['m2'] }], 10)).toEqual(['m2', 'm1']);
    expect(pickWordCandidates([], 5)).toEqual([]);
    expect(pickWordCandidates([{ term: 'a', ids: [] }], 5)).toEqual([]);
    expect(pickWordCandidates([{ term: 'a', ids: ['m1'] }], 0)).toEqual([]);
  });
});
