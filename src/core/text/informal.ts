import { stemIn } from './analyze.js';

/**
 * English words people type in chat for the words memories are written in ("meds" for "medication", "mum" for
 * "mother"): the same word to the reader, so the word side counts one as the other (TermWeights' forms). WordNet
 * does not list most of them, or lists another sense first ("med" is a degree there, "mum" a chrysanthemum).
 * Each line is the written word, then the ways it is typed (or said in the other English: "flat", "vacation").
 */
/**
 * The words for a parent or a grandparent that English chat borrows from other languages ("amma", "nonna", "tutu"):
 * forms of the English word here, and words for the relation in ranking/relatives.ts, from this one list.
 */
export const BORROWED_KIN = {
  mother: ['mamma', 'amma', 'ammi'],
  father: ['appa', 'abbu'],
  grandmother: ['tutu', 'abuela', 'abuelita', 'oma', 'nonna', 'ouma', 'bubbe', 'yaya', 'gogo'],
  grandfather: ['abuelo', 'abuelito', 'opa', 'nonno', 'oupa', 'zayde', 'papou'],
} as const satisfies Record<string, readonly string[]>;

const INFORMAL: readonly (readonly string[])[] = [
  ['medication', 'meds', 'med'],
  ['medicine', 'meds'],
  ['mother', 'mum', 'mom', 'mummy', 'mommy', 'mam', 'mama', 'momma', ...BORROWED_KIN.mother],
  ['father', 'dad', 'daddy', 'papa', 'pops', ...BORROWED_KIN.father],
  ['grandmother', 'grandma', 'granny', 'gran', 'nan', 'nana', 'nanna', 'grandmum', 'grandmom', ...BORROWED_KIN.grandmother],
  ['grandfather', 'grandpa', 'granddad', 'grandad', 'gramps', 'grandpop', ...BORROWED_KIN.grandfather],
  ['parents', 'folks'],
  // Everyday words for the same thing that WordNet relates among too many others to count ("shut" / "closed").
  ['closed', 'shut'],
  ['migraine', 'headache'],
  ['company', 'business', 'firm'],
  ['operation', 'surgery', 'op'],
  ['internet', 'broadband', 'fibre', 'fiber', 'wifi'],
  ['rota', 'roster'],
  ['afternoon', 'arvo'],
  ['flight', 'flying', 'fly'],
  // Dropped g's, as typed: "wheres rodrigo livin", "whats kayla doin for work".
  ['living', 'livin'],
  ['doing', 'doin'],
  ['working', 'workin'],
  ['going', 'goin'],
  ['staying', 'stayin'],
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
  ['doctor', 'doc', 'gp'],
  ['veterinarian', 'vet'],
  ['holiday', 'hols', 'vacation'],
  ['breakfast', 'brekkie'],
  ['vegetarian', 'veggie'],
  ['television', 'telly', 'tv'],
  ['football', 'footy'],
  ['apartment', 'flat'],
  ['son', 'lad'],
  // Everyday names in English chat for what memories name formally: "the puffer kevin uses", "the baby's next jab",
  // "off the grog", "whats wrong with the moto", "my roomie", "the medicine ama takes for her sugar".
  ['inhaler', 'puffer'],
  ['vaccination', 'vaccine', 'jab'],
  ['alcohol', 'grog', 'booze'],
  ['motorbike', 'motorcycle', 'moto'],
  ['roommate', 'roomie', 'flatmate'],
  ['diabetes', 'sugar'],
  // "when's my english test" over "My IELTS exam is on 21 November".
  ['exam', 'test'],
  // Chat's abbreviations for the word that carries them: "my bp pills", "which days am I wfh".
  ['pressure', 'bp'],
  ['home', 'wfh'],
];

/** The words typed or written for the same thing as `word` (lower case, itself included): "mum" -> mother, mom, mama, ... */
export function informalWords(word: string): readonly string[] {
  const lines = INFORMAL.filter((line) => line.includes(word));
  return [...new Set([word, ...lines.flat()])];
}

let table: Map<string, string[]> | undefined;

/** The stems an English stem stands for in the other register (every way: "mum" -> "mother", "mother" -> "mum", "mom", "mama" -> "mum", ...). */
export function informalForms(stem: string): readonly string[] {
  if (table === undefined) {
    table = new Map();
    // Every word of a line stands for every other ("mama" for "mum" too, not only for "mother").
    for (const line of INFORMAL) {
      const stems = [...new Set(line.map((word) => stemIn(word, 'en')))];
      for (const a of stems) {
        const list = table.get(a) ?? [];
        for (const b of stems) if (b !== a && !list.includes(b)) list.push(b);
        table.set(a, list);
      }
    }
  }
  return table.get(stem) ?? [];
}
