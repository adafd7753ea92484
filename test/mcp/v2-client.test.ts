/**
 * The official SDK's v2 client (@modelcontextprotocol/client, which speaks MCP 2026-07-28 and negotiates) against
 * the real CLI over HTTP (`serve`, both session modes, with an API key) and stdio (`mcp`). The server speaks the
 * stateless revision 2026-07-28 as well as the 2025 ones: in `auto` mode the client's `server/discover` probe is
 * answered and it settles on 2026-07-28; pinned to 2026-07-28 it stores, recalls, lists, gets, updates and forgets;
 * with the 2025 handshake (`legacy`, 2025-11-25) it does the same.
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

type Negotiation = 'auto' | 'legacy' | { pin: string };

/** Pinned to the stateless revision, or the 2025 handshake (`legacy`: the client sends `initialize`, 2025-11-25). */
const REVISIONS: Array<[string, Negotiation]> = [
  ['2026-07-28', { pin: '2026-07-28' }],
  ['2025-11-25', 'legacy'],
];

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

/** storeAndRecall, then every other tool on the stored memory: list, get, update, forget (and get answers not_found). */
async function everyTool(client: Client, userId: string): Promise<void> {
  await storeAndRecall(client, userId);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as ToolText;
    expect(result.isError ?? false, `${name}: ${JSON.stringify(result)}`).toBe(false);
    return result.structuredContent as Record<string, unknown>;
  };
  const listed = (await call('list_memories', { userId })) as { total: number; memories: Array<{ id: string }> };
  expect(listed.total).toBe(1);
  const id = listed.memories[0]!.id;
  expect(await call('get_memory', { id })).toMatchObject({ id, text: 'Priya keeps bees on her roof.' });
  expect(await call('update_memory', { id, text: 'Priya keeps bees in her garden.' })).toMatchObject({ id, text: 'Priya keeps bees in her garden.' });
  expect(await call('forget_memory', { id })).toMatchObject({ deleted: 1 });
  const gone = (await client.callTool({ name: 'get_memory', arguments: { id } })) as ToolText;
  expect(gone.isError).toBe(true);
  expect(gone.content?.[0]?.text).toMatch(/^not_found: /);
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

  it('negotiates 2026-07-28 (auto) and stores and recalls with an API key', async () => {
    const client = v2Client('auto');
    await client.connect(transport(RELIABILITY_KEY));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      await storeAndRecall(client, `v2-http-auto-${mode}`);
    } finally {
      await client.close();
    }
  });

  it.each(REVISIONS)('speaking %s, runs every tool', async (version, negotiation) => {
    const client = v2Client(negotiation);
    await client.connect(transport(RELIABILITY_KEY));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      await everyTool(client, `v2-http-${version}-${mode}`);
    } finally {
      await client.close();
    }
  });

  it('is refused without a key (401), on either revision', async () => {
    for (const mode of ['auto', 'legacy', { pin: '2026-07-28' }] as const) {
      const client = v2Client(mode);
      await expect(client.connect(transport(undefined))).rejects.toThrow(/401|nauthorized|auth_error/);
      await client.close();
    }
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

  it('negotiates 2026-07-28 (auto) and stores and recalls', async () => {
    const client = v2Client('auto');
    await client.connect(transport());
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      await storeAndRecall(client, 'v2-stdio-auto');
    } finally {
      await client.close();
    }
  });

  it.each(REVISIONS)('speaking %s, runs every tool', async (version, negotiation) => {
    const client = v2Client(negotiation);
    await client.connect(transport());
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      await everyTool(client, `v2-stdio-${version}`);
    } finally {
      await client.close();
    }
  });
});
