import { describe, expect, it } from 'vitest';
import { withApostrophes } from '../../../src/core/text/contractions.js';

describe('withApostrophes: contractions typed without their apostrophe', () => {
  it.each([
    ['whats my brothers job', "what's my brothers job"],
    ['im allergic to what again', "I'm allergic to what again"],
    ['Dont I have netball on thursdays', "Don't I have netball on thursdays"],
    ['wheres the party, its at 8 right', "where's the party, its at 8 right"],
    ["what's already right", "what's already right"],
  ])('%j -> %j', (typed, written) => {
    expect(withApostrophes(typed)).toBe(written);
  });

  it('leaves words that are English words of their own as typed', () => {
    expect(withApostrophes('its id is ill were well wed shell hell lets')).toBe('its id is ill were well wed shell hell lets');
  });
});
