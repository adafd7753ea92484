import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/core/limits.js';
import { startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

async function expectError(res: Response, status: number, code: string): Promise<ErrorJson> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as ErrorJson;
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+|SQLITE|SELECT /);
  return body;
}

describe('POST /v1/memories', () => {
  it('stores a memory and answers 201 with the store response', async () => {
    const res = await server.call('/v1/memories', { method: 'POST', json: { userId: 'alice', text: 'Alice prefers green tea.' } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(['appId', 'createdAt', 'duplicate', 'id', 'userId']);
    expect(body.id).toMatch(/^mem_[0-9A-Za-z]{12}$/);
    expect(body.userId).toBe('alice');
    expect(body.appId).toBe('default');
    expect(body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('keeps text exactly as sent, with metadata, app and an imported createdAt', async () => {
    const text = '  Bob\u2019s cat is called \u201cMiso\u201d 🐱\n  ';
    const res = await server.call('/v1/memories', {
      method: 'POST',
      json: { userId: 'bob', text, appId: 'pets', metadata: { tags: ['cat'], n: 1 }, createdAt: '2023-05-08T13:56:00+02:00' },
    });
    expect(res.status).toBe(201);
    const stored = (await res.json()) as { id: string; appId: string; createdAt: string };
    expect(stored.appId).toBe('pets');
    expect(stored.createdAt).toBe('2023-05-08T11:56:00.000Z');
    const list = (await (await server.call('/v1/memories/bob')).json()) as { memories: Array<Record<string, unknown>> };
    expect(list.memories[0]).toMatchObject({ id: stored.id, text, metadata: { tags: ['cat'], n: 1 }, appId: 'pets' });
  });

  it.each([
    [{ text: 'no user' }, 'userId'],
    [{ userId: 'u' }, 'text'],
    [{ userId: '', text: 'x' }, 'userId'],
    [{ userId: 'u', text: '   \n\t ' }, 'text'],
    [{ userId: 'u', text: 'x'.repeat(LIMITS.textMaxLength + 1) }, 'text'],
    [{ userId: 'u'.repeat(LIMITS.userIdMaxLength + 1), text: 'x' }, 'userId'],
    [{ userId: 'a\u0000b', text: 'x' }, 'userId'],
    [{ userId: 42, text: 'x' }, 'userId'],
    [{ userId: 'u', text: ['x'] }, 'text'],
    [{ userId: 'u', text: 'x', metadata: [1, 2] }, 'metadata'],
    [{ userId: 'u', text: 'x', metadata: 'tags' }, 'metadata'],
    [{ userId: 'u', text: 'x', metadata: null }, 'metadata'],
    [{ userId: 'u', text: 'x', metadata: { big: 'y'.repeat(LIMITS.metadataMaxBytes) } }, 'metadata'],
    [{ userId: 'u', text: 'x', appId: 'Not A Slug' }, 'appId'],
    [{ userId: 'u', text: 'x', createdAt: 'yesterday' }, 'createdAt'],
    [{ userId: 'u', text: 'x', createdAt: '2999-01-01T00:00:00Z' }, 'createdAt'],
    [{ userId: 'u', text: 'x', createdAt: '2024-02-30T00:00:00Z' }, 'createdAt'],
    [{ userId: 'u', text: 'x', user_id: 'typo' }, ''],
  ])('rejects %j with 422 naming %s', async (json, path) => {
    const body = await expectError(await server.call('/v1/memories', { method: 'POST', json }), 422, 'validation_error');
    expect(body.error.details?.map((d) => d.path)).toContain(path);
  });

  it('accepts text of exactly the maximum length', async () => {
    const res = await server.call('/v1/memories', { method: 'POST', json: { userId: 'long', text: 'y'.repeat(LIMITS.textMaxLength) } });
    expect(res.status).toBe(201);
  });

  it('names every missing field when the body is empty', async () => {
    const body = await expectError(await server.call('/v1/memories', { method: 'POST' }), 422, 'validation_error');
    expect(body.error.details?.map((d) => d.path).sort()).toEqual(['text', 'userId']);
  });

  it('answers 400 invalid_json for a malformed body', async () => {
    await expectError(
      await server.call('/v1/memories', { method: 'POST', body: '{"userId": "u", ', headers: { 'Content-Type': 'application/json' } }),
      400,
      'invalid_json',
    );
  });

  it('answers 422 for JSON that is not an object', async () => {
    await expectError(await server.call('/v1/memories', { method: 'POST', json: ['userId', 'text'] }), 422, 'validation_error');
    await expectError(await server.call('/v1/memories', { method: 'POST', json: 'text' }), 422, 'validation_error');
  });

  it('answers 415 for a body that is not JSON', async () => {
    await expectError(
      await server.call('/v1/memories', { method: 'POST', body: 'userId=u&text=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }),
      415,
      'unsupported_media_type',
    );
    await expectError(await server.call('/v1/memories', { method: 'POST', body: '{"userId":"u","text":"x"}' }), 415, 'unsupported_media_type');
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const json = { userId: 'u', text: 'x', metadata: { pad: 'z'.repeat(LIMITS.bodyMaxBytes) } };
    await expectError(await server.call('/v1/memories', { method: 'POST', json }), 413, 'payload_too_large');
  });

  it('answers 422 for an unknown app UUID, and never creates it', async () => {
    const json = { userId: 'u', text: 'x', appId: '3f1c2a9e-0000-4000-8000-000000000000' };
    const body = await expectError(await server.call('/v1/memories', { method: 'POST', json }), 422, 'validation_error');
    expect(body.error.details?.[0]?.path).toBe('appId');
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for a retry and stores once', async () => {
      const init = { method: 'POST', json: { userId: 'idem', text: 'Pays rent on the 1st.' }, headers: { 'Idempotency-Key': 'k-1' } };
      const first = await server.call('/v1/memories', init);
      const second = await server.call('/v1/memories', init);
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(await second.json()).toEqual(await first.json());
      const list = (await (await server.call('/v1/memories/idem')).json()) as { total: number };
      expect(list.total).toBe(1);
    });

    it('treats the same body in another key order as the same request', async () => {
      const headers = { 'Idempotency-Key': 'k-order' };
      const a = await server.call('/v1/memories', { method: 'POST', json: { userId: 'idem2', text: 'T' }, headers });
      const b = await server.call('/v1/memories', { method: 'POST', json: { text: 'T', userId: 'idem2' }, headers });
      expect((await b.json()) as unknown).toEqual(await a.json());
    });

    it('answers 409 when the key is reused with another body', async () => {
      const headers = { 'Idempotency-Key': 'k-2' };
      expect((await server.call('/v1/memories', { method: 'POST', json: { userId: 'idem3', text: 'one' }, headers })).status).toBe(201);
      await expectError(
        await server.call('/v1/memories', { method: 'POST', json: { userId: 'idem3', text: 'two' }, headers }),
        409,
        'idempotency_conflict',
      );
      const list = (await (await server.call('/v1/memories/idem3')).json()) as { total: number };
      expect(list.total).toBe(1);
    });

    it('stores once when identical requests race', async () => {
      const init = { method: 'POST', json: { userId: 'race', text: 'Raced.' }, headers: { 'Idempotency-Key': 'k-race' } };
      const responses = await Promise.all(Array.from({ length: 8 }, () => server.call('/v1/memories', init)));
      const ids = new Set(await Promise.all(responses.map(async (r) => ((await r.json()) as { id: string }).id)));
      expect(responses.every((r) => r.status === 201)).toBe(true);
      expect(ids.size).toBe(1);
      const list = (await (await server.call('/v1/memories/race')).json()) as { total: number };
      expect(list.total).toBe(1);
    });

    it('rejects an over-long key with 422', async () => {
      await expectError(
        await server.call('/v1/memories', { method: 'POST', json: { userId: 'u', text: 'x' }, headers: { 'Idempotency-Key': 'k'.repeat(256) } }),
        422,
        'validation_error',
      );
    });
  });
});
