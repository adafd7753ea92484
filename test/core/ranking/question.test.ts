import { describe, expect, it } from 'vitest';
import { stripQuestionFrame } from '../../../src/core/ranking/question.js';

describe('stripQuestionFrame', () => {
  it.each([
    ['When did Caroline go to the support group?', 'Caroline go to the support group'],
    ['What kind of pottery does Mel make?', 'pottery does Mel make'],
    ['How many times has Jo moved house?', 'Jo moved house'],
    ['How long ago was the wedding?', 'the wedding'],
    ['In what city does Ana live?', 'city does Ana live'],
    ['Would Sam enjoy a hiking trip?', 'Sam enjoy a hiking trip'],
    ['Is the meeting on Friday?', 'the meeting on Friday'],
    ['Favourite colour of my car', 'Favourite colour of my car'],
  ])('%s -> %s', (query, stripped) => {
    expect(stripQuestionFrame(query)).toBe(stripped);
  });

  it('keeps the query when nothing would remain', () => {
    expect(stripQuestionFrame('Why?')).toBe('Why?');
    expect(stripQuestionFrame('what is')).toBe('what is');
  });
});
