/** What tools/calibration/pack-sets.ts writes, computed (the test compares it with the packed file). */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PackedLabelledSets } from '../../src/core/calibration/labelled-sets.js';
import { loadEvalData, type EvalData } from '../eval/dataset.js';
import { readOffTopic } from '../eval/off-topic.js';
import { ENGLISH_FACT_SETS, FACT_LANGUAGES } from '../eval/suite.js';

const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const PACKED_SETS_PATH = join(repoRoot, 'src', 'core', 'calibration', 'labelled-sets.json');
const dataDir = join(repoRoot, 'tools', 'eval', 'data');
const sharedDir = process.env.MEMORY_EVAL_DIR ?? resolve(repoRoot, '..', 'shared', 'eval');

/**
 * The suite set each packed set was made from, where the names differ: an evaluation of the suite set leaves it
 * out of the calibration too. Every other packed set is the suite set of the same name.
 */
export const PACKED_FROM: Readonly<Record<string, string>> = { 'longmemeval-dialogue': 'longmemeval' };

/**
 * The packed sets an evaluation of the suite set `name` must not be calibrated on: that set and what was packed
 * from it. By name, not by prefix: people-facts-2 is another set, not a part of people-facts.
 */
export function packedFrom(name: string, packed: readonly string[]): string[] {
  return packed.filter((n) => n === name || PACKED_FROM[n] === name);
}

/** LongMemEval users packed: all 63 (with 12 the English fit rested on 12 questions when people-facts is left out). */
const DIALOGUE_USERS = 63;
/** Sessions kept per dialogue user besides those that hold an answer. */
const DISTRACTOR_SESSIONS = 2;

function packSet(name: string, language: string, data: EvalData, exhaustive: boolean): PackedLabelledSets['sets'][number] {
  return {
    name,
    language,
    exhaustive,
    memories: data.memories.map((m) => [m.userId, m.id, m.text, m.createdAt]),
    queries: data.queries.map((q) => [q.userId, q.query, q.gold, q.unanswerable ? 1 : 0]),
  };
}

/** The session of a LongMemEval memory id `<question>:<session>:<turn>`. */
const sessionOf = (id: string): string => id.slice(0, id.lastIndexOf(':'));

function dialogueSubset(data: EvalData): EvalData {
  const byCategory = new Map<string, string[]>();
  for (const q of data.queries) byCategory.set(q.category, [...(byCategory.get(q.category) ?? []), q.userId]);
  const users: string[] = [];
  // Round robin over the kinds of question, so that a few users cover them all.
  for (let round = 0; users.length < DIALOGUE_USERS && round < 20; round++) {
    for (const ids of byCategory.values()) if (ids[round] !== undefined && users.length < DIALOGUE_USERS) users.push(ids[round] as string);
  }
  const queries = data.queries.filter((q) => users.includes(q.userId));
  const keepSessions = new Set<string>();
  for (const userId of users) {
    const gold = new Set(queries.filter((q) => q.userId === userId).flatMap((q) => [...q.gold, ...(q.sessionGold ?? [])]).map(sessionOf));
    const sessions = [...new Set(data.memories.filter((m) => m.userId === userId).map((m) => sessionOf(m.id)))];
    for (const s of sessions) if (gold.has(s)) keepSessions.add(s);
    for (const s of sessions.filter((s) => !gold.has(s)).slice(0, DISTRACTOR_SESSIONS)) keepSessions.add(s);
  }
  return { memories: data.memories.filter((m) => users.includes(m.userId) && keepSessions.has(sessionOf(m.id))), queries };
}

export function packLabelledSets(): PackedLabelledSets {
  // The chat tuning set too (never a check set): a fit on clean questions alone put 0.7 higher than chat messages,
  // and the built-in map, want (people-facts held out: raw 0.455 against 0.405 built in, 0.43 with chat).
  const sets: PackedLabelledSets['sets'] = [...ENGLISH_FACT_SETS, 'chat'].map((name) => packSet(name, 'en', loadEvalData(join(dataDir, name)), true));
  const lme = join(sharedDir, 'longmemeval-dev');
  if (!existsSync(join(lme, 'queries.jsonl'))) throw new Error(`${lme} is missing: the English dialogue set is packed from it.`);
  sets.push(packSet('longmemeval-dialogue', 'en', dialogueSubset(loadEvalData(lme)), false));
  for (const code of FACT_LANGUAGES) sets.push(packSet(`facts-${code}`, code, loadEvalData(join(dataDir, `facts-${code}`)), true));
  return { version: 1, offTopic: readOffTopic(), sets };
}
