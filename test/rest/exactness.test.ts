import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

/** A store whose body is sent exactly as written (JSON.stringify could not write these numbers). */
function storeRaw(body: string): Promise<Response> {
  return server.call('/v1/memories', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
}

describe('metadata is kept exactly or refused', () => {
  it.each([
    ['a __proto__ key', '{"__proto__":{"admin":true},"a":1}', 'metadata.__proto__', /__proto__/],
    ['a nested __proto__ key', '{"a":{"__proto__":1}}', 'metadata.a.__proto__', /__proto__/],
    ['1e400', '{"n":1e400}', 'metadata.n', /not finite/],
    ['an integer above 2^53', '{"n":12345678901234567890}', 'metadata.n', /2\^53/],
    ['a negative integer below -2^53', '{"list":[1,-9007199254740993]}', 'metadata.list.1', /2\^53/],
  ])('%s is 422 naming the field, and nothing is stored', async (_name, metadata, path, message) => {
    const res = await storeRaw(`{"userId":"exact","text":"A fact with odd metadata.","metadata":${metadata}}`);
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorJson;
    expect(body.error.code).toBe('validation_error');
    expect(body.error.details?.[0]?.path).toBe(path);
    expect(body.error.message).toMatch(message);
    const list = await server.call('/v1/memories?userId=exact');
    expect(((await list.json()) as { total: number }).total).toBe(0);
  });

  it('refuses the same on an update (PATCH), leaving the memory as it was', async () => {
    const stored = (await (await storeRaw('{"userId":"exact-patch","text":"A fact to update.","metadata":{"n":1}}')).json()) as { id: string };
    const res = await server.call(`/v1/memories/${stored.id}`, {
      method: 'PATCH',
      body: '{"metadata":{"n":12345678901234567890}}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorJson).error.details?.[0]?.path).toBe('metadata.n');
    const read = await server.call(`/v1/memories/by-id/${stored.id}`);
    expect(((await read.json()) as { metadata: unknown }).metadata).toEqual({ n: 1 });
  });

  it('keeps the largest exact integers and ordinary numbers as sent', async () => {
    const metadata = '{"max":9007199254740991,"min":-9007199254740991,"f":0.1,"e":1.5e-300,"s":"12345678901234567890"}';
    const res = await storeRaw(`{"userId":"exact-ok","text":"A fact with big numbers.","metadata":${metadata}}`);
    expect(res.status).toBe(201);
    const list = await server.call('/v1/memories?userId=exact-ok');
    const text = await list.text();
    expect(text).toContain(metadata.slice(1, -1));
  });
});

describe('error bodies stay small', () => {
  it('1,000 bad ids give a short message and at most 20 details', async () => {
    const ids = Array.from({ length: 1_000 }, (_, i) => `bad-${i}`);
    const res = await server.call('/v1/memories/batch-delete', { method: 'POST', json: { ids } });
    expect(res.status).toBe(422);
    const text = await res.text();
    expect(text.length).toBeLessThan(4_000);
    const body = JSON.parse(text) as ErrorJson;
    expect(body.error.details).toHaveLength(20);
    expect(body.error.message).toMatch(/1000 invalid fields: ids\.0, .* and 980 more\./);
  });
});

describe('text in every script is kept exactly, and recall reads it', () => {
  const texts = [
    'مريم تعمل ممرضة في مستشفى في عمّان.', // Arabic, right to left
    'דנה גרה בחיפה עם הכלב שלה, רקס.', // Hebrew
    'Zoe\u0301 loves cafe\u0301s 👩‍👩‍👧 and 🇵🇹.', // combining accents (not NFC), a ZWJ family, a flag
    '小明在Google的北京办公室工作。', // Chinese with a Latin name inside
    'Anna wohnt in Hamburg und arbeitet in einem Krankenhaus.',
  ];

  it('stores and lists each text byte for byte, and answers questions in another language or script without failing', async () => {
    for (const text of texts) {
      const res = await server.call('/v1/memories', { method: 'POST', body: JSON.stringify({ userId: 'scripts', text }), headers: { 'Content-Type': 'application/json' } });
      expect(res.status).toBe(201);
    }
    const list = (await (await server.call('/v1/memories?userId=scripts&pageSize=10')).json()) as { memories: { text: string }[] };
    expect(list.memories.map((m) => m.text).sort()).toEqual([...texts].sort());
    for (const query of ['Where does Anna work?', '小明在哪里工作？', 'איפה דנה גרה?', '👩‍👩‍👧', 'Zoé']) {
      const res = await server.call('/v1/memories/recall', { method: 'POST', body: JSON.stringify({ userId: 'scripts', query, minScore: 0, explain: true }), headers: { 'Content-Type': 'application/json' } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { memories: { text: string; explain?: { language?: string } }[] };
      expect(body.memories.length).toBeGreaterThan(0);
      expect(body.memories.every((m) => texts.includes(m.text) && typeof m.explain?.language === 'string')).toBe(true);
    }
  });
});
