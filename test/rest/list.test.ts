import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

interface ListJson {
  memories: Array<{ id: string; text: string; createdAt: string; metadata: Record<string, unknown>; appId: string }>;
  total: number;
  page: number;
  pageSize: number;
}

let server: TestServer;
const ids: string[] = [];
beforeAll(async () => {
  server = await startTestServer();
  // Seven memories a minute apart; the last two share a timestamp to exercise the id tie-break.
  for (let i = 0; i < 7; i++) {
    const createdAt = new Date(Date.UTC(2024, 0, 1, 0, Math.min(i, 5))).toISOString();
    const res = await server.call('/v1/memories', { method: 'POST', json: { userId: 'lister', text: `fact ${i}`, createdAt } });
    ids.push(((await res.json()) as { id: string }).id);
  }
  await server.call('/v1/memories', { method: 'POST', json: { userId: 'lister', text: 'work fact', appId: 'work' } });
  await server.call('/v1/memories', { method: 'POST', json: { userId: 'recall', text: 'I am a user called recall' } });
  await server.call('/v1/memories', { method: 'POST', json: { userId: 'a/b c%', text: 'odd id' } });
});
afterAll(async () => {
  await server.stop();
});

async function list(path: string): Promise<ListJson> {
  const res = await server.call(path);
  expect(res.status).toBe(200);
  return (await res.json()) as ListJson;
}

describe('GET /v1/memories/:userId and ?userId=', () => {
  it('lists newest first with the page envelope and defaults', async () => {
    const body = await list('/v1/memories/lister');
    expect(body.total).toBe(8);
    expect(body.page).toBe(0);
    expect(body.pageSize).toBe(20);
    expect(body.memories[0]?.text).toBe('work fact');
    const times = body.memories.map((m) => m.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    // Same timestamp: ordered by id descending.
    const tied = body.memories.filter((m) => m.createdAt === new Date(Date.UTC(2024, 0, 1, 0, 5)).toISOString()).map((m) => m.id);
    expect(tied).toEqual([...tied].sort().reverse());
    expect(Object.keys(body.memories[0] ?? {}).sort()).toEqual(['appId', 'createdAt', 'expiresAt', 'id', 'metadata', 'text', 'updatedAt']);
  });

  it('pages without overlap and answers an empty page past the end with the true total', async () => {
    const pages = await Promise.all([0, 1, 2].map((p) => list(`/v1/memories/lister?page=${p}&pageSize=3`)));
    const seen = pages.flatMap((p) => p.memories.map((m) => m.id));
    expect(new Set(seen).size).toBe(8);
    const past = await list('/v1/memories/lister?page=99&pageSize=3');
    expect(past).toEqual({ memories: [], total: 8, page: 99, pageSize: 3 });
  });

  it('filters by app slug, and by app UUID', async () => {
    const body = await list('/v1/memories?userId=lister&appId=work');
    expect(body.memories.map((m) => m.text)).toEqual(['work fact']);
    expect((await list('/v1/memories?userId=lister&appId=nope')).total).toBe(0);
  });

  it('the query form is equivalent to the path form', async () => {
    expect(await list('/v1/memories?userId=lister&pageSize=2')).toEqual(await list('/v1/memories/lister?pageSize=2'));
  });

  it('a user called "recall" is listed with the query form, and /recall is never taken for a user', async () => {
    expect((await list('/v1/memories?userId=recall')).memories[0]?.text).toBe('I am a user called recall');
    const res = await server.call('/v1/memories/recall');
    expect(res.status).toBe(422);
  });

  it('percent-decodes path user ids', async () => {
    expect((await list(`/v1/memories/${encodeURIComponent('a/b c%')}`)).total).toBe(1);
  });

  it.each([
    'page=-1',
    'page=1.5',
    'page=abc',
    'page=',
    'pageSize=0',
    'pageSize=101',
    'pageSize=2.5',
    'page=1&page=2',
    'page=1e400',
    'bogus=1',
  ])('rejects %s with 422, never clamping', async (query) => {
    const res = await server.call(`/v1/memories/lister?${query}`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorJson).error.code).toBe('validation_error');
  });

  it('requires a userId in the query form', async () => {
    const res = await server.call('/v1/memories');
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorJson).error.details?.[0]?.path).toBe('userId');
  });

  it('answers 422 for malformed percent-encoding in the path', async () => {
    const res = await server.call('/v1/memories/%E0%A4%A');
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorJson).error.code).toBe('validation_error');
  });
});
