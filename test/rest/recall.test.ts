import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

interface RecallJson {
  memories: Array<{ id: string; text: string; score: number; createdAt: string; updatedAt: string; metadata: Record<string, unknown> }>;
  context: string;
}

let server: TestServer;
const FACTS = [
  'Dana is allergic to peanuts.',
  'Dana adopted a beagle named Pixel in March.',
  'Dana works as a nurse at the city hospital.',
  'Dana is training for the Berlin marathon.',
  'Dana prefers window seats on flights.',
];
beforeAll(async () => {
  server = await startTestServer();
  for (const text of FACTS) await server.call('/v1/memories', { method: 'POST', json: { userId: 'dana', text } });
  await server.call('/v1/memories', { method: 'POST', json: { userId: 'dana', text: 'Dana has a cat allergy.', appId: 'health' } });
  await server.call('/v1/memories', { method: 'POST', json: { userId: 'someone-else', text: 'Eli is allergic to peanuts.' } });
});
afterAll(async () => {
  await server.stop();
});

async function recall(query: Record<string, string | number>): Promise<RecallJson> {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await server.call(`/v1/memories/recall?${params}`);
  expect(res.status).toBe(200);
  return (await res.json()) as RecallJson;
}

describe('recall', () => {
  it('ranks by relevance, best first, only this user; minScore keeps exactly the memories whose score reaches it', async () => {
    const body = await recall({ userId: 'dana', query: 'What food is Dana allergic to?', minScore: 0 });
    expect(body.memories[0]?.text).toBe('Dana is allergic to peanuts.');
    const scores = body.memories.map((m) => m.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    // The scores carry the ranking (the ranker clamps to [0, 1], so a range check could not fail): the answer
    // clearly beats the rest, and every cut at a reported score keeps exactly the memories at or above it.
    expect((scores[0] ?? 0) - (scores[1] ?? 0)).toBeGreaterThan(0.05);
    for (const cut of new Set(scores.filter((score) => score > 0))) {
      const kept = await recall({ userId: 'dana', query: 'What food is Dana allergic to?', minScore: cut });
      expect(kept.memories.map((m) => m.id), `minScore ${cut}`).toEqual(body.memories.filter((m) => m.score >= cut).map((m) => m.id));
    }
    expect(body.memories.some((m) => m.text.startsWith('Eli'))).toBe(false);
    expect(Object.keys(body.memories[0] ?? {}).sort()).toEqual(['appId', 'createdAt', 'expiresAt', 'id', 'metadata', 'score', 'text', 'updatedAt']);
  });

  it('joins the items into the context string', async () => {
    const body = await recall({ userId: 'dana', query: 'pets', minScore: 0, limit: 2 });
    expect(body.memories).toHaveLength(2);
    expect(body.context).toBe(body.memories.map((m) => `- [${m.updatedAt.slice(0, 10)}] ${m.text}`).join('\n'));
  });

  it('returns nothing and an empty context when no memory clears minScore', async () => {
    const body = await recall({ userId: 'dana', query: 'What is the boiling point of tungsten?', minScore: 1 });
    expect(body).toEqual({ memories: [], context: '' });
  });

  it('applies the default limit of 5 and the app filter', async () => {
    // Dana has six memories, each naming her: without a limit, exactly five come back.
    const listed = await server.call('/v1/memories/dana');
    expect(((await listed.json()) as { total: number }).total).toBe(6);
    expect((await recall({ userId: 'dana', query: 'Dana', minScore: 0 })).memories).toHaveLength(5);
    expect((await recall({ userId: 'dana', query: 'Dana', minScore: 0, limit: 6 })).memories).toHaveLength(6);
    const health = await recall({ userId: 'dana', query: 'allergy', appId: 'health', minScore: 0 });
    expect(health.memories.map((m) => m.text)).toEqual(['Dana has a cat allergy.']);
  });

  it('answers nothing for an unknown user or app', async () => {
    expect((await recall({ userId: 'nobody', query: 'anything', minScore: 0 })).memories).toEqual([]);
    expect((await recall({ userId: 'dana', query: 'anything', appId: 'ghost', minScore: 0 })).memories).toEqual([]);
  });

  it('POST takes the same fields in a JSON body', async () => {
    const res = await server.call('/v1/memories/recall', {
      method: 'POST',
      json: { userId: 'dana', query: 'Where does Dana work?', limit: 1, minScore: 0 },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as RecallJson;
    expect(body.memories[0]?.text).toBe('Dana works as a nurse at the city hospital.');
  });

  it.each([
    [{ userId: 'dana' }, 'query'],
    [{ query: 'x' }, 'userId'],
    [{ userId: 'dana', query: '  ' }, 'query'],
    [{ userId: 'dana', query: 'x', limit: 0 }, 'limit'],
    [{ userId: 'dana', query: 'x', limit: 101 }, 'limit'],
    [{ userId: 'dana', query: 'x', limit: 'five' }, 'limit'],
    [{ userId: 'dana', query: 'x', minScore: 1.5 }, 'minScore'],
    [{ userId: 'dana', query: 'x', minScore: -0.1 }, 'minScore'],
  ])('GET rejects %j with 422 naming %s', async (query, path) => {
    const params = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
    const res = await server.call(`/v1/memories/recall?${params}`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorJson).error.details?.map((d) => d.path)).toContain(path);
  });

  it('POST rejects a numeric string where a number belongs', async () => {
    const res = await server.call('/v1/memories/recall', { method: 'POST', json: { userId: 'dana', query: 'x', limit: '5' } });
    expect(res.status).toBe(422);
  });
});
