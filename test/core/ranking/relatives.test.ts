import { describe, expect, it } from 'vitest';
import { aboutOtherRelative, aboutUserAlone, askedRelations, relationsIn, relativeOfNamed, relativesOf } from '../../../src/core/ranking/relatives.js';

describe('relationsIn: the relatives a text names', () => {
  it('reads each relation by the words people type for it', () => {
    expect([...relationsIn('My daughter Itzel is 7.')]).toEqual(['daughter']);
    expect([...relationsIn("My mum and my sis live in Cork; Dad's in Leeds.")]).toEqual(['mother', 'sister', 'father']);
    expect([...relationsIn("User's brothers both play rugby.")]).toEqual(['brother']);
  });

  it('reads whose relative a memory opens with', () => {
    expect(relativeOfNamed("Ingrid's father is a Lutheran priest.")).toBe('ingrid');
    expect(relativeOfNamed("Fiona's son Callum is an apprentice.")).toBe('fiona');
    expect(relativeOfNamed("User's mother Huda runs a bakery.")).toBeUndefined();
    expect(relativeOfNamed('My son Antoine works in video games.')).toBeUndefined();
    expect(relativeOfNamed("Ingrid's café opens at 8.")).toBeUndefined();
  });

  it('reads the words for a parent, a grandparent or a fiancé that English chat borrows', () => {
    expect([...relationsIn('took tutu to the market, she loved it')]).toEqual(['grandmother']);
    expect([...relationsIn('My nonno and my amma both cook.')]).toEqual(['grandfather', 'mother']);
    expect([...relationsIn("What's my fiancé's job again?")]).toEqual(['fiance']);
  });

  it('keeps in-laws and the grandparents apart from the parents', () => {
    expect([...relationsIn("User's mother-in-law looks after Yuna.")]).toEqual([]);
    expect([...relationsIn('My grandmother turned 90.')]).toEqual(['grandmother']);
    expect([...relationsIn('Nobody here.')]).toEqual([]);
  });
});

describe('askedRelations: whose relative a question asks about', () => {
  it('reads "my", "our", "your" and a possessive name', () => {
    expect([...askedRelations('How old is my mom?')]).toEqual(['mother']);
    expect([...askedRelations("What's Kofi's wife called?")]).toEqual(['wife']);
    expect([...askedRelations("what's my sister's husband's name")]).toEqual(['sister', 'husband']);
    expect([...askedRelations('is my little brother still in Lagos')]).toEqual(['brother']);
  });

  it('reads nothing in a question about no relative, or about a group', () => {
    for (const q of ['How old is Itzel?', 'What do my parents do?', 'what are my kids into', 'Where does my partner work?', 'Is the mother ship landing?']) {
      expect([...askedRelations(q)], q).toEqual([]);
    }
  });
});

describe('aboutOtherRelative', () => {
  it('is true only for a memory naming relatives, none of them asked about', () => {
    expect(aboutOtherRelative(new Set(['mother']), new Set(['daughter']))).toBe(true);
    expect(aboutOtherRelative(new Set(['mother']), new Set(['daughter', 'mother']))).toBe(false);
    expect(aboutOtherRelative(new Set(['mother']), new Set())).toBe(false);
    expect(aboutOtherRelative(new Set(), new Set(['daughter']))).toBe(false);
  });
});

describe('relativesOf: whom a memory is about, for a question about a relative', () => {
  it('reads the user\'s own name as about the user, no relative', () => {
    expect(aboutOtherRelative(askedRelations("What's my father's name?"), relativesOf("User's name is Mateo Rojas."))).toBe(true);
    expect(aboutOtherRelative(askedRelations("What's my father's name?"), relativesOf('My name is Ingrid Halvorsen.'))).toBe(true);
    expect(aboutOtherRelative(askedRelations("What's my father's name?"), relativesOf('My father Dorin keeps bees.'))).toBe(false);
    expect([...relativesOf('My sister Marta lives in Porto.')]).toEqual(['sister']);
  });
});

describe('aboutUserAlone: a memory about the user and nobody else', () => {
  it('opens with the user, or speaks as the user later in the sentence', () => {
    for (const text of ["User's birthday is 30 April.", "I'm allergic to latex.", 'Each trip is 10 or 11 days and I get 4 days in port between them.', 'Every winter the road to my village closes.']) {
      expect(aboutUserAlone(text, relationsIn(text)), text).toBe(true);
    }
    for (const text of ['My son Rauf is 14.', 'The trek takes 3 hours each way.', 'Mine workers start at six.']) {
      expect(aboutUserAlone(text, relationsIn(text)), text).toBe(false);
    }
  });
});
