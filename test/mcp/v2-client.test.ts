/**
 * The official SDK's v2 client (@modelcontextprotocol/client, which speaks MCP 2026-07-28 and negotiates) against
 * the real CLI over HTTP (`serve`, both session modes, with an API key) and stdio (`mcp`). In `auto` mode the client
 * probes with `server/discover` and falls back to the 2025 handshake when the server answers that it does not know
 * the method; it then stores and recalls like a v1 client. A client pinned to 2026-07-28 is refused: the server
 * speaks the 2025 revisions only (see the README's MCP section), and this test says so until that changes.
 */
import { join, resolve } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELIABILITY_KEY, spawnServer, type CliServer } from '../reliability/support/cli-server.js';
import { TEST_MODEL } from '../helpers/server.js';
import { TOOL_NAMES } from './tool-names.js';

const BIN = join(resolve(import.meta.dirname, '../..'), 'bin/agent-memory.js');
const dir = mkdtempSync(join(tmpdir(), 'agent-memory-v2-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Negotiation = 'auto' | { pin: string };

function v2Client(mode: Negotiation): Client {
  return new Client({ name: 'agent-memory-v2-test', version: '0.0.0' }, { versionNegotiation: { mode } });
}

interface ToolText {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Lists the six tools, stores a fact and recalls it by meaning, and meets a validation error, as a v1 client does. */
async function storeAndRecall(client: Client, userId: string): Promise<void> {
  const tools = await client.listTools();
  expect(tools.tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
  const stored = (await client.callTool({ name: 'store_memory', arguments: { userId, text: 'Priya keeps bees on her roof.' } })) as ToolText;
  expect(stored.isError ?? false, JSON.stringify(stored)).toBe(false);
  expect(stored.structuredContent?.id).toMatch(/^mem_/);
  const recalled = (await client.callTool({ name: 'recall_memories', arguments: { userId, query: 'Priya keeps bees', minScore: 0 } })) as ToolText;
  expect(recalled.isError ?? false, JSON.stringify(recalled)).toBe(false);
  expect(recalled.content?.[0]?.text).toContain('Priya keeps bees on her roof.');
  // Unhappy path, same text and code as for a v1 client.
  const bad = (await client.callTool({ name: 'recall_memories', arguments: { userId, query: '' } })) as ToolText;
  expect(bad.isError).toBe(true);
  expect(bad.content?.[0]?.text).toMatch(/validation_error|query/);
}

describe.each(['stateful', 'stateless'])('the v2 SDK client over HTTP, serve --mcp-sessions %s', (mode) => {
  let server: CliServer;
  beforeAll(async () => {
    server = await spawnServer({ dbPath: join(dir, `http-${mode}.db`), env: { MEMORY_MCP_SESSIONS: mode } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const transport = (key: string | undefined) =>
    new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers: key ? { Authorization: `Bearer ${key}` } : {} } });

  it('negotiates (auto), falls back to 2025-11-25, and stores and recalls with an API key', async () => {
    const client = v2Client('auto');
    await client.connect(transport(RELIABILITY_KEY));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      await storeAndRecall(client, `v2-http-${mode}`);
    } finally {
      await client.close();
    }
  });

  it('is refused without a key (401), and when pinned to 2026-07-28', async () => {
    await expect(v2Client('auto').connect(transport(undefined))).rejects.toThrow(/401|nauthorized/);
    const pinned = v2Client({ pin: '2026-07-28' });
    await expect(pinned.connect(transport(RELIABILITY_KEY))).rejects.toThrow(/did not offer pinned protocol version 2026-07-28 via server\/discover/);
    await pinned.close();
  });
});

describe('the v2 SDK client over stdio (agent-memory mcp)', () => {
  const transport = () =>
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--db', join(dir, 'stdio.db'), '--user-id', 'v2-stdio'],
      env: { ...getDefaultEnvironment(), MEMORY_EMBED_MODEL: TEST_MODEL, MEMORY_LOG_LEVEL: 'error' },
      stderr: 'pipe',
    });

  it('negotiates (auto), falls back to 2025-11-25, and stores and recalls', async () => {
    const client = v2Client('auto');
    await client.connect(transport());
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      await storeAndRecall(client, 'v2-stdio');
    } finally {
      await client.close();
    }
  });
});
