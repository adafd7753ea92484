import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHttpHandler } from '../../src/mcp/http.js';
import { call, connectHttp } from '../mcp/helpers.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';

// /metrics on a real server (the CLI's wiring, SQLite, the hash model), scraped over HTTP and read with a Prometheus
// text-format parser; the counters must move with real REST requests and MCP tool calls through the SDK's client.

const TOKEN = 'metrics-token-0123456789';

async function scrape(server: TestServer, token = TOKEN): Promise<PrometheusFamily[]> {
  const res = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusTextFormat(await res.text());
}

function family(families: PrometheusFamily[], name: string): PrometheusFamily {
  const found = families.find((f) => f.name === name);
  if (!found) throw new Error(`no metric ${name} in the scrape`);
  return found;
}

function sample(f: PrometheusFamily, labels: Record<string, string>): PrometheusSample | undefined {
  return f.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

/** A counter's value for the sample with these labels (0 when there is none yet). */
function countOf(families: PrometheusFamily[], name: string, labels: Record<string, string> = {}): number {
  return Number(sample(family(families, name), labels)?.value ?? 0);
}

/**
 * How many observations a histogram holds for these labels. The text parser flattens a histogram into one
 * unlabelled sample (it handles only histograms without labels), so these are read from prom-client's own registry
 * as JSON: the same registry the scrape renders.
 */
async function observations(server: TestServer, name: string, labels: Record<string, string>): Promise<number> {
  const metrics = server.metrics;
  if (!metrics) throw new Error('this server has no metrics');
  const found = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const values = (found?.values ?? []) as Array<{ metricName?: string; labels: Record<string, string | number>; value: number }>;
  const count = values.find(
    (v) => v.metricName === `${name}_count` && Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want),
  );
  return count?.value ?? 0;
}

describe('/metrics with a token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(
      { metricsToken: TOKEN },
      {
        mcpHandler: (service, hooks) =>
          createMcpHttpHandler({ service, allowedHostnames: ['127.0.0.1'], onToolCall: hooks?.onToolCall }),
      },
    );
  });
  afterAll(async () => {
    await server.stop();
  });

  it('serves the process and event-loop defaults and every agent-memory family, typed', async () => {
    const families = await scrape(server);
    expect(family(families, 'process_cpu_user_seconds_total').type).toBe('COUNTER');
    expect(family(families, 'process_resident_memory_bytes').type).toBe('GAUGE');
    expect(family(families, 'nodejs_eventloop_lag_seconds').type).toBe('GAUGE');
    expect(family(families, 'agent_memory_http_request_duration_seconds').type).toBe('HISTOGRAM');
    expect(family(families, 'agent_memory_http_requests_total').type).toBe('COUNTER');
    expect(family(families, 'agent_memory_operation_phase_seconds').type).toBe('HISTOGRAM');
    expect(family(families, 'agent_memory_mcp_tool_calls_total').type).toBe('COUNTER');
    expect(family(families, 'agent_memory_rate_limit_refusals_total').type).toBe('COUNTER');
    expect(family(families, 'agent_memory_database_errors_total').type).toBe('COUNTER');
  });

  it('counts REST requests by route pattern and status, never by raw path', async () => {
    const before = await scrape(server);
    const route = { method: 'GET', route: '/v1/memories/by-id/:id' };
    const stored = await server.call('/v1/memories', { method: 'POST', json: { userId: 'metrics-user', text: 'The user likes green tea.' } });
    expect(stored.status).toBe(201);
    const { id } = (await stored.json()) as { id: string };
    expect((await server.call(`/v1/memories/by-id/${id}`)).status).toBe(200);
    expect((await server.call(`/v1/memories/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await server.call(`/v1/memories/by-id/${id}`)).status).toBe(404);
    const recalled = await server.call('/v1/memories/recall', { method: 'POST', json: { userId: 'metrics-user', query: 'what tea?' } });
    expect(recalled.status).toBe(200);
    expect((await server.call('/no/such/path')).status).toBe(404);
    const after = await scrape(server);

    const http = 'agent_memory_http_requests_total';
    const delta = (labels: Record<string, string>) => countOf(after, http, labels) - countOf(before, http, labels);
    expect(delta({ ...route, status: '200' })).toBe(1);
    expect(delta({ ...route, status: '404' })).toBe(1);
    expect(delta({ method: 'POST', route: '/v1/memories', status: '201' })).toBe(1);
    expect(delta({ method: 'DELETE', route: '/v1/memories/:id', status: '200' })).toBe(1);
    expect(delta({ method: 'POST', route: '/v1/memories/recall', status: '200' })).toBe(1);
    expect(delta({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(await observations(server, 'agent_memory_http_request_duration_seconds', { ...route, status: '200' })).toBeGreaterThanOrEqual(1);
    // No label value anywhere holds an id, a user id or a text.
    const values = after.flatMap((f) => f.metrics.flatMap((m) => Object.values(m.labels ?? {})));
    for (const secret of [id, 'metrics-user', 'green tea', '/no/such/path', TEST_KEY]) {
      expect(values.some((v) => v.includes(secret))).toBe(false);
    }
    // Store and recall are timed in their storage phase.
    const phases = 'agent_memory_operation_phase_seconds';
    expect(await observations(server, phases, { operation: 'store', phase: 'storage' })).toBeGreaterThanOrEqual(1);
    expect(await observations(server, phases, { operation: 'recall', phase: 'storage' })).toBeGreaterThanOrEqual(1);
  });

  it('counts MCP tool calls by tool and outcome', async () => {
    const before = await scrape(server);
    const { client } = await connectHttp(new URL('/mcp', server.url), TEST_KEY);
    try {
      const okCall = await call(client, 'store_memory', { userId: 'mcp-metrics', text: 'The user flies to Oslo in May.' });
      expect(okCall.isError).toBeFalsy();
      const bad = await call(client, 'store_memory', { userId: 'mcp-metrics', text: '' });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
    const after = await scrape(server);
    const tools = 'agent_memory_mcp_tool_calls_total';
    const delta = (labels: Record<string, string>) => countOf(after, tools, labels) - countOf(before, tools, labels);
    expect(delta({ tool: 'store_memory', outcome: 'ok' })).toBe(1);
    expect(delta({ tool: 'store_memory', outcome: 'validation_error' })).toBe(1);
  });

  it('counts database errors by kind', async () => {
    const before = await scrape(server);
    // The server's own connection refuses writes from now on: a real SQLite error under a store.
    server.sqlite().pragma('query_only = ON');
    try {
      const res = await server.call('/v1/memories', { method: 'POST', json: { userId: 'metrics-user', text: 'A write the database refuses.' } });
      // SQLite's refusal is answered as the database being unavailable (503), and counted under its own code.
      expect(res.status).toBe(503);
    } finally {
      server.sqlite().pragma('query_only = OFF');
    }
    const after = await scrape(server);
    const errors = 'agent_memory_database_errors_total';
    expect(countOf(after, errors, { kind: 'sqlite_readonly' }) - countOf(before, errors, { kind: 'sqlite_readonly' })).toBeGreaterThanOrEqual(1);
  });

  it('refuses a scrape without the token, or with another one, as the contract\u2019s 401', async () => {
    const attempts: Array<Record<string, string>> = [{}, { Authorization: `Bearer ${TOKEN}x` }, { Authorization: `Bearer ${TEST_KEY}` }, { Authorization: TOKEN }];
    for (const headers of attempts) {
      const res = await fetch(`${server.url}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      const body = (await res.json()) as { error: { code: string } };
      expect(body.error.code).toBe('auth_error');
    }
  });
});

describe('/metrics and the rate limit', () => {
  it('counts refusals', async () => {
    const server = await startTestServer({ metricsToken: TOKEN, rateLimit: 2 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await server.call('/v1/memories?userId=u')).status);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
      const families = await scrape(server);
      expect(countOf(families, 'agent_memory_rate_limit_refusals_total')).toBe(statuses.filter((s) => s === 429).length);
    } finally {
      await server.stop();
    }
  });
});

describe('/metrics without a token', () => {
  it('does not exist: the 404 of any unknown route, with or without credentials', async () => {
    const server = await startTestServer();
    try {
      const attempts: Array<Record<string, string>> = [{}, { Authorization: `Bearer ${TOKEN}` }];
      for (const headers of attempts) {
        const res = await fetch(`${server.url}/metrics`, { headers });
        expect(res.status).toBe(404);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
      }
    } finally {
      await server.stop();
    }
  });
});

describe('/metrics with the real model', () => {
  it('splits store and recall into embedding queue wait, model time and storage; shows the pool per worker', async () => {
    // Two workers allowed, one started: the pool grows only when texts wait.
    const server = await startTestServer({ metricsToken: TOKEN, model: 'use-lite', embedWorkers: 2 });
    try {
      expect((await server.call('/v1/memories', { method: 'POST', json: { userId: 'u', text: 'The user keeps bees.' } })).status).toBe(201);
      expect((await server.call('/v1/memories/recall', { method: 'POST', json: { userId: 'u', query: 'insects?' } })).status).toBe(200);
      for (const operation of ['store', 'recall']) {
        for (const phase of ['queue_wait', 'model', 'storage']) {
          expect(await observations(server, 'agent_memory_operation_phase_seconds', { operation, phase }), `${operation} ${phase}`).toBe(1);
        }
      }
      const families = await scrape(server);
      expect(Number(sample(family(families, 'agent_memory_embed_workers'), { state: 'running' })?.value)).toBe(1);
      expect(Number(sample(family(families, 'agent_memory_embed_workers'), { state: 'loading' })?.value)).toBe(0);
      expect(Number(family(families, 'agent_memory_embed_queue_texts').metrics[0]?.value)).toBe(0);
      const slots = family(families, 'agent_memory_embed_worker_batch_texts').metrics.map((m) => m.labels?.worker).sort();
      expect(slots).toEqual(['0', '1']);
    } finally {
      await server.stop();
    }
  });
});
