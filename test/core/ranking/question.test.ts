import { describe, expect, it } from 'vitest';
import { stripQuestionFrame, stripRequestFrame } from '../../../src/core/ranking/question.js';

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

describe('stripRequestFrame', () => {
  it.each([
    ['help me plan a birthday party for my boy', 'a birthday party for my boy'],
    ['Can you suggest a restaurant for dinner with my sister?', 'a restaurant for dinner with my sister'],
    ['any ideas for taking the kids out saturday, somewhere outdoors', 'taking the kids out saturday, somewhere outdoors'],
    ['find us something to do as a family in the december holidays', 'something to do as a family in the december holidays'],
    ['Plan the food for Dami’s birthday party.', 'the food for Dami’s birthday party'],
    // Not a request: as it is.
    ['What is Ines allergic to?', 'What is Ines allergic to?'],
    ['planes make me nervous', 'planes make me nervous'],
  ])('%s -> %s', (query, stripped) => {
    expect(stripRequestFrame(query)).toBe(stripped);
  });

  it('keeps the request when nothing would remain', () => {
    expect(stripRequestFrame('help me plan ')).toBe('help me plan ');
  });
});
