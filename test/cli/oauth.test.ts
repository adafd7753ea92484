import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { Authenticator } from '../../src/core/auth.js';
import { OAuthServer } from '../../src/core/oauth/server.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'am-oauth-cli-'));
const db = join(dir, 'memory.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([...args, '--db', db], { print: (l) => out.push(l), notice: (l) => err.push(l) });
  return { code, out, err };
}

/** A client registered as `/oauth/register` registers one, through the core. */
async function register(name: string): Promise<string> {
  const store = SqliteStore.open({ path: db });
  try {
    const server = new OAuthServer({ store, authenticator: new Authenticator({ store }), resources: ['https://m.example.com/mcp'] });
    return (await server.registerClient({ client_name: name, redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] })).client.id;
  } finally {
    await store.close();
  }
}

describe('agent-memory oauth', () => {
  it('lists the registered clients, a hostile name as visible text', async () => {
    expect((await run('oauth', 'clients')).err.join('\n')).toContain('No OAuth client has registered');
    const id = await register('Claude\u001b[2J');
    const listed = await run('oauth', 'clients');
    expect(listed.code).toBe(0);
    const table = listed.out.join('\n');
    expect(table).toContain(id);
    expect(table).toContain('Claude\\u001b[2J');
    expect(table).toContain('https://claude.ai/api/mcp/auth_callback');
    expect(table).toContain('active');
  });

  it('revokes a client, and says so for an unknown one', async () => {
    const id = await register('to revoke');
    expect((await run('oauth', 'revoke', id)).code).toBe(0);
    expect((await run('oauth', 'clients')).out.join('\n')).toMatch(new RegExp(`${id}.*\\d{4}-\\d\\d-\\d\\dT`));
    const unknown = await run('oauth', 'revoke', 'cli_nope');
    expect(unknown.code).toBe(1);
    expect(unknown.err.join('\n')).toContain('No OAuth client has the id "cli_nope"');
    expect((await run('oauth')).code).toBe(2);
  });
});
