import { MemoryError } from './errors.js';
import type { ModelRecord } from './store.js';

/**
 * A node declares at start which embedding model it embeds with (`MemoryStore.useModel`), and the store refuses
 * another one then. The database's model can still change under a running node (`agent-memory reembed` from
 * another machine or process): from then on the node's vectors would be of another model, or of another
 * dimension. Stores compare, in the same transaction as every write of a vector and every vector search, and
 * refuse with this 503 instead of storing a vector of the wrong model (or failing with a 500).
 */
export function assertModelUnchanged(declared: ModelRecord | undefined, current: ModelRecord | undefined): void {
  if (declared === undefined) return;
  if (current !== undefined && current.model === declared.model && current.dimension === declared.dimension) return;
  const now = current === undefined ? 'none' : `"${current.model}" (${current.dimension} dimensions)`;
  throw new MemoryError(
    'unavailable',
    `The database's embedding model is now ${now}, not "${declared.model}" that this server embeds with: restart the server with the database's model.`,
    { retryAfterSeconds: 30 },
  );
}
