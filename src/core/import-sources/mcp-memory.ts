/**
 * `agent-memory import --from mcp-memory FILE`: the MCP reference memory server's knowledge graph
 * (@modelcontextprotocol/server-memory, its `memory.jsonl`) as memories a person would recognise. Each line is an
 * entity (`{"type":"entity","name","entityType","observations":[...]}`) or a relation
 * (`{"type":"relation","from","to","relationType"}`):
 *
 * - one memory per observation, "Alice (person): works at Acme", metadata `{source, entity, entityType}`;
 * - an entity without observations still says that it exists: "Alice (person)";
 * - one memory per relation, "Alice works at Acme" (the relation type's underscores read as spaces, as a person
 *   would say it; the type itself is kept), metadata `{source, relation, from, to}`.
 *
 * The server's files carry no user or app: `--user-id` (required) and `--app-id` say whose memories they become.
 */
import { z } from 'zod';
import { MemoryError } from '../errors.js';
import { importLineSchema, parseJsonObject, type ImportLine, type ImportScope } from '../import.js';
import { parseInput } from '../validation.js';

export const MCP_MEMORY_SOURCE = 'mcp-memory';

// The server's own field types (its EntitySchema and RelationSchema); fields it may add later are ignored.
const name = (field: string) => z.string({ error: `${field} must be a string.` }).trim().min(1, `${field} must not be empty.`);
const entitySchema = z.object({
  type: z.literal('entity'),
  name: name('name'),
  entityType: name('entityType'),
  observations: z.array(z.string({ error: 'each observation must be a string.' }), { error: 'observations must be an array of strings.' }),
});
const relationSchema = z.object({
  type: z.literal('relation'),
  from: name('from'),
  to: name('to'),
  relationType: name('relationType'),
});

/** "works_at" -> "works at": how a person would say the relation (the type itself stays in metadata). */
export function relationWords(relationType: string): string {
  return relationType.replace(/[_\s]+/g, ' ').trim();
}

function requireUser(scope: ImportScope): string {
  if (scope.userId === undefined) {
    throw new MemoryError('validation_error', '--user-id is required with --from mcp-memory: the file names no user.');
  }
  return scope.userId;
}

/** One line of `memory.jsonl` as the memories it holds; a MemoryError naming what is wrong otherwise. */
export function mcpMemoryLine(raw: string, scope: ImportScope): ImportLine[] {
  const userId = requireUser(scope);
  const value = parseJsonObject(raw);
  const base = { userId, ...(scope.appId === undefined ? {} : { appId: scope.appId }) };
  const memory = (text: string, metadata: Record<string, unknown>) =>
    parseInput(importLineSchema, { ...base, text, metadata: { source: MCP_MEMORY_SOURCE, ...metadata } });
  if (value.type === 'entity') {
    const entity = parseInput(entitySchema, value);
    const head = `${entity.name} (${entity.entityType})`;
    const metadata = { entity: entity.name, entityType: entity.entityType };
    const observations = entity.observations.map((o) => o.trim()).filter((o) => o.length > 0);
    if (observations.length === 0) return [memory(head, metadata)];
    return observations.map((observation) => memory(`${head}: ${observation}`, metadata));
  }
  if (value.type === 'relation') {
    const relation = parseInput(relationSchema, value);
    return [
      memory(`${relation.from} ${relationWords(relation.relationType)} ${relation.to}`, {
        relation: relation.relationType,
        from: relation.from,
        to: relation.to,
      }),
    ];
  }
  const type = value.type;
  const shown = type === undefined ? 'missing' : typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : `a ${type === null ? 'null' : typeof type}`;
  throw new MemoryError('validation_error', `type must be "entity" or "relation", not ${shown}.`);
}
