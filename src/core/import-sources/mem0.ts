/**
 * `agent-memory import --from mem0 FILE`: mem0's export, the JSON its `get_all` answers (`{"results": [...]}`, or
 * the bare array older versions answer). Each entry `{id, memory, user_id, metadata, created_at, updated_at,
 * agent_id?, run_id?, categories?}` becomes one memory: `memory` its text, `user_id` its user (`--user-id` overrides
 * or fills it), `metadata` kept (with `source: "mem0"`, mem0's own `source` as `mem0Source`, and agent_id, run_id,
 * categories when present), its times kept, and mem0's `id` kept as `metadata.externalId`, which also makes a re-run skip what it stored.
 */
import { z } from 'zod';
import { MemoryError } from '../errors.js';
import { importLineSchema, parseJsonObject, type ImportLine, type ImportScope } from '../import.js';
import { parseInput } from '../validation.js';

export const MEM0_SOURCE = 'mem0';

const optionalText = (field: string) => z.string({ error: `${field} must be a string.` }).nullish();

// mem0's fields as its API answers them; fields it adds later are ignored, not refused.
const mem0EntrySchema = z.object({
  id: z.union([z.string(), z.number()], { error: 'id must be a string.' }).transform(String).optional(),
  memory: z.string({ error: 'memory must be a string (the memory\u2019s text).' }),
  user_id: optionalText('user_id'),
  agent_id: optionalText('agent_id'),
  run_id: optionalText('run_id'),
  metadata: z.record(z.string(), z.unknown(), { error: 'metadata must be an object.' }).nullish(),
  categories: z.array(z.string(), { error: 'categories must be an array of strings.' }).nullish(),
  created_at: optionalText('created_at'),
  updated_at: optionalText('updated_at'),
});

/** The entries of a mem0 export's text; a MemoryError saying what the file should be otherwise. */
export function mem0Entries(text: string): unknown[] {
  const expected = 'mem0\u2019s get_all JSON: {"results": [...]} or an array of memories';
  if (text.trim().length === 0) throw new MemoryError('validation_error', `the file is empty; expected ${expected}.`);
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new MemoryError('validation_error', `not valid JSON (${error instanceof Error ? error.message : String(error)}); expected ${expected}.`);
  }
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object' && Array.isArray((value as { results?: unknown }).results)) {
    return (value as { results: unknown[] }).results;
  }
  throw new MemoryError('validation_error', `no memories found; expected ${expected}.`);
}

/** mem0 (Python's isoformat) may write a time without a zone: read it as UTC rather than refuse it. */
function withZone(time: string | null | undefined): string | undefined {
  if (time === null || time === undefined) return undefined;
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(time) ? `${time}Z` : time;
}

/** One entry (as JSON text) as the memory it becomes; a MemoryError naming the field at fault otherwise. */
export function mem0Entry(raw: string, scope: ImportScope): ImportLine[] {
  const entry = parseInput(mem0EntrySchema, parseJsonObject(raw, 'an entry'));
  const userId = scope.userId ?? entry.user_id ?? undefined;
  if (userId === undefined) {
    throw new MemoryError('validation_error', 'the entry has no user_id; pass --user-id to say whose memories these are.');
  }
  // The provenance is the importer's: mem0's own `source` (an app's label, say) is kept as `mem0Source`, and never
  // replaces "mem0", so that `metadata: {"source": "mem0"}` finds every imported memory.
  const { source: theirSource, ...theirs } = entry.metadata ?? {};
  const metadata: Record<string, unknown> = {
    ...(entry.agent_id ? { agentId: entry.agent_id } : {}),
    ...(entry.run_id ? { runId: entry.run_id } : {}),
    ...(entry.categories && entry.categories.length > 0 ? { categories: entry.categories } : {}),
    ...theirs,
    ...(theirSource === undefined ? {} : { mem0Source: theirSource }),
    source: MEM0_SOURCE,
  };
  const createdAt = withZone(entry.created_at);
  const updatedAt = withZone(entry.updated_at);
  return [
    parseInput(importLineSchema, {
      userId,
      ...(scope.appId === undefined ? {} : { appId: scope.appId }),
      text: entry.memory,
      metadata,
      ...(createdAt === undefined ? {} : { createdAt }),
      ...(updatedAt === undefined ? {} : { updatedAt }),
      ...(entry.id === undefined ? {} : { id: entry.id }),
    }),
  ];
}
