/**
 * What the benchmark needs from a storage backend, so that one benchmark measures either: where a set lives (a
 * SQLite file, or a PostgreSQL schema), how the servers under test are pointed at it, how it is opened for
 * loading and for measuring, its size on disk, and the vector search on its own (outside recall). Everything
 * else (data, phases, report) is shared and lives in bench.ts.
 */
import type { MemoryStore } from '../../src/core/store.js';

/** How a child process (`agent-memory serve` or `mcp`) is pointed at a set: extra arguments and environment. */
export interface ChildTarget {
  args: readonly string[];
  env: Readonly<Record<string, string>>;
}

export interface VectorQuery {
  userId: string;
  embedding: Float32Array;
  k: number;
}

/**
 * The vector search alone. `index`: the approximate path (SQLite: sign-bit pre-filter then exact cosine; PostgreSQL:
 * the HNSW index); `exact`: every vector of the user; `recall`: whichever of the two recall uses for this user.
 * Results are keys (whatever identifies a row in this backend), best first.
 */
export interface VectorProbe {
  search(query: VectorQuery, path: 'index' | 'exact' | 'recall'): Promise<string[]>;
  /** Keys, as `search` returns them, of the memories with real (not synthetic) vectors. */
  targetKeys(): Promise<Set<string>>;
  /** A sentence on how the index path ran for this query (e.g. what the planner chose), when there is one. */
  explain(query: VectorQuery): Promise<string | undefined>;
}

export interface OpenedSet {
  store: MemoryStore;
  vectors: VectorProbe;
}

/** One set's database. */
export interface SetTarget {
  readonly name: string;
  readonly child: ChildTarget;
  /**
   * Makes this set the one in use, before a phase that uses it starts. A no-op where every connection keeps to its
   * own set; where all connections share one session (PGlite), it switches that session's search_path.
   */
  activate(): Promise<void>;
  /** The store as a server opens it, with the vector probe over the same connection(s). */
  open(): Promise<OpenedSet>;
  /** The store with the bench's load settings, for building the set. */
  openForLoad(): Promise<MemoryStore>;
  /** After a build: what the database would soon do by itself after a bulk load (PostgreSQL: ANALYZE). */
  afterLoad(): Promise<void>;
  /** Bytes on disk: the file (with its WAL), or the schema's tables with their indexes and TOAST. */
  bytes(): Promise<number>;
  remove(): Promise<void>;
}

/** The report's wording where the backends differ. */
export interface BackendText {
  /** Title suffix, e.g. " on PostgreSQL". */
  title: string;
  /** "one process per database file" or the like. */
  perSet: string;
  /** A sentence on the bench-only settings used while building the sets. */
  loadSettings: string;
  /** The recall table's size column, and the resources table's. */
  sizeColumn: string;
  sizePer100k: string;
  /** What the `index` path of the vector probe is. */
  indexPath: string;
  /** What "vector search alone" in the breakdown of recall's time measures. */
  vectorAlone: string;
  /** What recall's word side is. */
  wordSide: string;
  /** How `agent-memory mcp` is pointed at the 1,000-memory set. */
  mcpArgs: string;
  /** The server's memory: what RSS covers. */
  rss: string;
}

export interface BenchBackend {
  readonly kind: 'sqlite' | 'postgres';
  readonly text: BackendText;
  /**
   * False when the database cannot serve two sets at once (all connections share one session, as on PGlite): the
   * bench then never keeps one set's server up while it measures another.
   */
  readonly concurrentSets: boolean;
  /** A new, empty set. `name` is short, lower-case letters, digits and "_". */
  create(name: string): Promise<SetTarget>;
  /** Lines for the report's header: what the data sat on (URL masked), and warnings. */
  describe(): Promise<string[]>;
  /** Removes what the bench created (unless `keep`) and closes its connections. */
  close(keep: boolean): Promise<void>;
}
