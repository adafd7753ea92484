/**
 * A store while the embedding endpoint is down, over the wire: REST answers 201 with `vectorPending: true`, the MCP
 * tool and the TypeScript client say the same, /healthz reports the backlog and /metrics its gauge; once the
 * endpoint is back and the backfill ran, the field and the backlog are gone. On the lane's backend (TEST_BACKEND).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryClient } from '../../src/client/index.js';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { HashingEmbedder } from '../../src/embeddings/hashing.js';
import { startEmbeddingsServer, type EmbeddingsServer } from '../../tools/shared/embeddings-server.js';
import { call, connectInMemory, ok } from '../mcp/helpers.js';
import { startTestServer, TEST_KEY, TEST_METRICS_TOKEN, type TestServer } from '../helpers/server.js';

let endpoint: EmbeddingsServer;
let server: TestServer;

beforeAll(async () => {
  endpoint = await startEmbeddingsServer({ embedder: new HashingEmbedder() });
  server = await startTestServer({ model: 'remote-hash', endpoint: { url: endpoint.url }, metricsToken: TEST_METRICS_TOKEN });
  // The model has no built-in calibration: the service fits one first (its calls to the endpoint are done then).
  await server.runtime.calibrated;
});

const health = async (): Promise<unknown> => (await fetch(`${server.url}/healthz`)).json();
afterAll(async () => {
  await server?.stop();
  await endpoint?.close();
});

async function backlogGauge(): Promise<number | undefined> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${TEST_METRICS_TOKEN}` } })).text();
  const line = text.split('\n').find((l) => l.startsWith('agent_memory_embedding_backlog '));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('storing with the embedding endpoint down', () => {
  it('answers 201 with vectorPending on REST, MCP and the client; /healthz and /metrics show the backlog until the backfill fills it', async () => {
    expect(await health()).toEqual({ status: 'ok', calibration: 'fitted' });
    const stored = await server.call('/v1/memories', { method: 'POST', json: { userId: 'u', text: 'Kept while the endpoint was up.' } });
    expect(stored.status).toBe(201);
    expect(await stored.json()).not.toHaveProperty('vectorPending');
    expect(await backlogGauge()).toBe(0);

    // Down: every attempt of a call (the first and its 3 retries) answers 503.
    endpoint.fail({ kind: 'status', status: 503 });
    const rest = await server.call('/v1/memories', { method: 'POST', json: { userId: 'u', text: 'Stored over REST while the endpoint was down.' } });
    expect(rest.status).toBe(201);
    const restBody = (await rest.json()) as { id: string; vectorPending?: boolean };
    expect(restBody).toMatchObject({ duplicate: false, vectorPending: true });

    const mcp = await connectInMemory(server.runtime, LOCAL_CALLER, { userId: 'u' });
    const tool = ok<{ id: string; vectorPending?: boolean }>(await call(mcp, 'store_memory', { text: 'Stored over MCP while the endpoint was down.' }));
    expect(tool.vectorPending).toBe(true);
    await mcp.close();

    const client = new MemoryClient({ apiKey: TEST_KEY, baseUrl: server.url, maxRetries: 0 });
    const fromClient = await client.store({ userId: 'u', text: 'Stored by the client while the endpoint was down.' });
    expect(fromClient.vectorPending).toBe(true);

    expect(await health()).toEqual({ status: 'ok', calibration: 'fitted', embeddingBacklog: 3 });
    expect(await backlogGauge()).toBe(3);
    const read = await server.call(`/v1/memories/by-id/${restBody.id}`);
    expect(await read.json()).toMatchObject({ id: restBody.id, vectorPending: true });
    // Found by its words at once.
    const words = await server.call(`/v1/memories/recall?userId=u&query=${encodeURIComponent('stored over REST')}&minScore=0`);
    const found = ((await words.json()) as { memories: Array<{ id: string; vectorPending?: boolean }> }).memories.find((m) => m.id === restBody.id);
    expect(found?.vectorPending).toBe(true);

    endpoint.fail({ kind: 'ok' }, 0);
    // Rounds of our own (the server's loop may hold a claim for a while: its round then fills it).
    const deadline = Date.now() + 20_000;
    while ((await server.runtime.store.countPendingVectors()) > 0 && Date.now() < deadline) {
      await server.runtime.backfill!.runOnce();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await health()).toEqual({ status: 'ok', calibration: 'fitted' });
    expect(await backlogGauge()).toBe(0);
    expect(await (await server.call(`/v1/memories/by-id/${restBody.id}`)).json()).not.toHaveProperty('vectorPending');
  }, 60_000);

  it('still refuses with 503 when the endpoint refuses the key', async () => {
    endpoint.fail({ kind: 'status', status: 401 }, 1);
    const refused = await server.call('/v1/memories', { method: 'POST', json: { userId: 'u', text: 'Refused by the endpoint.' } });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unavailable');
  });
});
