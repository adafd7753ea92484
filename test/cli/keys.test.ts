import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startCapturedServer } from '../reliability/support/inproc.js';

const dir = mkdtempSync(join(tmpdir(), 'am-keys-cli-'));
const db = join(dir, 'memory.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([...args, '--db', db], { print: (l) => out.push(l), notice: (l) => err.push(l) });
  return { code, out, err };
}

describe('agent-memory keys', () => {
  it('lists a label with terminal escapes as visible text, never sending them to the terminal', async () => {
    expect((await run('keys', 'create', '--name', 'evil\u001b[2J\u001b]0;pwned\u0007\r\nkey_fake  forged')).code).toBe(0);
    const listed = await run('keys', 'list');
    const table = listed.out.join('\n');
    // Nothing below a space but the table's own line breaks, and no DEL or C1 character.
    expect([...table].filter((c) => (c < ' ' && c !== '\n') || (c >= '\u007f' && c <= '\u009f'))).toEqual([]);
    expect(table).toContain('evil\\u001b[2J\\u001b]0;pwned\\u0007\\u000d\\u000akey_fake  forged');
    expect(table.split('\n')).toHaveLength(2);
  });

  it('reports revoking a revoked key as an error, and an unknown one too', async () => {
    const created = await run('keys', 'create', '--name', 'short-lived');
    const id = /Created key (key_\w+)/.exec(created.err.join('\n'))?.[1] ?? '';
    expect((await run('keys', 'revoke', id)).code).toBe(0);
    const again = await run('keys', 'revoke', id);
    expect(again.code).toBe(1);
    expect(again.err.join('\n')).toMatch(new RegExp(`${id} was already revoked at \\d{4}-.*; nothing changed\\.`));
    expect((await run('keys', 'revoke', 'key_doesnotexist')).code).toBe(1);
  });
});

describe('the access log', () => {
  it('logs the whole path of a request, mount path included', async () => {
    const server = await startCapturedServer({ apiKey: `amk_${'L'.repeat(40)}` });
    try {
      const headers = { Authorization: `Bearer amk_${'L'.repeat(40)}`, 'Content-Type': 'application/json' };
      await fetch(`${server.url}/v1/memories`, { method: 'POST', headers, body: JSON.stringify({ userId: 'u', text: 'Logged.' }) });
      await fetch(`${server.url}/v1/memories/u?page=0`, { headers });
      const requests = server.logs.map((l) => JSON.parse(l) as { msg?: string; message?: string; method?: string; path?: string });
      const paths = requests.filter((r) => r.method !== undefined).map((r) => `${r.method} ${r.path}`);
      expect(paths).toEqual(expect.arrayContaining(['POST /v1/memories', 'GET /v1/memories/u']));
    } finally {
      await server.stop();
    }
  });
});
