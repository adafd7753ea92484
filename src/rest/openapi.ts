/**
 * The OpenAPI 3.1 document served at `GET /openapi.json`, generated from the same zod schemas that validate the
 * requests (`z.toJSONSchema`): a limit or a field changed in src/core/schemas.ts changes the document too. The
 * route list below is checked against the routes the app really serves by test/rest/openapi.test.ts.
 */
import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import {
  deleteResultSchema,
  forgetAllInputSchema,
  forgetManyInputSchema,
  idempotencyKeySchema,
  keyRefInputSchema,
  listInputSchema,
  listResultSchema,
  listUsersInputSchema,
  listUsersResultSchema,
  memoryKeySchema,
  memoryRefSchema,
  memorySchema,
  putByKeyInputSchema,
  recallInputSchema,
  recallResultSchema,
  storeInputSchema,
  storeResultSchema,
  updateInputSchema,
  userIdSchema,
} from '../core/schemas.js';

type JsonSchema = Record<string, unknown>;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), as a request sends it or a response carries it. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const ERROR_BODY: JsonSchema = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
        message: { type: 'string', description: 'One human sentence.' },
        details: {
          type: 'array',
          description: 'Field problems of a validation error: a dotted path ("" for the whole input) and a message.',
          items: {
            type: 'object',
            required: ['path', 'message'],
            additionalProperties: false,
            properties: { path: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'invalid_json: the body is not JSON.',
  401: 'auth_error: missing, malformed, unknown or revoked API key (with WWW-Authenticate: Bearer).',
  403: 'forbidden: a key bound to one app named another app, or an OAuth token lacks the scope (insufficient_scope).',
  404: 'not_found: no such route, or no memory with this id visible to the key (unknown, expired, or in another app).',
  409: 'idempotency_conflict (an Idempotency-Key reused with another body) or duplicate_memory (an update onto the text of another live memory of the same user and app).',
  413: 'payload_too_large: the body is over 1 MiB.',
  415: 'unsupported_media_type: a body that is not application/json.',
  422: 'validation_error: a field is missing or invalid; details lists each one.',
  429: 'rate_limit: too many requests for this key; Retry-After says when to try again.',
  500: 'server_error: the server failed; the log line carries the request id.',
  503: 'unavailable: the service cannot serve yet (model loading or failed, database busy or unreachable).',
};

const CODES_BY_STATUS = (Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>).reduce<Record<number, ErrorCode[]>>(
  (acc, [code, status]) => ({ ...acc, [status]: [...(acc[status] ?? []), code] }),
  {},
);

/** Every /v1 call can meet these: auth, rate limit, server trouble, and bad input. */
const COMMON_ERRORS = [401, 422, 429, 500, 503];
/** Calls with a JSON body can also meet these. */
const BODY_ERRORS = [400, 413, 415];

interface Operation {
  method: Method;
  path: string;
  summary: string;
  description?: string;
  /** Path parameters, by name. */
  pathParams?: Record<string, { schema: z.ZodType; description: string }>;
  /** A strict object schema whose fields are the query parameters. */
  query?: z.ZodObject;
  /** Query fields that the path carries instead (e.g. userId of GET /v1/memories/{userIdOrMemoryId}). */
  omitQuery?: readonly string[];
  body?: z.ZodType;
  headers?: Array<{ name: string; description: string; schema: z.ZodType }>;
  /** A response without schema has no body (a redirect); contentType defaults to application/json. */
  responses: Record<number, { description: string; schema?: z.ZodType | JsonSchema; contentType?: string; headers?: Record<string, string> }>;
  errors: number[];
  /** No API key (health, this document). */
  open?: boolean;
}

/** A call in its query-string form and its JSON-body form (POST): the same input, the same answer. */
function twoForms(
  query: { method: Method; path: string; summary: string; description?: string },
  body: { path: string; summary: string },
  input: z.ZodObject,
  answer: { description: string; schema: z.ZodType },
): Operation[] {
  return [
    { ...query, query: input, responses: { 200: answer }, errors: [...COMMON_ERRORS, 403] },
    { method: 'post', ...body, body: input, responses: { 200: answer }, errors: [...COMMON_ERRORS, ...BODY_ERRORS, 403] },
  ];
}

const memoryIdParam = { schema: memoryRefSchema, description: 'A memory id: "mem_" and 12 letters or digits, or the memory UUID.' };

const memoryKeyParam = { schema: memoryKeySchema, description: 'Your own key for the memory, percent-encoded as one path segment.' };

/** The three routes of a caller's key (PUT creates or replaces, GET reads, DELETE forgets). */
const KEY_OPERATIONS: Operation[] = [
  {
    method: 'put',
    path: '/v1/memories/by-key/{key}',
    summary: 'Store a memory under your own key: create it, or replace the one stored under the key',
    description:
      'The key is unique within the user and app. A PUT replaces the memory whole: text (embedded again), ' +
      'metadata (absent: {}) and expiry (absent: none); its id and createdAt stay, updatedAt is set. createdAt ' +
      'applies only when the PUT creates the memory. Nodes receiving the same PUT at once end with one memory. A ' +
      'keyed memory is not refused for holding the text of another memory: it is addressed by its key. The ' +
      'Idempotency-Key header is not needed (a PUT is idempotent) and is ignored.',
    pathParams: { key: memoryKeyParam },
    body: putByKeyInputSchema,
    responses: {
      201: { description: 'Created: no live memory held the key.', schema: memorySchema },
      200: { description: 'Replaced: the memory that held the key, as it now is (same id).', schema: memorySchema },
    },
    errors: [...COMMON_ERRORS, ...BODY_ERRORS, 403],
  },
  {
    method: 'get',
    path: '/v1/memories/by-key/{key}',
    summary: 'Read the memory stored under your own key',
    description: 'Without appId, the key is looked up in the app a store would use: the API key\u2019s app, else "default".',
    pathParams: { key: memoryKeyParam },
    query: keyRefInputSchema,
    omitQuery: ['key'],
    responses: { 200: { description: 'The memory.', schema: memorySchema } },
    errors: [...COMMON_ERRORS, 403, 404],
  },
  {
    method: 'delete',
    path: '/v1/memories/by-key/{key}',
    summary: 'Delete the memory stored under your own key (idempotent: 0 when there is none)',
    pathParams: { key: memoryKeyParam },
    query: keyRefInputSchema,
    omitQuery: ['key'],
    responses: { 200: { description: 'deleted: 1, or 0.', schema: deleteResultSchema } },
    errors: [...COMMON_ERRORS, 403],
  },
];

const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/healthz',
    summary: 'Health: ok once the database and the embedding model are ready',
    open: true,
    responses: {
      200: {
        description: "Ready. `calibration` is there when the score map is not the built-in one: 'pending' while the service fits one for its model (a conservative map meanwhile), then 'fitted'.",
        schema: {
          type: 'object',
          required: ['status'],
          properties: {
            status: { const: 'ok' },
            calibration: { enum: ['fitted', 'pending', 'failed'] },
            embeddingBacklog: { type: 'integer', minimum: 1, description: 'Memories stored while the embedding endpoint was down that wait for their vector; absent when none do.' },
          },
        },
      },
      503: {
        description: 'Not ready: the report says which part and why.',
        schema: {
          type: 'object',
          required: ['status', 'store', 'model'],
          properties: {
            status: { enum: ['starting', 'unavailable'] },
            store: { enum: ['ok', 'unavailable'] },
            model: { enum: ['ready', 'loading', 'failed'] },
            reason: { type: 'string' },
            calibration: { enum: ['builtin', 'fitted', 'pending', 'failed'] },
            embeddingBacklog: { type: 'integer', minimum: 1 },
          },
        },
      },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    open: true,
    responses: { 200: { description: 'The OpenAPI 3.1 document of this API.', schema: { type: 'object' } } },
    errors: [],
  },
  {
    method: 'get',
    path: '/console',
    summary: 'The web console: redirects to /console/, its page (its scripts and styles are static files below it)',
    open: true,
    responses: {
      301: { description: 'To /console/, the page.', headers: { Location: '/console/' } },
      200: { description: 'The console page (at /console/).', schema: { type: 'string' }, contentType: 'text/html' },
      503: { description: 'The console is not built (npm run build).', schema: { $ref: '#/components/schemas/Error' } },
    },
    errors: [],
  },
  {
    method: 'post',
    path: '/v1/memories',
    summary: 'Store a memory',
    description:
      'Stores one memory, unless a live memory of the same user and app holds the same text once whitespace is ' +
      'normalised (runs of whitespace as one space, ends trimmed): then nothing is stored or merged, and that ' +
      'memory answers with 200, `duplicate: true` and the header `Memory-Duplicate: true`. With an ' +
      'Idempotency-Key, a retry within 24 hours answers the first response again, with its status, and the header ' +
      '`Idempotent-Replayed: true`. With `key`, this is PUT /v1/memories/by-key/{key}: the memory stored under ' +
      'the key is replaced (200, `updated: true`, same id) or created (201, `updated: false`); no duplicate check, ' +
      'and the Idempotency-Key is ignored.',
    body: storeInputSchema,
    headers: [
      {
        name: 'Idempotency-Key',
        description: 'Makes the store safe to retry: the same key from the same API key within 24 hours answers the first response.',
        schema: idempotencyKeySchema,
      },
    ],
    responses: {
      201: { description: 'Stored: a new memory.', schema: storeResultSchema, headers: { 'Idempotent-Replayed': 'true on a replay.' } },
      200: {
        description: 'A duplicate: the live memory that already holds this text; nothing was stored. Or, with key: the memory under the key, replaced.',
        schema: storeResultSchema,
        headers: { 'Memory-Duplicate': 'true.', 'Idempotent-Replayed': 'true on a replay.' },
      },
    },
    errors: [...COMMON_ERRORS, ...BODY_ERRORS, 403, 409],
  },
  ...twoForms(
    { method: 'get', path: '/v1/memories', summary: "List a user's memories, newest first, with filters" },
    { path: '/v1/memories/list', summary: 'List (body form): the same input as GET /v1/memories, as JSON' },
    listInputSchema,
    { description: 'One page.', schema: listResultSchema },
  ),
  ...twoForms(
    { method: 'delete', path: '/v1/memories', summary: "Delete a user's memories: all, or one app's, or those the filters let through" },
    { path: '/v1/memories/delete-all', summary: 'Delete a user\u2019s memories (body form): the same input as DELETE /v1/memories, as JSON' },
    forgetAllInputSchema,
    { description: 'How many memories were deleted.', schema: deleteResultSchema },
  ),
  ...twoForms(
    {
      method: 'get',
      path: '/v1/memories/recall',
      summary: 'Recall the memories that answer a query, best first',
      description: 'The context string dates each line with the memory\u2019s updatedAt (UTC): "- [YYYY-MM-DD] <text>".',
    },
    { path: '/v1/memories/recall', summary: 'Recall (body form), for long queries' },
    recallInputSchema,
    { description: 'The scored items and the context string.', schema: recallResultSchema },
  ),
  {
    method: 'post',
    path: '/v1/memories/batch-delete',
    summary: 'Delete several memories by id, all or nothing',
    body: forgetManyInputSchema,
    responses: { 200: { description: 'How many of them were deleted (unknown or invisible ids are skipped).', schema: deleteResultSchema } },
    errors: [...COMMON_ERRORS, ...BODY_ERRORS],
  },
  {
    method: 'get',
    path: '/v1/users',
    summary: 'The users with memories in the apps the key can see, with counts and newest memory date',
    query: listUsersInputSchema,
    responses: { 200: { description: 'One page of users.', schema: listUsersResultSchema } },
    errors: [...COMMON_ERRORS, 403],
  },
  {
    method: 'get',
    path: '/v1/memories/by-id/{id}',
    summary: 'Read one memory',
    pathParams: { id: memoryIdParam },
    responses: { 200: { description: 'The memory.', schema: memorySchema } },
    errors: [...COMMON_ERRORS, 404],
  },
  {
    method: 'get',
    path: '/v1/memories/{userIdOrMemoryId}',
    summary: "List a user's memories (path form of GET /v1/memories?userId=)",
    description: 'Here the path segment is a user id (percent-encoded). A memory is read at /v1/memories/by-id/{id}.',
    pathParams: { userIdOrMemoryId: { schema: userIdSchema, description: 'The user id whose memories to list.' } },
    query: listInputSchema,
    omitQuery: ['userId'],
    responses: { 200: { description: 'One page.', schema: listResultSchema } },
    errors: [...COMMON_ERRORS, 403],
  },
  {
    method: 'patch',
    path: '/v1/memories/{userIdOrMemoryId}',
    summary: 'Update a memory: text (re-embedded), metadata (replaced) and/or expiry',
    description:
      'Keeps the id and createdAt, sets updatedAt. A text that another live memory of the same user and app ' +
      'holds is refused with 409 duplicate_memory.',
    pathParams: { userIdOrMemoryId: memoryIdParam },
    body: updateInputSchema,
    responses: { 200: { description: 'The memory as it now is.', schema: memorySchema } },
    errors: [...COMMON_ERRORS, ...BODY_ERRORS, 404, 409],
  },
  {
    method: 'delete',
    path: '/v1/memories/{userIdOrMemoryId}',
    summary: 'Delete one memory (idempotent: 0 when unknown or not visible)',
    pathParams: { userIdOrMemoryId: memoryIdParam },
    responses: { 200: { description: 'deleted: 1, or 0.', schema: deleteResultSchema } },
    errors: COMMON_ERRORS,
  },
  ...KEY_OPERATIONS,
];

/** MCP's streamable HTTP endpoint: JSON-RPC, documented by the MCP specification rather than here. */
const MCP_PATH = {
  post: {
    summary: 'MCP streamable HTTP: JSON-RPC messages (initialize, tools/list, tools/call)',
    description:
      'The Model Context Protocol endpoint, behind the same keys and rate limit as /v1. Two ways to authenticate: an ' +
      'API key, or (serve --oauth) an OAuth access token; without either the 401 carries ' +
      'WWW-Authenticate: Bearer resource_metadata=".../.well-known/oauth-protected-resource/mcp". A tools/call beyond ' +
      'the token\'s scopes (store_memory, update_memory, forget_memory need memory:write) is 403 insufficient_scope. ' +
      'GET and DELETE answer 405.',
    requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
    responses: {
      200: { description: 'A JSON-RPC answer (JSON or an event stream).', content: { 'application/json': { schema: { type: 'object' } } } },
      401: { $ref: '#/components/responses/Error401' },
      403: { $ref: '#/components/responses/Error403' },
      429: { $ref: '#/components/responses/Error429' },
    },
  },
};

function queryParameters(op: Operation): unknown[] {
  if (!op.query) return [];
  const schema = schemaOf(op.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {})
    .filter(([name]) => !(op.omitQuery ?? []).includes(name))
    .map(([name, property]) => {
      const { description, ...rest } = property;
      const base = { name, in: 'query', required: (schema.required ?? []).includes(name), description };
      // An object travels as JSON text in one parameter: metadata={"topic":"music"}.
      return rest.type === 'object' ? { ...base, content: { 'application/json': { schema: rest } } } : { ...base, schema: rest };
    });
}

function operation(op: Operation): JsonSchema {
  const parameters = [
    ...Object.entries(op.pathParams ?? {}).map(([name, p]) => ({
      name,
      in: 'path',
      required: true,
      description: p.description,
      schema: schemaOf(p.schema, 'input'),
    })),
    ...queryParameters(op),
    ...(op.headers ?? []).map((h) => ({ name: h.name, in: 'header', required: false, description: h.description, schema: schemaOf(h.schema, 'input') })),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(op.responses)) {
    const schema = r.schema instanceof z.ZodType ? schemaOf(r.schema, 'output') : r.schema;
    responses[status] = {
      description: r.description,
      ...(r.headers
        ? { headers: Object.fromEntries(Object.entries(r.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }
        : {}),
      ...(schema === undefined ? {} : { content: { [r.contentType ?? 'application/json']: { schema } } }),
    };
  }
  for (const status of [...new Set(op.errors)].sort()) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  return {
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    ...(op.open ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(op.body, 'input') } } } } : {}),
    responses,
  };
}

function errorResponses(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const status of Object.keys(ERROR_DESCRIPTIONS).map(Number)) {
    const headers: Record<string, unknown> = {};
    if (status === 401) {
      headers['WWW-Authenticate'] = { description: 'Bearer; with --oauth also resource_metadata and scope (RFC 9728)', schema: { type: 'string' } };
    }
    if (status === 403) headers['WWW-Authenticate'] = { description: 'With --oauth, for a token lacking a scope: Bearer error="insufficient_scope", scope=...', schema: { type: 'string' } };
    if (status === 429 || status === 503) headers['Retry-After'] = { description: 'Seconds to wait.', schema: { type: 'string' } };
    out[`Error${status}`] = {
      description: `${ERROR_DESCRIPTIONS[status]} (codes: ${(CODES_BY_STATUS[status] ?? []).join(', ')})`,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return out;
}

/** The HTTP routes the document describes, as "METHOD /path" with {params}: what the route check compares. */
export function documentedRoutes(): string[] {
  return [...OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path}`), 'POST /mcp'];
}

let cached: JsonSchema | undefined;

/** The document (built once: it depends on nothing but the schemas). */
export function openApiDocument(version: string): JsonSchema {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    paths[op.path] = { ...paths[op.path], [op.method]: operation(op) };
  }
  paths['/mcp'] = MCP_PATH;
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'agent-memory',
      version,
      description:
        'Memory for AI agents: store, list, recall, update and forget text memories per user. Every route under ' +
        `/v1 needs "Authorization: Bearer <API key>", or, on a server run with --oauth, an OAuth 2.1 access token ` +
        '(authorization server metadata at /.well-known/oauth-authorization-server; the token acts as the API key ' +
        'that approved it, within its scopes: memory:read for reads, memory:write for changes, else 403 ' +
        `insufficient_scope). Bodies are JSON (at most ${LIMITS.bodyMaxBytes} bytes). ` +
        'Every error is {"error": {"code", "message", "details"?}}.',
    },
    security: [{ bearer: [] }, { oauth: ['memory:read', 'memory:write'] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key: amk_ and 40 letters or digits.' },
        oauth: {
          type: 'oauth2',
          description:
            'Only with `serve --oauth --public-url URL`: authorization code with PKCE (S256), dynamic client ' +
            'registration at /oauth/register, the resource parameter (RFC 8707) naming this server. Tokens are sent ' +
            'as "Authorization: Bearer amat_...". Protected resource metadata: /.well-known/oauth-protected-resource.',
          flows: {
            authorizationCode: {
              authorizationUrl: '/oauth/authorize',
              tokenUrl: '/oauth/token',
              refreshUrl: '/oauth/token',
              scopes: {
                'memory:read': 'Recall, list and get memories (GET routes, POST /v1/memories/recall and /list).',
                'memory:write': 'Store, update and forget memories (includes reading).',
              },
            },
          },
        },
      },
      schemas: { Error: ERROR_BODY },
      responses: errorResponses(),
    },
  };
  return cached;
}
