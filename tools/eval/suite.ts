/**
 * The evaluation suite: the data folders `npm run eval` measures together when no `--data` is given, one kind of
 * memory each, so that a ranking change is judged on all of them at once (a change that helps one and hurts
 * another is not an improvement).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface EvalSet {
  /** Short name in the table. */
  name: string;
  dir: string;
  /** Gold lists every relevant memory, so that precision at the defaults is meaningful. */
  exhaustive: boolean;
  /** One row in the table for each category of question as well as the set's own (the chat sets: one a kind of message). */
  rowPerCategory: boolean;
  /** Measured, never fitted or tuned on: `tuningSets()` leaves it out (`chat-check` and `chat-check-N`). */
  checkOnly: boolean;
}

/** A folder's own settings, from an optional `set.json` beside its data: `{"name"?, "exhaustiveGold"?, "rowPerCategory"?, "checkOnly"?}`. */
export function evalSetOf(dir: string, fallbackName?: string): EvalSet {
  const settingsPath = join(dir, 'set.json');
  let name = fallbackName ?? dir.split(/[\\/]/).filter(Boolean).pop() ?? dir;
  let exhaustive = false;
  let rowPerCategory = false;
  let checkOnly = false;
  if (existsSync(settingsPath)) {
    const settings = JSON.parse(readFileSync(settingsPath, 'utf8')) as { name?: unknown; exhaustiveGold?: unknown; rowPerCategory?: unknown; checkOnly?: unknown };
    if (typeof settings.name === 'string') name = settings.name;
    exhaustive = settings.exhaustiveGold === true;
    rowPerCategory = settings.rowPerCategory === true;
    checkOnly = settings.checkOnly === true;
  }
  return { name, dir, exhaustive, rowPerCategory, checkOnly };
}

const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** The shared evaluation data beside the repository (`../shared/eval`), or `MEMORY_EVAL_DIR`. */
const sharedDir = process.env.MEMORY_EVAL_DIR ?? resolve(repoRoot, '..', 'shared', 'eval');

/** Our fact sets in other languages, `tools/eval/data/facts-<code>/`: one row each, so no language hides another. */
export const FACT_LANGUAGES = ['zh', 'ja', 'ko', 'de', 'es', 'fr', 'ru', 'pt'] as const;
/** After them, `facts-mixed`: users who mix languages and scripts (English questions over German facts, RTL, emoji). */
export const FACT_SETS = [...FACT_LANGUAGES, 'mixed'] as const;

const dataDir = join(repoRoot, 'tools', 'eval', 'data');

/**
 * Chat messages over one user's memories written in three styles (third person, first person, agent notes):
 * `tools/eval/data/chat/` is for tuning, `chat-check/` and `chat-check-N/` (other people, other phrasings) only for
 * checking, and `chat-de-es/` the same in German and Spanish. Each has one row per kind of
 * message: plain, multi-sentence, implicit, unanswerable.
 */
/** Our English fact sets (invented people, exhaustive gold), in table order. */
export const ENGLISH_FACT_SETS = ['people-facts', 'people-facts-2', 'people-facts-3'] as const;

export const CHAT_SETS = ['chat', 'chat-check', 'chat-check-2', 'chat-check-3', 'chat-check-4', 'chat-check-5', 'chat-check-6', 'chat-check-7', 'chat-check-8', 'chat-check-9', 'chat-check-10', 'chat-check-11', 'chat-check-12', 'chat-check-13', 'chat-check-14', 'chat-check-15', 'chat-check-16', 'chat-check-17', 'chat-check-18', 'chat-check-19', 'chat-check-20', 'chat-check-21', 'chat-check-22', 'chat-check-23', 'chat-check-24', 'chat-check-25', 'chat-check-26', 'chat-check-27', 'chat-de-es'] as const;

/**
 * The suite's sets, in table order: dialogue turns, facts in random order, long chat messages, our fact lists
 * (English, three sets, then one set a language, then mixed languages), then chat messages over memories in mixed styles.
 */
export function defaultSuite(): { sets: EvalSet[]; missing: string[] } {
  const candidates: EvalSet[] = [
    evalSetOf(join(sharedDir, 'locomo-dev'), 'locomo-turns'),
    evalSetOf(join(sharedDir, 'locomo-facts-dev'), 'locomo-facts'),
    evalSetOf(join(sharedDir, 'longmemeval-dev'), 'longmemeval'),
    ...ENGLISH_FACT_SETS.map((name) => evalSetOf(join(dataDir, name), name)),
    ...FACT_SETS.map((code) => evalSetOf(join(dataDir, `facts-${code}`), `facts-${code}`)),
    ...CHAT_SETS.map((name) => evalSetOf(join(dataDir, name), name)),
  ];
  const present = (set: EvalSet): boolean => existsSync(join(set.dir, 'memories.jsonl')) && existsSync(join(set.dir, 'queries.jsonl'));
  return { sets: candidates.filter(present), missing: candidates.filter((s) => !present(s)).map((s) => s.dir) };
}

/** The suite's sets that fitting and tuning may use (`npm run calibrate`, `tools/eval/tune.ts`): all but the check-only ones. */
export function tuningSets(): EvalSet[] {
  return defaultSuite().sets.filter((set) => !set.checkOnly);
}
