/**
 * `agent-memory import --from mcp-memory|mem0`: other memory tools' exports become memories a person recognises,
 * a re-run adds nothing twice, and a bad line or entry is reported by number while the rest is imported. The
 * mcp-memory file is one the real @modelcontextprotocol/server-memory wrote, driven through the MCP SDK's Client.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { MAX_LINE_BYTES } from '../../src/core/import.js';

let dir: string;
let db: string;
let notices: string[];
const out = { print: (l: string) => notices.push(l), notice: (l: string) => notices.push(l) };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-import-from-'));
  db = join(dir, 'memory.db');
  notices = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `agent-memory ARGS --db DB --model hash`, with what it printed since the last call. */
async function cli(...args: string[]): Promise<{ code: number; said: string }> {
  notices = [];
  const code = await main([...args, '--db', db, '--model', 'hash', '--log-level', 'error'], out);
  return { code, said: notices.join('\n') };
}

interface Exported {
  userId: string;
  appId: string;
  text: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** Everything stored, as `agent-memory export` writes it, sorted by text. */
async function stored(): Promise<Exported[]> {
  const file = join(dir, `export-${Date.now()}-${Math.random()}.jsonl`);
  expect((await cli('export', file)).code).toBe(0);
  const text = readFileSync(file, 'utf8').trim();
  const lines = text === '' ? [] : text.split('\n').map((l) => JSON.parse(l) as Exported);
  return lines.sort((a, b) => a.text.localeCompare(b.text));
}

function write(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** The real MCP memory server over stdio, its graph kept in `file`; `work` drives it with the SDK's Client. */
async function withMemoryServer(file: string, work: (client: Client) => Promise<void>): Promise<void> {
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry],
    env: { ...getDefaultEnvironment(), MEMORY_FILE_PATH: file },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'agent-memory-import-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    await work(client);
  } finally {
    await client.close();
  }
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<void> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError ?? false).toBe(false);
}

describe('import --from mcp-memory', () => {
  it('imports the file the real MCP memory server wrote: one memory per observation and per relation', async () => {
    const file = join(dir, 'memory.jsonl');
    await withMemoryServer(file, async (client) => {
      await call(client, 'create_entities', {
        entities: [
          { name: 'Alice', entityType: 'person', observations: ['works at Acme', 'likes green tea'] },
          { name: 'Acme', entityType: 'organization', observations: [] },
        ],
      });
      await call(client, 'create_relations', { relations: [{ from: 'Alice', to: 'Acme', relationType: 'works_at' }] });
      await call(client, 'add_observations', { observations: [{ entityName: 'Acme', contents: ['makes anvils'] }] });
    });
    // What the server wrote: its JSONL, entities then relations.
    expect(readFileSync(file, 'utf8').split('\n').map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['entity', 'entity', 'relation']);

    const first = await cli('import', '--from', 'mcp-memory', file, '--user-id', 'alice', '--app-id', 'kg');
    expect(first).toMatchObject({ code: 0 });
    expect(first.said).toMatch(/Imported 4 memories .*; 0 were already there\./);
    const memories = await stored();
    expect(memories.map((m) => [m.userId, m.appId, m.text, m.metadata])).toEqual([
      ['alice', 'kg', 'Acme (organization): makes anvils', { source: 'mcp-memory', entity: 'Acme', entityType: 'organization' }],
      ['alice', 'kg', 'Alice (person): likes green tea', { source: 'mcp-memory', entity: 'Alice', entityType: 'person' }],
      ['alice', 'kg', 'Alice (person): works at Acme', { source: 'mcp-memory', entity: 'Alice', entityType: 'person' }],
      ['alice', 'kg', 'Alice works at Acme', { source: 'mcp-memory', relation: 'works_at', from: 'Alice', to: 'Acme' }],
    ]);

    // Re-running adds nothing; after the graph grows, only what is new is added.
    const again = await cli('import', '--from', 'mcp-memory', file, '--user-id', 'alice', '--app-id', 'kg');
    expect(again.code).toBe(0);
    expect(again.said).toMatch(/Imported 0 memories .*; 4 were already there\./);
    await withMemoryServer(file, (client) => call(client, 'add_observations', { observations: [{ entityName: 'Alice', contents: ['speaks Portuguese'] }] }));
    const grown = await cli('import', '--from', 'mcp-memory', file, '--user-id', 'alice', '--app-id', 'kg');
    expect(grown.said).toMatch(/Imported 1 memories .*; 4 were already there\./);
    expect((await stored()).map((m) => m.text)).toContain('Alice (person): speaks Portuguese');
    // Another user importing the same file gets memories of their own.
    expect((await cli('import', '--from', 'mcp-memory', file, '--user-id', 'bob')).said).toMatch(/Imported 5 memories/);
  });

  it('reports each bad line by number, imports the rest, and says so in the exit code', async () => {
    const good = { type: 'entity', name: 'Dana', entityType: 'person', observations: ['keeps bees'] };
    const file = write(
      'mixed.jsonl',
      [
        JSON.stringify(good),
        '{"type":"entity","name":"Eve",',
        JSON.stringify({ type: 'widget', name: 'x' }),
        JSON.stringify({ type: 'entity', name: 'Bob' }),
        JSON.stringify({ type: 'relation', from: 'Dana', to: '', relationType: 'knows' }),
        JSON.stringify({ type: 'entity', name: 'Huge', entityType: 'thing', observations: ['x'.repeat(MAX_LINE_BYTES)] }),
        JSON.stringify([1, 2]),
        '',
        JSON.stringify({ type: 'relation', from: 'Dana', to: 'Eve', relationType: 'is_friends_with' }),
      ].join('\n'),
    );
    // --strict checks the whole file first and imports nothing from a file with a bad line.
    const strict = await cli('import', '--from', 'mcp-memory', file, '--user-id', 'dana', '--strict');
    expect(strict.code).toBe(1);
    expect(strict.said).toMatch(/--strict: 6 invalid line\(s\); nothing was imported\./);
    expect(await stored()).toEqual([]);

    const result = await cli('import', '--from', 'mcp-memory', file, '--user-id', 'dana');
    expect(result.code).toBe(1);
    expect(result.said).toMatch(/^line 2: not valid JSON/m);
    expect(result.said).toMatch(/^line 3: type must be "entity" or "relation", not "widget"\./m);
    expect(result.said).toMatch(/^line 4: entityType: entityType is required\.; observations: observations is required\.$/m);
    expect(result.said).toMatch(/^line 5: to: to must not be empty\.$/m);
    expect(result.said).toMatch(/^line 6: the line is longer than \d+ bytes\./m);
    expect(result.said).toMatch(/^line 7: a line must be a JSON object\./m);
    expect(result.said).toMatch(/Imported 2 memories .*; 6 invalid line\(s\) skipped\./);
    expect((await stored()).map((m) => m.text)).toEqual(['Dana (person): keeps bees', 'Dana is friends with Eve']);
  });

  it('refuses what it cannot read: no user, an unknown --from, a missing file; an empty graph imports nothing', async () => {
    const empty = write('empty.jsonl', '');
    expect(await cli('import', '--from', 'mcp-memory', empty, '--user-id', 'u')).toMatchObject({ code: 0, said: expect.stringMatching(/Imported 0 memories/) });
    expect(await cli('import', '--from', 'mcp-memory', empty)).toMatchObject({ code: 2, said: expect.stringMatching(/needs --user-id/) });
    expect(await cli('import', '--from', 'zep', empty, '--user-id', 'u')).toMatchObject({ code: 2, said: expect.stringMatching(/--from must be mcp-memory or mem0, not "zep"/) });
    expect(await cli('import', join(dir, 'nope.jsonl'), '--user-id', 'u')).toMatchObject({ code: 2, said: expect.stringMatching(/--user-id and --app-id go with --from/) });
    expect(await cli('import', '--from', 'mcp-memory', join(dir, 'nope.jsonl'), '--user-id', 'u')).toMatchObject({
      code: 2,
      said: expect.stringMatching(/cannot read ".*nope\.jsonl" \(the MCP memory server's memory\.jsonl, or - for stdin\)/),
    });
    expect(await stored()).toEqual([]);
  });
});

describe('import --from mem0', () => {
  const entries = [
    {
      id: 'a1b2c3d4-0000-4000-8000-000000000001',
      memory: 'Likes to play cricket on weekends',
      hash: 'f3c0d9',
      metadata: { category: 'hobbies' },
      created_at: '2024-07-26T10:29:36.630547-07:00',
      updated_at: null,
      user_id: 'alex',
      categories: ['hobbies'],
    },
    {
      id: 'a1b2c3d4-0000-4000-8000-000000000002',
      memory: 'Is a vegetarian',
      metadata: null,
      created_at: '2024-07-25T08:00:00.000000',
      updated_at: '2024-07-27T09:00:00.000000',
      user_id: 'alex',
      agent_id: 'diet-bot',
    },
  ];

  it('imports get_all\u2019s {"results": [...]}: text, user, metadata, times and mem0\u2019s id, once however often it runs', async () => {
    const file = write('mem0.json', JSON.stringify({ results: entries }, null, 2));
    const first = await cli('import', '--from', 'mem0', file);
    expect(first.code).toBe(0);
    expect(first.said).toMatch(/Imported 2 memories .*; 0 were already there\./);
    expect(await stored()).toEqual([
      {
        userId: 'alex',
        appId: 'default',
        text: 'Is a vegetarian',
        metadata: { source: 'mem0', agentId: 'diet-bot', externalId: entries[1]?.id },
        createdAt: '2024-07-25T08:00:00.000Z',
        updatedAt: '2024-07-27T09:00:00.000Z',
      },
      {
        userId: 'alex',
        appId: 'default',
        text: 'Likes to play cricket on weekends',
        metadata: { source: 'mem0', categories: ['hobbies'], category: 'hobbies', externalId: entries[0]?.id },
        createdAt: '2024-07-26T17:29:36.630Z',
        updatedAt: '2024-07-26T17:29:36.630Z',
      },
    ]);
    expect((await cli('import', '--from', 'mem0', file)).said).toMatch(/Imported 0 memories .*; 2 were already there\./);
  });

  it('reads a bare array too; --user-id fills or overrides the user; a bad entry is reported by its number', async () => {
    const file = write(
      'mem0-array.json',
      JSON.stringify([{ id: 'm-1', memory: 'Prefers window seats' }, { id: 'm-2', user_id: 'x' }, 'oops', { id: 'm-4', memory: 'Flies to Oslo monthly', user_id: 'someone' }]),
    );
    const result = await cli('import', '--from', 'mem0', file, '--user-id', 'kim', '--app-id', 'travel');
    expect(result.code).toBe(1);
    expect(result.said).toMatch(/^entry 2: memory: memory is required\.$/m);
    expect(result.said).toMatch(/^entry 3: an entry must be a JSON object\./m);
    expect(result.said).toMatch(/Imported 2 memories .*; 2 invalid entry\(s\) skipped\./);
    expect((await stored()).map((m) => [m.userId, m.appId, m.text])).toEqual([
      ['kim', 'travel', 'Flies to Oslo monthly'],
      ['kim', 'travel', 'Prefers window seats'],
    ]);
    // Without --user-id an entry that names no user cannot be placed.
    const anonymous = await cli('import', '--from', 'mem0', write('anon.json', JSON.stringify([{ id: 'n-1', memory: 'Has two cats' }])));
    expect(anonymous).toMatchObject({ code: 1, said: expect.stringMatching(/^entry 1: the entry has no user_id; pass --user-id/m) });
  });

  it('keeps the importer\u2019s source (mem0\u2019s own as mem0Source), stores user ids in NFC, refuses invisible ones', async () => {
    const file = write('sources.json', JSON.stringify([
      { id: 's-1', memory: 'Takes the night train', user_id: 'cafe\u0301', metadata: { source: 'slack-bot', channel: 'travel' } },
      { id: 's-2', memory: 'Has a blue suitcase', user_id: '\u200b' },
      { id: 's-3', memory: 'Packs light', user_id: 'bob\u202e' },
    ]));
    const result = await cli('import', '--from', 'mem0', file);
    expect(result.code).toBe(1);
    expect(result.said).toMatch(/^entry 2: userId: userId must contain a visible character/m);
    expect(result.said).toMatch(/^entry 3: userId: userId must not contain bidirectional formatting characters/m);
    expect(await stored()).toEqual([
      expect.objectContaining({
        userId: 'caf\u00e9',
        text: 'Takes the night train',
        metadata: { source: 'mem0', mem0Source: 'slack-bot', channel: 'travel', externalId: 's-1' },
      }),
    ]);
    // The CLI's --user-id follows the same rule: the decomposed spelling exports the stored (composed) user.
    const exported = await cli('export', join(dir, 'cafe.jsonl'), '--user-id', 'cafe\u0301');
    expect(exported.said).toMatch(/^Exported 1 memories of user "caf\u00e9"/m);
    expect(await cli('export', join(dir, 'none.jsonl'), '--user-id', '\u200b')).toMatchObject({ code: 1, said: expect.stringMatching(/--user-id: userId must contain a visible character/) });
  });

  it('reports an entry nested 10,000 levels deep and imports the rest (it once overflowed the stack and ended the import)', async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const text = `[{"id":"d-1","memory":"Reads sci-fi","user_id":"kai"},{"id":"d-2","memory":"Too deep","user_id":"kai","metadata":${deep}},` +
      `{"id":"d-3","memory":"Runs marathons","user_id":"kai","categories":${'['.repeat(5_000)}${']'.repeat(5_000)}}, {"id":"d-4","memory":"Plays chess","user_id":"kai"}]`;
    const result = await cli('import', '--from', 'mem0', write('deep.json', text));
    expect(result.code).toBe(1);
    expect(result.said).not.toMatch(/call stack/);
    expect(result.said).toMatch(/^entry 2: it nests more than 33 levels of objects and arrays \(metadata may nest at most 32\)\.$/m);
    expect(result.said).toMatch(/^entry 3: it nests more than 33 levels/m);
    expect(result.said).toMatch(/Imported 2 memories .*; 2 invalid entry\(s\) skipped\./);
    expect((await stored()).map((m) => m.text)).toEqual(['Plays chess', 'Reads sci-fi']);
  });

  it('prints no raw terminal escape from the file: not in the "not valid JSON" message, a field name, a key or the file name', async () => {
    const ESC = '\u001b';
    const hostile = write('title.json', `${ESC}]0;pwned${'\u0007'}{"results": []}`);
    const notJson = await cli('import', '--from', 'mem0', hostile);
    expect(notJson.code).toBe(2);
    expect(notJson.said).toMatch(/not valid JSON/);
    expect(notJson.said).toContain('\\x1b]0;pwned\\x07');
    // Every message that quotes input: a line's unknown field, a JSONL parse error, a key collision, the file's name.
    const jsonl = write(`lines-${ESC}[31m.jsonl`, [
      JSON.stringify({ userId: 'u', text: 'One', [`x${ESC}[2J\u202e`]: 1 }),
      `${ESC}[2J not json`,
      JSON.stringify({ userId: 'u', text: 'Two', id: `e${ESC}]52;c;AAAA${'\u0007'}` }),
      JSON.stringify({ userId: 'u', text: 'Three', id: `e${ESC}]52;c;AAAA${'\u0007'}` }),
    ].join('\n'));
    const lines = await cli('import', jsonl);
    expect(lines.code).toBe(1);
    expect(lines.said).toMatch(/^line 1: .*x\\x1b\[2J\\u202e/m);
    expect(lines.said).toMatch(/^line 2: not valid JSON .*\\x1b/m);
    expect(lines.said).toMatch(/^line 4: id "e\\x1b\]52;c;AAAA\\x07" was used by line 3/m);
    expect(lines.said).toMatch(/lines-\\x1b\[31m\.jsonl/);
    for (const said of [notJson.said, lines.said]) {
      expect(said).not.toContain(ESC);
      expect(said).not.toContain('\u0007');
      expect(said).not.toContain('\u202e');
    }
    const missing = await cli('import', join(dir, `gone${ESC}[8m.jsonl`));
    expect(missing).toMatchObject({ code: 2, said: expect.stringContaining('gone\\x1b[8m.jsonl') });
  });

  it('refuses a file that is not mem0\u2019s export before opening anything', async () => {
    for (const [content, message] of [
      ['', /is empty/],
      ['{"results": [', /not valid JSON/],
      ['{"memories": []}', /no memories found/],
    ] as const) {
      const result = await cli('import', '--from', 'mem0', write('bad.json', content));
      expect(result.code).toBe(2);
      expect(result.said).toMatch(/is not mem0's get_all JSON: /);
      expect(result.said).toMatch(message);
    }
    expect(await cli('import', '--from', 'mem0', join(dir, 'missing.json'))).toMatchObject({ code: 2, said: expect.stringMatching(/cannot read/) });
  });
});
