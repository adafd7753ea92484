/**
 * The server's Prometheus metrics (prom-client), made only when a metrics token is configured (serve.ts). One
 * registry per server, so that tests and several servers in one process do not share counters. Every label has a
 * small, fixed set of values: route patterns (never raw paths), tool names, error codes and kinds, operation and
 * phase names, worker slots. No user id, key, text or query ever becomes a label.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EmbedPoolStats } from '../embeddings/embed-pool.js';

/** Seconds: from a sub-millisecond SQLite read to a model queue under load. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export type Phase = 'queue_wait' | 'model' | 'storage';

export interface Metrics {
  readonly registry: Registry;
  /** The exposition: content type and text. */
  render(): Promise<{ contentType: string; body: string }>;
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  mcpToolCall(tool: string, outcome: string): void;
  phase(operation: string, phase: Phase, seconds: number): void;
  rateLimitRefusal(): void;
  databaseError(kind: string): void;
  /** A failed request to the embedding endpoint: its HTTP status, `network` (down, timeout) or `malformed`. */
  embedEndpointError(reason: string): void;
  /** Where the embedding pool's gauges are read from at each scrape (none for the in-process hash model). */
  watchEmbedPool(stats: () => EmbedPoolStats): void;
  /** Where the embedding backlog (memories waiting for their vector) is counted at each scrape. */
  watchEmbeddingBacklog(count: () => Promise<number>): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  // Process (CPU, memory, handles) and Node's event loop lag and GC, under their usual names.
  collectDefaultMetrics({ register: registry });

  const http = new Histogram({
    name: 'agent_memory_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern (unmatched for no route) and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: BUCKETS,
    registers: [registry],
  });
  // Beside the histogram (whose _count holds the same), a plain counter: what most dashboards and parsers read.
  const requests = new Counter({
    name: 'agent_memory_http_requests_total',
    help: 'HTTP requests by method, route pattern (unmatched for no route) and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const tools = new Counter({
    name: 'agent_memory_mcp_tool_calls_total',
    help: 'MCP tool calls by tool and outcome (ok, or the contract error code).',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  });
  const phases = new Histogram({
    name: 'agent_memory_operation_phase_seconds',
    help: 'Time of a service operation (store, recall, ...) in each phase: embedding queue wait, model time, storage time.',
    labelNames: ['operation', 'phase'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'agent_memory_rate_limit_refusals_total',
    help: 'Requests and MCP tool calls refused by the per-key rate limit (answered 429).',
    registers: [registry],
  });
  const dbErrors = new Counter({
    name: 'agent_memory_database_errors_total',
    help: 'Database errors by kind: SQLite result code, PostgreSQL SQLSTATE class, network error code, unavailable, other.',
    labelNames: ['kind'],
    registers: [registry],
  });
  const endpointErrors = new Counter({
    name: 'agent_memory_embed_endpoint_errors_total',
    help: 'Failed requests to the embedding endpoint (--embed-url) by reason: HTTP status, network (down, timeout) or malformed.',
    labelNames: ['reason'],
    registers: [registry],
  });

  let poolStats: (() => EmbedPoolStats) | undefined;
  new Gauge({
    name: 'agent_memory_embed_queue_texts',
    help: 'Texts waiting in the embedding queue that all workers share.',
    registers: [registry],
    collect() {
      if (poolStats) this.set(poolStats().queued);
    },
  });
  new Gauge({
    name: 'agent_memory_embed_worker_batch_texts',
    help: 'Texts in the batch each embedding worker slot is embedding now (0 when idle or stopped).',
    labelNames: ['worker'],
    registers: [registry],
    collect() {
      poolStats?.().inFlight.forEach((texts, slot) => this.set({ worker: String(slot) }, texts));
    },
  });
  new Gauge({
    name: 'agent_memory_embed_workers',
    help: 'Embedding workers by state: running (loaded or loading) and, of those, loading.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      if (!poolStats) return;
      const stats = poolStats();
      this.set({ state: 'running' }, stats.running);
      this.set({ state: 'loading' }, stats.loading);
    },
  });

  let backlog: (() => Promise<number>) | undefined;
  new Gauge({
    name: 'agent_memory_embedding_backlog',
    help: 'Memories stored while the embedding endpoint was down that wait for their vector (the backfill embeds them).',
    registers: [registry],
    async collect() {
      // A database that does not answer leaves the last value; its errors are counted elsewhere.
      const count = await backlog?.().catch(() => undefined);
      if (count !== undefined) this.set(count);
    },
  });

  return {
    registry,
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    httpRequest(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      http.observe(labels, seconds);
      requests.inc(labels);
    },
    mcpToolCall(tool, outcome) {
      tools.inc({ tool, outcome });
    },
    phase(operation, phase, seconds) {
      phases.observe({ operation, phase }, seconds);
    },
    rateLimitRefusal() {
      refusals.inc();
    },
    databaseError(kind) {
      dbErrors.inc({ kind });
    },
    embedEndpointError(reason) {
      endpointErrors.inc({ reason });
    },
    watchEmbedPool(stats) {
      poolStats = stats;
    },
    watchEmbeddingBacklog(count) {
      backlog = count;
    },
  };
}
