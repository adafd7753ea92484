/**
 * Hostile input: fast-check throws thousands of malformed requests at every /v1 route (wrong types, huge numbers,
 * negative pages, unicode edge cases, null bytes, deep and huge metadata, duplicate query parameters, bad
 * percent-encoding, oversized bodies, wrong content types and encodings, ids of the wrong shape, odd methods and
 * Authorization headers), through raw `node:http` so that nothing is cleaned up on the way. For every answer:
 *
 * - never a 5xx, never a dropped connection;
 * - an error is the contract's body `{"error": {"code", "message", "details"?}}`, JSON, with the status of its code
 *   (and `WWW-Authenticate` on 401), and no stack trace or SQL;
 * - a rejected request changed nothing stored: a snapshot (row counts and a SHA-256 of every row of every table) is
 *   the same before and after;
 * - a request that was accepted despite its odd content stored exactly what was sent.
 *
 * Requests no HTTP client forms (huge headers, broken request lines, bare LF, a lying Content-Length) are sent on a
 * plain socket at the end.
 */
import { Agent, request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../src/core/errors.js';
import { createApiKey } from '../../src/core/key-admin.js';
import { LIMITS } from '../../src/core/limits.js';
import type { SqliteDatabase } from '../../src/storage/sqlite/connection.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { openForCheck, snapshot, type Snapshot } from './support/db.js';
import { reportFigures } from './support/figures.js';
import { rawSocket, type RawResponse } from './support/http.js';

let server: TestServer;
let db: SqliteDatabase;
let boundKey: string; // bound to app "app-x"
const knownIds: string[] = [];
let before: Snapshot;
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
const tally = { tried: 0, rejected: 0, accepted: 0, byStatus: new Map<number, number>() };

beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  db = openForCheck(server.dbPath);
  boundKey = (await createApiKey(server.runtime.store, { app: 'app-x', label: 'bound' })).key;
  for (let u = 0; u < 3; u++) {
    for (let i = 0; i < 3; i++) {
      const res = await server.call('/v1/memories', {
        method: 'POST',
        json: { userId: `user-${u}`, text: `Seeded memory ${i} of user ${u} about coffee and travel.`, metadata: { u, i } },
      });
      knownIds.push(((await res.json()) as { id: string }).id);
    }
  }
  before = snapshot(db);
});

afterAll(async () => {
  agent.destroy();
  db?.close();
  await server?.stop();
  const statuses = [...tally.byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}x${n}`).join(',');
  reportFigures('hostile-input', {
    malformedRequestsTried: tally.tried,
    rejected: tally.rejected,
    acceptedAnyway: tally.accepted,
    statuses,
    serverErrors: 0,
    changedByRejected: 0,
  });
});

// ---- Sending and checking ------------------------------------------------------------------------------------

interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** For a store whose body parsed: what must have been stored if it was accepted. */
  expectStored?: { userId: unknown; text: unknown; metadata: unknown };
}

function send(req: HostileRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      { host: hostname, port: Number(port), method: req.method, path: req.path, headers: req.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    r.setTimeout(30_000, () => r.destroy(new Error('request timed out')));
    r.on('error', reject);
    r.end(req.body);
  });
}

const LEAK = /\bat [^\n]*\.(ts|js):\d+|SQLITE_|SqliteError|\bSELECT\b|\bINSERT INTO\b|node_modules/;

/** The contract's error body, with the status of its code. */
function assertContractError(res: RawResponse, context: string): void {
  expect(res.headers['content-type'], context).toMatch(/^application\/json/);
  let body: unknown;
  expect(() => (body = JSON.parse(res.text)), `${context}: body is not JSON: ${res.text.slice(0, 200)}`).not.toThrow();
  const envelope = body as { error?: { code?: unknown; message?: unknown; details?: unknown } };
  expect(Object.keys(envelope), context).toEqual(['error']);
  const error = envelope.error ?? {};
  expect(Object.keys(error).every((k) => ['code', 'message', 'details'].includes(k)), context).toBe(true);
  expect(typeof error.code, context).toBe('string');
  expect(ERROR_STATUS[error.code as ErrorCode], `${context}: status ${res.status} for code ${String(error.code)}`).toBe(res.status);
  expect(typeof error.message === 'string' && error.message.length > 0, context).toBe(true);
  if (error.details !== undefined) {
    expect(Array.isArray(error.details), context).toBe(true);
    for (const d of error.details as unknown[]) {
      const detail = d as { path?: unknown; message?: unknown };
      expect(typeof detail.path === 'string' && typeof detail.message === 'string', context).toBe(true);
    }
  }
  expect(res.text, context).not.toMatch(LEAK);
  if (res.status === 401) expect(res.headers['www-authenticate'], context).toBe('Bearer');
}

async function check(req: HostileRequest): Promise<void> {
  const context = `${req.method} ${req.path.slice(0, 300)} ${JSON.stringify(req.headers).slice(0, 300)} body=${String(req.body ?? '').slice(0, 300)}`;
  tally.tried++;
  let res: RawResponse;
  try {
    res = await send(req);
  } catch (error) {
    throw new Error(`${context}: the connection failed: ${String(error)}`);
  }
  tally.byStatus.set(res.status, (tally.byStatus.get(res.status) ?? 0) + 1);
  expect(res.status, `${context} -> ${res.text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.status, context).toBeGreaterThanOrEqual(200);
  if (res.status >= 400) {
    tally.rejected++;
    if (req.method !== 'HEAD') assertContractError(res, context);
    const after = snapshot(db);
    expect(after, `${context}: a rejected request (${res.status}) changed the database`).toEqual(before);
    return;
  }
  tally.accepted++;
  if (req.method === 'OPTIONS') {
    // Express answers OPTIONS itself with the allowed methods (after the key check): a success, not an error.
    expect(res.headers.allow, context).toBeTruthy();
  } else if (req.method !== 'HEAD' && req.path.startsWith('/v1/')) {
    expect(res.headers['content-type'], context).toMatch(/^application\/json/);
  }
  if (res.status === 201 && req.expectStored) {
    // Accepted despite its odd content: it must be stored exactly as sent.
    const { id } = JSON.parse(res.text) as { id: string };
    const row = db.prepare('SELECT user_id, text, metadata FROM memories WHERE id = ?').get(id) as
      | { user_id: string; text: string; metadata: string }
      | undefined;
    // Identifiers are stored in NFC (core/schemas.ts readableIdentifier): "é" typed as e + U+0301 is the user "é".
    const userId = req.expectStored.userId;
    expect(row?.user_id, context).toBe(typeof userId === 'string' ? userId.normalize('NFC') : userId);
    expect(row?.text, context).toBe(req.expectStored.text);
    expect(JSON.parse(row?.metadata ?? 'null'), context).toEqual(req.expectStored.metadata ?? {});
    knownIds.push(id);
  }
  before = snapshot(db);
}

// ---- Arbitraries ---------------------------------------------------------------------------------------------

const anyUnit = fc.nat(0xffff).map((c) => String.fromCharCode(c)); // includes lone surrogates and controls
const nastyStrings = fc.constantFrom(
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDC00y',
  '\uDBFF',
  '\uD83D\uDE00',
  '\u202Eevil\u202C',
  '\u200B',
  '\u200D\u200D\u200D',
  '\uFEFFbom',
  '\u0085',
  '\u2028\u2029',
  'e\u0301\u0301\u0301',
  '\u05E9\u05DC\u05D5\u05DD \u0645\u0631\u062D\u0628\u0627',
  '🧠🧠🧠👨‍👩‍👧‍👦',
  '%00',
  '%zz',
  '../../etc/passwd',
  "' OR 1=1 --",
  '"; DROP TABLE memories; --',
  'NaN',
  'null',
  '__proto__',
  'constructor',
  '<script>alert(1)</script>',
  `amk_${'Z'.repeat(40)}`,
);
const hostileString = fc.oneof(
  { weight: 4, arbitrary: nastyStrings },
  { weight: 2, arbitrary: fc.string({ unit: anyUnit, maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'x'.repeat(LIMITS.textMaxLength + 1),
      'u'.repeat(LIMITS.userIdMaxLength + 1),
      '🧠'.repeat(LIMITS.textMaxLength),
      ' '.repeat(5000),
      'y'.repeat(300_000),
    ),
  },
);
const hostileNumber = fc.oneof(
  fc.constantFrom(-1, -0, 0, 0.5, 1.5, 101, 1e308, -1e308, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, 5e-324, -99999999),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
/** Deeply nested arrays or objects, as JSON text (JSON.stringify itself cannot make the deepest ones). */
const deepJson = fc
  .tuple(fc.constantFrom(33, 100, 3_000, 10_000, 100_000), fc.boolean())
  .map(([depth, arrays]) => (arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)));
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null, [], {}, [[]], { '': '' }) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileString, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
/** Raw JSON tokens spliced in place of a field's value: numbers JSON.stringify never writes, and broken JSON. */
const rawToken = fc.constantFrom(
  '1e400',
  '-1e400',
  '1E+999999',
  '-0',
  '0x10',
  '00',
  '1.',
  '.5',
  'NaN',
  'Infinity',
  '"\\ud800"',
  '"\\udfff\\ud800"',
  '"\\u0000"',
  '"a\\u0000b"',
  'tru',
  '"unterminated',
  '[1,]',
  '{"a":1,}',
  "'single'",
  '9'.repeat(400),
);

function jsonBodyWith(base: Record<string, unknown>, field: string, token: string): string {
  const rest = { ...base };
  delete rest[field];
  const text = JSON.stringify(rest);
  return `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}${JSON.stringify(field)}:${token}}`;
}

const authHeader = fc.oneof(
  { weight: 12, arbitrary: fc.constant(`Bearer ${TEST_KEY}`) },
  { weight: 2, arbitrary: fc.constant('BOUND') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      'Bearer',
      'Bearer ',
      `bearer ${TEST_KEY}`,
      `Bearer  ${TEST_KEY}  `,
      `Bearer ${TEST_KEY} extra`,
      `Basic ${TEST_KEY}`,
      `Bearer ${TEST_KEY.slice(0, -1)}`,
      `Bearer ${TEST_KEY}x`,
      `Bearer amk_${'é'.repeat(40)}`,
      `Bearer ${'a'.repeat(8000)}`,
      'Bearer \u00ff\u00fe',
      `Token ${TEST_KEY}`,
    ),
  },
);

function headersFor(auth: string, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { ...extra };
  if (auth === 'BOUND') headers.Authorization = `Bearer ${boundKey}`;
  else if (auth !== '') headers.Authorization = auth;
  return headers;
}

const validStore = fc.record({
  userId: fc.constantFrom('user-0', 'user-1', 'fuzz'),
  text: fc.constantFrom('A fuzzed fact about tea.', 'Another fact.'),
  appId: fc.constantFrom(undefined, 'default', 'app-x', 'app-y'),
  metadata: fc.constantFrom(undefined, { tag: 'x' }),
});

type BodyRoute = '/v1/memories' | '/v1/memories/recall' | '/v1/memories/batch-delete';
function baseFor(route: BodyRoute, store: Record<string, unknown>): Record<string, unknown> {
  const clean = Object.fromEntries(Object.entries(store).filter(([, v]) => v !== undefined));
  if (route === '/v1/memories') return clean;
  if (route === '/v1/memories/recall') return { userId: clean.userId, query: 'coffee', limit: 5, minScore: 0.1 };
  return { ids: [knownIds[0] ?? 'mem_000000000000'] };
}
const FIELDS: Record<BodyRoute, string[]> = {
  '/v1/memories': ['userId', 'text', 'appId', 'metadata', 'createdAt', 'extra', '__proto__'],
  '/v1/memories/recall': ['userId', 'query', 'appId', 'limit', 'minScore', 'extra'],
  '/v1/memories/batch-delete': ['ids', 'extra'],
};
const bodyRoute = fc.constantFrom<BodyRoute>('/v1/memories', '/v1/memories/recall', '/v1/memories/batch-delete');

/** A JSON body route with one to three fields made hostile (a value, a raw token, or removal). */
const jsonFieldRequest: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    bodyRoute,
    validStore,
    fc.array(
      fc.tuple(fc.nat(100), fc.oneof(hostileValue.map((v) => ({ value: v })), rawToken.map((t) => ({ token: t })), fc.constant({ remove: true }))),
      { minLength: 1, maxLength: 3 },
    ),
    fc.option(fc.constantFrom('', ' ', 'k'.repeat(256), 'bad\u00ffkey', 'same-key'), { nil: undefined }),
    authHeader,
  )
  .map(([route, store, mutations, idem, auth]) => {
    const fields = FIELDS[route];
    let base = baseFor(route, store);
    let body: string | undefined;
    for (const [pick, mutation] of mutations) {
      const field = fields[pick % fields.length] ?? 'extra';
      if ('remove' in mutation) {
        base = { ...base };
        delete base[field];
      } else if ('value' in mutation) {
        base = { ...base };
        // ids get an array of hostile ids as often as a hostile value.
        base[field] = field === 'ids' && pick % 2 === 0 ? [mutation.value, knownIds[1]] : mutation.value;
      } else {
        body = jsonBodyWith(base, field, mutation.token);
      }
    }
    if (body === undefined) body = JSON.stringify(base);
    const extra: Record<string, string> = { 'Content-Type': 'application/json' };
    if (idem !== undefined && route === '/v1/memories') extra['Idempotency-Key'] = idem;
    let expectStored: HostileRequest['expectStored'];
    try {
      const parsed = JSON.parse(body) as { userId?: unknown; text?: unknown; metadata?: unknown };
      if (route === '/v1/memories') expectStored = { userId: parsed.userId, text: parsed.text, metadata: parsed.metadata };
    } catch {
      // Not JSON: must be rejected.
    }
    return { method: 'POST', path: route, headers: headersFor(auth, extra), body, ...(expectStored ? { expectStored } : {}) };
  });

/** Whole bodies that are wrong: not JSON, not an object, too deep, too big, wrong type or encoding. */
const rawBodyRequest: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    bodyRoute,
    fc.oneof(
      fc.constantFrom('', 'null', '[]', '"text"', '42', 'true', '{', '{"userId":', '\uFEFF{"userId":"u","text":"bom"}', '{}{}', '{"a":1}garbage', '\u0000\u0001'),
      fc.string({ unit: anyUnit, maxLength: 40 }),
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
      deepJson,
      deepJson.map((deep) => `{"userId":"u","text":"deep","metadata":{"m":${deep}}}`),
      fc.constantFrom(LIMITS.metadataMaxBytes + 1, 100_000).map((n) => `{"userId":"u","text":"big","metadata":{"m":"${'m'.repeat(n)}"}}`),
      fc.constantFrom(LIMITS.bodyMaxBytes + 1, 3 * LIMITS.bodyMaxBytes).map((n) => `{"userId":"u","text":"${'t'.repeat(n)}"}`),
      fc.constantFrom(1_000, 1_001, 5_000).map((n) => JSON.stringify({ ids: Array.from({ length: n }, (_, i) => `mem_${String(i).padStart(12, '0')}`) })),
    ),
    fc.constantFrom(
      'application/json',
      'application/json',
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/vnd.api+json',
      'application/json;;;',
      '*/*',
      '',
    ),
    fc.constantFrom(undefined, undefined, undefined, 'gzip', 'deflate', 'br', 'compress', 'identity', 'gzip, gzip'),
    authHeader,
  )
  .map(([route, body, contentType, encoding, auth]) => {
    const extra: Record<string, string> = {};
    if (contentType !== undefined) extra['Content-Type'] = contentType;
    if (encoding !== undefined) extra['Content-Encoding'] = encoding;
    let expectStored: HostileRequest['expectStored'];
    if (route === '/v1/memories' && typeof body === 'string') {
      try {
        const parsed = JSON.parse(body) as { userId?: unknown; text?: unknown; metadata?: unknown };
        expectStored = { userId: parsed?.userId, text: parsed?.text, metadata: parsed?.metadata };
      } catch {
        // Not JSON.
      }
    }
    return { method: 'POST', path: route, headers: headersFor(auth, extra), body, ...(expectStored ? { expectStored } : {}) };
  });

/** Query strings, raw: duplicates, unknown names, bad percent-encoding, numbers of every wrong shape. */
const queryValue = fc.oneof(
  fc.constantFrom(
    '',
    '-1',
    '1.5',
    '1e3',
    '1e400',
    '0x10',
    '%201',
    '1%20',
    '%2B1',
    'Infinity',
    'NaN',
    '-0',
    '9'.repeat(400),
    'abc',
    '%',
    '%zz',
    '%E0%A4%A',
    '%ED%A0%80',
    '%00',
    '%C0%AF',
    '%FF',
    'user-0',
    'coffee',
    '0',
    '100',
    '101',
    'a%26b%3Dc',
    '%5B%5D',
  ),
  hostileString.map((s) => {
    try {
      return encodeURIComponent(s);
    } catch {
      return s.replace(/[^\w]/g, '');
    }
  }),
);
const queryName = fc.constantFrom('userId', 'userId', 'page', 'pageSize', 'appId', 'query', 'limit', 'minScore', 'foo', '__proto__', 'page[]', 'userId[0]', 'constructor', '', '%00');
const queryRoute = fc.constantFrom(
  { method: 'GET', path: '/v1/memories' },
  { method: 'GET', path: '/v1/memories/user-0' },
  { method: 'GET', path: '/v1/memories/recall' },
  { method: 'DELETE', path: '/v1/memories' },
);
const queryRequest: fc.Arbitrary<HostileRequest> = fc
  .tuple(queryRoute, fc.array(fc.tuple(queryName, queryValue), { minLength: 0, maxLength: 6 }), fc.boolean(), authHeader)
  .map(([route, params, withUser, auth]) => {
    const pairs = withUser ? [['userId', 'fuzz-nobody'] as [string, string], ...params] : params;
    const qs = pairs.map(([k, v]) => `${k}=${v}`).join('&');
    return { method: route.method, path: `${route.path}${qs ? `?${qs}` : ''}`, headers: headersFor(auth) };
  });

/** Path segments: ids of the wrong shape, encodings of every kind, dot segments, long ones. */
const segment = fc.oneof(
  fc.constantFrom(
    'mem_00000000000',
    'mem_0000000000000',
    'mem_------------',
    'MEM_000000000000',
    'mem_00000000000%21',
    '00000000-0000-0000-0000-00000000000g',
    '000000000000000000000000000000000000',
    '00000000-0000-0000-0000-000000000000',
    '%2F',
    '..',
    '.',
    '%2e%2e',
    '%',
    '%zz',
    '%C0%80',
    '%ED%A0%80',
    '%00',
    '%0A',
    'a%2Fb',
    'recall',
    'batch-delete',
    'x'.repeat(5_000),
    '%F0%9F%A7%A0',
    '%E2%80%AE',
  ),
  fc.stringMatching(/^mem_[0-9A-Za-z]{12}$/),
  fc.uuid().map((u) => u.toUpperCase()),
  hostileString.map((s) => {
    try {
      return encodeURIComponent(s).slice(0, 2_000);
    } catch {
      return 'x';
    }
  }),
);
const pathRequest: fc.Arbitrary<HostileRequest> = fc
  .tuple(fc.constantFrom('GET', 'DELETE'), segment, fc.constantFrom('', '/', '//', '/extra'), fc.constantFrom('', '?page=0', '?x=%zz'), authHeader)
  .map(([method, seg, tail, qs, auth]) => ({ method, path: `/v1/memories/${seg}${tail}${qs}`, headers: headersFor(auth) }));

/** Odd methods and unknown routes, with and without a key. */
const routeRequest: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'SEARCH'),
    fc.constantFrom(
      '/v1/memories',
      '/v1/memories/recall',
      '/v1/memories/batch-delete',
      '/v1/memories/user-0',
      '/v1',
      '/v1/',
      '/v2/memories',
      '/v1/keys',
      '/v1/../v1/memories',
      '//v1/memories',
      '/V1/MEMORIES',
      '/healthz/x',
      '/%2e%2e/v1/memories',
      `/v1/memories/${'a/'.repeat(200)}`,
    ),
    authHeader,
  )
  .map(([method, path, auth]) => ({ method, path, headers: headersFor(auth) }));

// ---- Properties ----------------------------------------------------------------------------------------------

const RUNS = Number(process.env.HOSTILE_RUNS ?? 1);
// fast-check prints the seed and path of a failure; FC_SEED=<seed> replays it.
const runs = (n: number) => ({
  numRuns: Math.max(1, Math.round(n * RUNS)),
  endOnFailure: true,
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
});

describe('hostile input on every route', () => {
  it('JSON bodies with hostile field values', async () => {
    await fc.assert(fc.asyncProperty(jsonFieldRequest, check), runs(700));
  }, 120_000);

  it('bodies that are not JSON objects, too deep, too big, of the wrong type or encoding', async () => {
    await fc.assert(fc.asyncProperty(rawBodyRequest, check), runs(450));
  }, 120_000);

  it('query strings with duplicates, unknown names, bad percent-encoding and numbers of every wrong shape', async () => {
    await fc.assert(fc.asyncProperty(queryRequest, check), runs(550));
  }, 120_000);

  it('path segments and ids of the wrong shape', async () => {
    await fc.assert(fc.asyncProperty(pathRequest, check), runs(500));
  }, 120_000);

  it('odd methods, unknown routes and Authorization headers', async () => {
    await fc.assert(fc.asyncProperty(routeRequest, check), runs(250));
  }, 120_000);

  it('answers each kind of bad input with its own code, and names the real problem', async () => {
    const json = { 'Content-Type': 'application/json', Authorization: `Bearer ${TEST_KEY}` };
    const deep = `{"userId":"u","text":"deep","metadata":{"m":${'['.repeat(5_000)}${']'.repeat(5_000)}}}`;
    const cases: Array<{ req: HostileRequest; status: number; code: string; path?: string; message?: RegExp }> = [
      { req: { method: 'POST', path: '/v1/memories', headers: json, body: '{"userId":' }, status: 400, code: 'invalid_json' },
      { req: { method: 'POST', path: '/v1/memories', headers: { ...json, 'Content-Type': 'text/plain' }, body: '{}' }, status: 415, code: 'unsupported_media_type' },
      {
        req: { method: 'POST', path: '/v1/memories', headers: json, body: `{"userId":"u","text":"${'t'.repeat(LIMITS.bodyMaxBytes)}"}` },
        status: 413,
        code: 'payload_too_large',
      },
      // A compressed body that does not decompress is a body problem (it was answered as a malformed path).
      { req: { method: 'POST', path: '/v1/memories', headers: { ...json, 'Content-Encoding': 'gzip' }, body: 'not gzip' }, status: 400, code: 'invalid_json' },
      // Metadata nested deeper than JSON.stringify's stack allows was a 500.
      { req: { method: 'POST', path: '/v1/memories', headers: json, body: deep }, status: 422, code: 'validation_error', path: 'metadata' },
      // Lone surrogates have no UTF-8 form: they were stored as invalid bytes and read back as U+FFFD.
      { req: { method: 'POST', path: '/v1/memories', headers: json, body: '{"userId":"u","text":"half \\ud800 a pair"}' }, status: 422, code: 'validation_error', path: 'text' },
      { req: { method: 'POST', path: '/v1/memories', headers: json, body: '{"userId":"a\\udc00","text":"x"}' }, status: 422, code: 'validation_error', path: 'userId' },
      {
        req: { method: 'POST', path: '/v1/memories/recall', headers: json, body: '{"userId":"u","query":"\\ud83d"}' },
        status: 422,
        code: 'validation_error',
        path: 'query',
      },
      // A value of the wrong type is named as such, not as missing.
      {
        req: { method: 'POST', path: '/v1/memories', headers: json, body: '{"userId":42,"text":"x"}' },
        status: 422,
        code: 'validation_error',
        path: 'userId',
        message: /must be a string/,
      },
      {
        req: { method: 'GET', path: '/v1/memories/u?page=1e400', headers: json },
        status: 422,
        code: 'validation_error',
        path: 'page',
        message: /integer >= 0/,
      },
      { req: { method: 'POST', path: '/v1/memories', headers: json, body: '{"text":"x"}' }, status: 422, code: 'validation_error', path: 'userId', message: /is required/ },
    ];
    for (const c of cases) {
      tally.tried++;
      const res = await send(c.req);
      tally.byStatus.set(res.status, (tally.byStatus.get(res.status) ?? 0) + 1);
      tally.rejected++;
      const context = `${c.req.method} ${c.req.path} ${String(c.req.body).slice(0, 80)}`;
      expect(res.status, `${context} -> ${res.text.slice(0, 300)}`).toBe(c.status);
      assertContractError(res, context);
      const { error } = JSON.parse(res.text) as { error: { code: string; details?: Array<{ path: string; message: string }> } };
      expect(error.code, context).toBe(c.code);
      if (c.path !== undefined) expect(error.details?.map((d) => d.path), context).toContain(c.path);
      if (c.message) expect(error.details?.find((d) => d.path === c.path)?.message, context).toMatch(c.message);
      expect(snapshot(db), `${context} changed the database`).toEqual(before);
    }
  });

  it('requests no HTTP client forms, on a plain socket', async () => {
    const key = `Authorization: Bearer ${TEST_KEY}\r\n`;
    const cases: Array<{ name: string; bytes: string; status: number }> = [
      { name: 'huge header', bytes: `GET /v1/memories/user-0 HTTP/1.1\r\nHost: x\r\n${key}X-Big: ${'a'.repeat(100_000)}\r\n\r\n`, status: 413 },
      { name: 'huge Authorization', bytes: `GET /v1/memories/user-0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(70_000)}\r\n\r\n`, status: 413 },
      { name: 'many small headers (valid: Node keeps the first 2,000)', bytes: `GET /v1/memories/user-0 HTTP/1.1\r\nHost: x\r\n${key}${'X-A: b\r\n'.repeat(3_000)}Connection: close\r\n\r\n`, status: 200 },
      { name: 'broken request line', bytes: 'GARBAGE\r\n\r\n', status: 400 },
      { name: 'space in the path', bytes: `GET /v1/memories/a b HTTP/1.1\r\nHost: x\r\n${key}\r\n`, status: 400 },
      { name: 'control character in a header', bytes: `GET /v1/memories/u HTTP/1.1\r\nHost: x\r\n${key}X-A: a\u0001b\r\n\r\n`, status: 400 },
      { name: 'bad HTTP version', bytes: `GET /v1/memories/u HTTP/9.9\r\nHost: x\r\n${key}\r\n`, status: 400 },
      { name: 'invalid header name', bytes: `GET /v1/memories/u HTTP/1.1\r\nHost: x\r\n${key}Bad Header: x\r\n\r\n`, status: 400 },
      {
        name: 'Content-Length and Transfer-Encoding both',
        bytes: `POST /v1/memories HTTP/1.1\r\nHost: x\r\n${key}Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        status: 400,
      },
      {
        // The rest is read as a second, broken request: the connection is refused as a whole (as Node does).
        name: 'Content-Length shorter than the body',
        bytes: `POST /v1/memories/recall HTTP/1.1\r\nHost: x\r\n${key}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}{"userId":"x"}`,
        status: 400,
      },
      {
        name: 'Content-Length longer than the body (the client stops sending)',
        bytes: `POST /v1/memories HTTP/1.1\r\nHost: x\r\n${key}Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{"userId":"u"`,
        status: 400,
      },
      {
        name: 'bad chunked encoding',
        bytes: `POST /v1/memories HTTP/1.1\r\nHost: x\r\n${key}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`,
        status: 400,
      },
    ];
    for (const c of cases) {
      tally.tried++;
      const res = await rawSocket(server.url, c.bytes);
      tally.byStatus.set(res.status, (tally.byStatus.get(res.status) ?? 0) + 1);
      expect(res.status, `${c.name}: ${res.raw.slice(0, 300)}`).toBe(c.status);
      if (res.status < 400) continue;
      tally.rejected++;
      assertContractError(res, c.name);
      expect(snapshot(db), `${c.name} changed the database`).toEqual(before);
    }
    // The server is still serving.
    expect((await server.call('/v1/memories/user-0')).status).toBe(200);
  }, 60_000);
});
