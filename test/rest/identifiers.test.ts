/**
 * User ids and caller keys are compared as text people read (core/schemas.ts): normalised to NFC, so the composed
 * and the decomposed "café" are one user and one key, on REST and MCP alike; ids that show as nothing, or whose
 * shown order is not their stored order (bidi formatting), are refused with the contract's validation_error.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CALLER } from '../../src/core/types.js';
import { call, connectInMemory, errorOf, ok } from '../mcp/helpers.js';
import { startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

const COMPOSED = 'caf\u00e9';
const DECOMPOSED = 'cafe\u0301';

/** Ids that must be refused, with the words the refusal uses. */
const REFUSED: Array<[string, string, RegExp]> = [
  ['whitespace only', '   ', /must contain a visible character/],
  ['ideographic space and tab-free blanks', '\u3000\u00a0', /must contain a visible character/],
  ['a zero-width space', '\u200b', /must contain a visible character/],
  ['zero-width joiners and a BOM', '\u200d\u200c\ufeff\u2060', /must contain a visible character/],
  ['a Hangul filler', '\u3164', /must contain a visible character/],
  ['a Braille blank', '\u2800\u2800', /must contain a visible character/],
  ['a right-to-left override', 'admin\u202egnp', /bidirectional formatting/],
  ['an isolate', '\u2066alice\u2069', /bidirectional formatting/],
  ['a right-to-left mark', 'bob\u200f', /bidirectional formatting/],
  ['an escape', 'x\u001b[2J', /control characters/],
  ['a zero-width space inside a visible id', 'admin\u200b', /must not contain invisible characters/],
  ['a BOM inside a visible id', '\ufeffalice', /must not contain invisible characters/],
];

let server: TestServer;
let mcp: Client;
beforeAll(async () => {
  server = await startTestServer();
  mcp = await connectInMemory(server.runtime, LOCAL_CALLER);
});
afterAll(async () => {
  await mcp.close();
  await server.stop();
});

describe('user ids', () => {
  it('are NFC: a memory stored for the decomposed "café" is the composed one\u2019s, on REST and MCP', async () => {
    const stored = await server.call('/v1/memories', { method: 'POST', json: { userId: DECOMPOSED, text: 'Orders an oat latte.' } });
    expect(stored.status).toBe(201);
    expect(((await stored.json()) as { userId: string }).userId).toBe(COMPOSED);
    const listed = (await (await server.call(`/v1/memories/${encodeURIComponent(COMPOSED)}`)).json()) as { total: number };
    expect(listed.total).toBe(1);
    expect(ok<{ total: number }>(await call(mcp, 'list_memories', { userId: DECOMPOSED })).total).toBe(1);
    // The same text for the other spelling is the same memory: a duplicate, not a second user's first memory.
    const again = ok<{ duplicate: boolean; userId: string }>(await call(mcp, 'store_memory', { userId: COMPOSED, text: 'Orders an oat latte.' }));
    expect(again).toMatchObject({ duplicate: true, userId: COMPOSED });
    const users = (await (await server.call('/v1/users')).json()) as { users: Array<{ userId: string }> };
    expect(users.users.map((u) => u.userId)).toEqual([COMPOSED]);
  });

  it.each(REFUSED)('refuses %s with validation_error on REST and MCP, and stores nothing', async (_what, userId, words) => {
    const res = await server.call('/v1/memories', { method: 'POST', json: { userId, text: 'Should not be stored.' } });
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorJson;
    expect(body.error.code).toBe('validation_error');
    expect(body.error.details).toEqual([{ path: 'userId', message: expect.stringMatching(words) as string }]);
    const tool = errorOf(await call(mcp, 'store_memory', { userId, text: 'Should not be stored.' }));
    expect(tool.code).toBe('validation_error');
    expect(tool.message).toMatch(words);
  });

  it('keeps a zero-width joiner inside a visible id (an emoji sequence, a Persian word), and other scripts', async () => {
    for (const userId of ['\u{1F469}\u200d\u{1F4BB}', 'می\u200cخواهم', '東京', 'Zoë']) {
      const res = await server.call('/v1/memories', { method: 'POST', json: { userId, text: `Visible id ${userId}` } });
      expect(res.status, userId).toBe(201);
      expect(((await res.json()) as { userId: string }).userId).toBe(userId.normalize('NFC'));
    }
  });
});

describe('caller keys', () => {
  const byKey = (key: string, query = '') => `/v1/memories/by-key/${encodeURIComponent(key)}${query}`;

  it('are NFC: PUT under the decomposed key and GET or DELETE under the composed one address one memory', async () => {
    const put = await server.call(byKey(`diet-${DECOMPOSED}`), { method: 'PUT', json: { userId: 'keys', text: 'Eats no meat.' } });
    expect(put.status).toBe(201);
    expect(((await put.json()) as { key: string }).key).toBe(`diet-${COMPOSED}`);
    const replaced = await server.call(byKey(`diet-${COMPOSED}`), { method: 'PUT', json: { userId: 'keys', text: 'Eats fish now.' } });
    expect(replaced.status).toBe(200);
    expect(ok<{ text: string }>(await call(mcp, 'get_memory', { userId: 'keys', key: `diet-${DECOMPOSED}` })).text).toBe('Eats fish now.');
    const gone = await server.call(byKey(`diet-${DECOMPOSED}`, '?userId=keys'), { method: 'DELETE' });
    expect(await gone.json()).toEqual({ deleted: 1 });
  });

  it.each(REFUSED.filter(([what]) => what !== 'whitespace only'))('refuses %s as a key (validation_error on key)', async (_what, key, words) => {
    const res = await server.call(byKey(key), { method: 'PUT', json: { userId: 'keys', text: 'Should not be stored.' } });
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorJson;
    expect(body.error.details).toEqual([{ path: 'key', message: expect.stringMatching(words) as string }]);
    expect(errorOf(await call(mcp, 'store_memory', { userId: 'keys', key, text: 'Should not be stored.' })).code).toBe('validation_error');
  });

  it('refuses a whitespace-only key too', async () => {
    const res = await server.call(byKey('   '), { method: 'PUT', json: { userId: 'keys', text: 'Should not be stored.' } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorJson).error.details?.[0]?.message).toMatch(/must contain a visible character/);
  });
});
