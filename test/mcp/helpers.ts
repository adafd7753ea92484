import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { openRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { silentLogger } from '../../src/core/logger.js';
import type { Caller } from '../../src/core/types.js';
import { ERROR_META_KEY } from '../../src/mcp/errors.js';
import { createMcpHttpHandler, type McpHttpOptions } from '../../src/mcp/http.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { ToolDefaults } from '../../src/mcp/tools.js';
import { createMetrics } from '../../src/runtime/metrics.js';
import { startTestServer, TEST_KEY, TEST_METRICS, TEST_MODEL, type TestServer } from '../helpers/server.js';

export { TEST_KEY };

export function tempDir(): { dir: string; dbPath: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-mcp-'));
  return { dir, dbPath: join(dir, 'memory.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A runtime over a fresh database file with TEST_MODEL (or `model`), ready. */
export async function openTestRuntime(model: string = TEST_MODEL): Promise<{ runtime: Runtime; close(): Promise<void> }> {
  const tmp = tempDir();
  // Under TEST_METRICS=1 the runtime is the instrumented one (--metrics-token), as startTestServer's servers are.
  const runtime = await openRuntime({ dbPath: tmp.dbPath, model, modelDir: undefined }, undefined, TEST_METRICS ? createMetrics() : undefined);
  await runtime.modelReady;
  return {
    runtime,
    async close() {
      await runtime.close();
      tmp.remove();
    },
  };
}

/** A real SDK Client talking to a fresh createMcpServer over the SDK's linked in-memory transports. */
export async function connectInMemory(runtime: Runtime, caller: Caller, defaults: ToolDefaults = {}): Promise<Client> {
  const server = createMcpServer({ service: runtime.service, caller, defaults, logger: silentLogger });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'agent-memory-test', version: '0.0.0' });
  await client.connect(clientSide);
  // Like real clients: list first, so that the SDK validates structured results against the output schemas.
  await client.listTools();
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error(`expected text content, got ${JSON.stringify(result.content)}`);
  return first.text;
}

/** The structured content of a successful call, failing the test with the error text otherwise. */
export function ok<T>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool failed: ${textOf(result)}`);
  return result.structuredContent as T;
}

export interface ToolErrorBody {
  code: string;
  message: string;
  details?: Array<{ path: string; message: string }>;
}

/** The contract's error body carried by an `isError` result from our handlers. */
export function errorOf(result: CallToolResult): ToolErrorBody {
  if (!result.isError) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  const body = result._meta?.[ERROR_META_KEY] as ToolErrorBody | undefined;
  if (!body) throw new Error(`error without a body: ${textOf(result)}`);
  expect(textOf(result)).toBe(`${body.code}: ${body.message}`);
  return body;
}

export interface McpTestServer extends TestServer {
  mcpUrl: URL;
  remove(): Promise<void>;
}

/** A live server (REST + /mcp) on an ephemeral loopback port, with TEST_KEY, on the backend TEST_BACKEND names. */
export async function startMcpTestServer(mcp: Omit<McpHttpOptions, 'service'> = {}): Promise<McpTestServer> {
  const server = await startTestServer(
    {},
    {
      mcpHandler: (service) => createMcpHttpHandler({ service, allowedHostnames: ['localhost', '127.0.0.1', '[::1]'], ...mcp }),
    },
  );
  return { ...server, mcpUrl: new URL('/mcp', server.url), remove: () => server.stop() };
}

/** An SDK Client over streamable HTTP, sending `key` as its Bearer token. */
export async function connectHttp(url: URL, key: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  const client = new Client({ name: 'agent-memory-test', version: '0.0.0' });
  await client.connect(transport);
  await client.listTools();
  return { client, transport };
}
