/**
 * `agent-memory/langgraph`: a LangGraph `BaseStore` over agent-memory, so that `graph.compile({ store })` gives a
 * LangGraph agent long-term memory kept (and recalled by meaning) by an agent-memory server. Every operation is one
 * or a few calls of the project's `MemoryClient`; nothing is cached here, so several graphs (and nodes) share one
 * memory.
 *
 * - A namespace is `[userId]` (the app "default") or `[userId, appId]` (namespace.ts).
 * - `put(namespace, key, value)` stores `value.text` as the memory's text and the other fields as its metadata,
 *   under the caller's key (PUT /v1/memories/by-key/{key}): a second put replaces the memory, never duplicates it.
 *   `put` with `null` (and `delete`) forgets it.
 * - `get` and `search` give the value back as it was put: `{ text, ...metadata }`.
 * - `search` with `query` is recall (by meaning, with its score, best first); without, the newest first. `filter`
 *   is the metadata filter (filter.ts).
 */
import {
  BaseStore,
  InvalidNamespaceError,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from '@langchain/langgraph-checkpoint';
import type { MemoryClient } from '../client/client.js';
import { NotFoundError } from '../client/errors.js';
import { LIMITS } from '../core/limits.js';
import { MEMORY_ID_PATTERN } from '../core/patterns.js';
import type { ListItem, MemoryView } from '../core/schemas.js';
import { metadataFilter } from './filter.js';
import { namespaceOf, ownerOf, prefixOwner, type Owner } from './namespace.js';

export interface AgentMemoryStoreOptions {
  /** The agent-memory client the store calls (its API key decides which apps the store may touch). */
  client: MemoryClient;
}

/** The answer of a read, or null when the server says there is no such memory. */
async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/** The value of an item: the memory's text and its metadata, as put. */
function valueOf(memory: ListItem): Record<string, unknown> {
  return { ...memory.metadata, text: memory.text };
}

function itemOf(memory: ListItem, userId: string): Item {
  return {
    // A memory stored without a key (over REST or MCP) is named by its id.
    key: memory.key ?? memory.id,
    namespace: namespaceOf(userId, memory.appId),
    value: valueOf(memory),
    createdAt: new Date(memory.createdAt),
    updatedAt: new Date(memory.updatedAt),
  };
}

/** A value as a memory: its `text`, and the rest as metadata. */
function splitValue(value: Record<string, unknown>): { text: string; metadata: Record<string, unknown> } {
  const { text, ...metadata } = value;
  if (typeof text !== 'string' || text.trim() === '') {
    throw new TypeError('agent-memory stores value.text as the memory: a put needs a value with a non-empty string "text" (the other fields become its metadata).');
  }
  return { text, metadata };
}

const isPut = (op: Operation): op is PutOperation => 'value' in op;
const isSearch = (op: Operation): op is SearchOperation => 'namespacePrefix' in op;
const isList = (op: Operation): op is ListNamespacesOperation => 'limit' in op && !('namespacePrefix' in op);

export class AgentMemoryStore extends BaseStore {
  readonly #client: MemoryClient;

  constructor(options: AgentMemoryStoreOptions) {
    super();
    this.#client = options.client;
  }

  /** Runs the operations in order (a put then a get of the same key sees the put), one result per operation. */
  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations) {
      if (isPut(op)) results.push(await this.#put(op));
      else if (isSearch(op)) results.push(await this.#search(op));
      else if (isList(op)) results.push(await this.#listNamespaces(op));
      else results.push(await this.#get(op));
    }
    return results as OperationResults<Op>;
  }

  async #get(op: GetOperation): Promise<Item | null> {
    const owner = ownerOf(op.namespace);
    const memory = (await orNull(this.#client.getByKey(op.key, owner))) ?? (await this.#byId(op.key, owner));
    return memory ? itemOf(memory, owner.userId) : null;
  }

  /**
   * A memory stored without a key (over REST or MCP) is listed with its id as its key: get and delete find it by
   * that id too, when it belongs to the namespace's user and app.
   */
  async #byId(key: string, owner: Owner): Promise<MemoryView | null> {
    if (!MEMORY_ID_PATTERN.test(key)) return null;
    const memory = await orNull(this.#client.get(key));
    return memory && memory.key === undefined && memory.userId === owner.userId && memory.appId === owner.appId ? memory : null;
  }

  async #put(op: PutOperation): Promise<void> {
    const owner = ownerOf(op.namespace);
    if (op.value === null) {
      const { deleted } = await this.#client.deleteByKey(op.key, owner);
      const unkeyed = deleted === 0 ? await this.#byId(op.key, owner) : null;
      if (unkeyed) await this.#client.forget(unkeyed.id);
      return;
    }
    // `index` is not needed: agent-memory embeds the text (and indexes its words) of every memory.
    const { text, metadata } = splitValue(op.value);
    await this.#client.putByKey(op.key, { ...owner, text, metadata });
  }

  async #search(op: SearchOperation): Promise<SearchItem[]> {
    const { userId, appId } = prefixOwner(op.namespacePrefix);
    const metadata = metadataFilter(op.filter);
    const limit = op.limit ?? 10;
    const offset = op.offset ?? 0;
    if (op.query !== undefined) {
      if (offset + limit > LIMITS.recallLimitMax) {
        throw new RangeError(`A search with query returns at most ${LIMITS.recallLimitMax} items: offset + limit was ${offset + limit}.`);
      }
      // minScore 0: a store search ranks what there is (best first, with its score) rather than judging relevance.
      const found = await this.#client.recallRaw({ userId, appId, query: op.query, limit: offset + limit, minScore: 0, metadata });
      return found.slice(offset).map((m) => ({ ...itemOf(m, userId), score: m.score }));
    }
    return this.#listed(userId, appId, metadata, offset, limit);
  }

  /** `limit` memories from `offset`, newest first, read in the largest pages the API gives. */
  async #listed(userId: string, appId: string | undefined, metadata: ReturnType<typeof metadataFilter>, offset: number, limit: number): Promise<SearchItem[]> {
    const pageSize = LIMITS.pageSizeMax;
    const items: SearchItem[] = [];
    let skip = offset % pageSize;
    for (let page = Math.floor(offset / pageSize); items.length < limit; page++) {
      const { memories } = await this.#client.list({ userId, appId, page, pageSize, ...(metadata ? { metadata } : {}) });
      items.push(...memories.slice(skip, skip + limit - items.length).map((m) => itemOf(m, userId)));
      skip = 0;
      if (memories.length < pageSize) break;
    }
    return items;
  }

  /**
   * The namespaces that hold memories: `[userId]` for every user the API key can see, or `[userId, appId]` for the
   * users of an app when a match condition names the app as its second label.
   */
  async #listNamespaces(op: ListNamespacesOperation): Promise<string[][]> {
    const conditions = op.matchConditions ?? [];
    const app = conditions.map((c) => (c.matchType === 'prefix' ? c.path[1] : undefined)).find((label) => label !== undefined && label !== '*');
    const users = await this.#allUsers(app);
    const all = users.map((userId) => (app === undefined ? [userId] : [userId, app]));
    const matching = all.filter((ns) => conditions.every((c) => matches(ns, c)));
    const truncated = op.maxDepth === undefined ? matching : matching.map((ns) => ns.slice(0, op.maxDepth));
    const unique = [...new Map(truncated.map((ns) => [JSON.stringify(ns), ns])).values()];
    return unique.slice(op.offset, op.offset + op.limit);
  }

  async #allUsers(appId: string | undefined): Promise<string[]> {
    const users: string[] = [];
    for (let page = 0; ; page++) {
      const result = await this.#client.listUsers({ page, pageSize: LIMITS.pageSizeMax, ...(appId === undefined ? {} : { appId }) });
      users.push(...result.users.map((u) => u.userId));
      if (result.users.length < LIMITS.pageSizeMax) return users;
    }
  }
}

/** A namespace against one match condition: its labels at the start (prefix) or end (suffix), "*" matching any. */
function matches(namespace: readonly string[], condition: MatchCondition): boolean {
  const { path } = condition;
  if (path.length > namespace.length) return false;
  const part = condition.matchType === 'prefix' ? namespace.slice(0, path.length) : namespace.slice(namespace.length - path.length);
  return path.every((label, i) => label === '*' || label === part[i]);
}

export { InvalidNamespaceError };
