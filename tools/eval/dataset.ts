/**
 * Reading an evaluation set in the layout of the LoCoMo dev split: `memories.jsonl` (one stored memory a line) and
 * `queries.jsonl` (one recall query a line, with the dataset ids of its gold memories).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface EvalMemory {
  userId: string;
  /** The dataset's own id; the service assigns another, so the evaluation keeps this one in metadata. */
  id: string;
  text: string;
  createdAt: string;
}

export interface EvalQuery {
  id: string;
  userId: string;
  query: string;
  gold: string[];
  category: string;
  /** LongMemEval: every turn of the sessions that hold the answer (session-level hit@k); absent elsewhere. */
  sessionGold?: string[] | undefined;
  /**
   * A question whose answer is not among the memories at all (the set's own label: category "unanswerable", or a
   * LongMemEval `_abs` question): recall should return nothing for it at the defaults.
   */
  unanswerable: boolean;
}

export interface EvalData {
  memories: EvalMemory[];
  queries: EvalQuery[];
}

function readJsonl(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line, i) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        throw new Error(`${path}:${i + 1} is not JSON`);
      }
    });
}

function field(row: unknown, name: string, path: string): unknown {
  if (row === null || typeof row !== 'object' || !(name in row)) throw new Error(`${path}: a row has no "${name}"`);
  return (row as Record<string, unknown>)[name];
}

function text(row: unknown, name: string, path: string): string {
  const value = field(row, name, path);
  if (typeof value !== 'string') throw new Error(`${path}: "${name}" must be a string`);
  return value;
}

export function loadEvalData(dir: string): EvalData {
  const memoriesPath = join(dir, 'memories.jsonl');
  const queriesPath = join(dir, 'queries.jsonl');
  const memories = readJsonl(memoriesPath).map(
    (row): EvalMemory => ({
      userId: text(row, 'userId', memoriesPath),
      id: text(row, 'id', memoriesPath),
      text: text(row, 'text', memoriesPath),
      createdAt: text(row, 'createdAt', memoriesPath),
    }),
  );
  const queries = readJsonl(queriesPath).map((row): EvalQuery => {
    const gold = field(row, 'gold', queriesPath);
    if (!Array.isArray(gold) || !gold.every((g): g is string => typeof g === 'string')) {
      throw new Error(`${queriesPath}: "gold" must be an array of ids`);
    }
    const sessionGold = (row as Record<string, unknown>).sessionGold;
    if (sessionGold !== undefined && (!Array.isArray(sessionGold) || !sessionGold.every((g) => typeof g === 'string'))) {
      throw new Error(`${queriesPath}: "sessionGold" must be an array of ids`);
    }
    const id = text(row, 'id', queriesPath);
    const category = text(row, 'category', queriesPath);
    return {
      id,
      userId: text(row, 'userId', queriesPath),
      query: text(row, 'query', queriesPath),
      gold,
      category,
      sessionGold: sessionGold as string[] | undefined,
      unanswerable: gold.length === 0 && (category === 'unanswerable' || id.endsWith('_abs')),
    };
  });
  return { memories, queries };
}

/** The users in order of first appearance among the memories. */
export function usersOf(memories: readonly EvalMemory[]): string[] {
  return [...new Set(memories.map((m) => m.userId))];
}

/** Only the first `n` users' memories and queries (every user when `n` is undefined): quicker runs of a large set. */
export function firstUsers(data: EvalData, n: number | undefined): EvalData {
  if (n === undefined) return data;
  const keep = new Set(usersOf(data.memories).slice(0, n));
  return { memories: data.memories.filter((m) => keep.has(m.userId)), queries: data.queries.filter((q) => keep.has(q.userId)) };
}
