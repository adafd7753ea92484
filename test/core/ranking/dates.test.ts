import { describe, expect, it } from 'vitest';
import { dateSpanOf, inSpan } from '../../../src/core/ranking/dates.js';

const day = (iso: string): number => Date.parse(`${iso}T00:00:00Z`);

describe('dateSpanOf', () => {
  it.each([
    ['What did Jo cook on 9 November, 2022?', '2022-11-09', '2022-11-09'],
    ['What did Jo say on 8th December, 2023?', '2023-12-08', '2023-12-08'],
    ['What did Jo say on November 6, 2023?', '2023-11-06', '2023-11-06'],
    ['What happened on Sept 3 2021?', '2021-09-03', '2021-09-03'],
    ['Notes from 2024-02-29', '2024-02-29', '2024-02-29'],
    ['What did Jo start in August 2023?', '2023-08-01', '2023-08-31'],
    ['Plans for December, 2023', '2023-12-01', '2023-12-31'],
  ])('%s', (query, from, to) => {
    expect(dateSpanOf(query)).toEqual({ from: day(from), to: day(to) });
  });

  it('ignores queries without a calendar day or month', () => {
    expect(dateSpanOf('What did Jo do last week?')).toBeUndefined();
    expect(dateSpanOf('May I ask what Jo likes?')).toBeUndefined();
    expect(dateSpanOf('in 2023')).toBeUndefined();
  });

  it('falls back to the month when the day does not exist', () => {
    expect(dateSpanOf('on 31 February 2023')).toEqual({ from: day('2023-02-01'), to: day('2023-02-28') });
  });
});

describe('inSpan', () => {
  const span = { from: day('2023-05-07'), to: day('2023-05-07') };
  it('accepts the day itself and one day either side (time zones)', () => {
    expect(inSpan('2023-05-07T13:00:00.000Z', span)).toBe(true);
    expect(inSpan('2023-05-06T01:00:00.000Z', span)).toBe(true);
    expect(inSpan('2023-05-08T23:59:59.000Z', span)).toBe(true);
  });

  it('rejects days further away and unparsable timestamps', () => {
    expect(inSpan('2023-05-05T23:00:00.000Z', span)).toBe(false);
    expect(inSpan('2023-05-09T00:00:00.000Z', span)).toBe(false);
    expect(inSpan('not a date', span)).toBe(false);
  });
});
