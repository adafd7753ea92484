import { stemIn } from './analyze.js';

/**
 * English words people type in chat for the words memories are written in ("meds" for "medication", "mum" for
 * "mother"): the same word to the reader, so the word side counts one as the other (TermWeights' forms). WordNet
 * does not list most of them, or lists another sense first ("med" is a degree there, "mum" a chrysanthemum).
 * Each line is the written word, then the ways it is typed (or said in the other English: "flat", "vacation").
 */
const INFORMAL: readonly (readonly string[])[] = [
  ['medication', 'meds', 'med'],
  ['medicine', 'meds'],
  ['mother', 'mum', 'mom', 'mummy', 'mommy', 'mam', 'mama', 'momma'],
  ['father', 'dad', 'daddy', 'papa', 'pops'],
  ['grandmother', 'grandma', 'granny', 'gran', 'nan', 'nana', 'nanna', 'grandmum', 'grandmom'],
  ['grandfather', 'grandpa', 'granddad', 'grandad', 'gramps', 'grandpop'],
  ['brother', 'bro'],
  ['sister', 'sis'],
  ['husband', 'hubby'],
  ['boyfriend', 'bf'],
  ['girlfriend', 'gf'],
  ['children', 'kids', 'kiddos'],
  ['child', 'kid', 'kiddo'],
  ['birthday', 'bday', 'b-day'],
  ['university', 'uni'],
  ['favourite', 'fave', 'fav', 'favorite'],
  ['rabbit', 'bunny', 'bunnies'],
  ['cat', 'kitty', 'kitties'],
  ['dog', 'doggo', 'pup', 'puppy'],
  ['physiotherapist', 'physio'],
  ['physiotherapy', 'physio'],
  ['doctor', 'doc'],
  ['veterinarian', 'vet'],
  ['holiday', 'hols', 'vacation'],
  ['breakfast', 'brekkie'],
  ['vegetarian', 'veggie'],
  ['television', 'telly', 'tv'],
  ['football', 'footy'],
  ['apartment', 'flat'],
  ['son', 'lad'],
  // Chat's abbreviations for the word that carries them: "my bp pills", "which days am I wfh".
  ['pressure', 'bp'],
  ['home', 'wfh'],
];

let table: Map<string, string[]> | undefined;

/** The stems an English stem stands for in the other register (both ways: "mum" -> "mother", "mother" -> "mum", "mom", ...). */
export function informalForms(stem: string): readonly string[] {
  if (table === undefined) {
    table = new Map();
    for (const [written, ...typed] of INFORMAL) {
      const w = stemIn(written as string, 'en');
      for (const t of typed.map((word) => stemIn(word, 'en'))) {
        if (t === w) continue;
        for (const [a, b] of [[w, t], [t, w]] as const) {
          const list = table.get(a) ?? [];
          if (!list.includes(b)) list.push(b);
          table.set(a, list);
        }
      }
    }
  }
  return table.get(stem) ?? [];
}
