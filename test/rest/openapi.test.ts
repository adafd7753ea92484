/**
 * GET /openapi.json: served without a key, valid OpenAPI 3.1 by a maintained validator, generated from the core
 * schemas, and describing exactly the routes the app serves (both ways).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { z } from 'zod';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/core/auth.js';
import { silentLogger } from '../../src/core/logger.js';
import { memorySchema, putByKeyInputSchema, storeInputSchema } from '../../src/core/schemas.js';
import { createMcpHttpHandler } from '../../src/mcp/http.js';
import { createApp } from '../../src/rest/app.js';
import { documentedRoutes } from '../../src/rest/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, unknown>; security?: unknown[] }>>;
}

let server: TestServer;
let doc: Document;

beforeAll(async () => {
  server = await startTestServer({}, { mcpHandler: (service) => createMcpHttpHandler({ service }) });
  // A console "build" of one page, so that the app mounts the console's routes.
  writeFileSync(join(server.dir, 'index.html'), '<!doctype html><title>console</title>');
  const res = await fetch(`${server.url}/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as Document;
});
afterAll(async () => {
  await server.stop();
});

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
  rawPath?: unknown;
}

/** Every route the express app serves, as "METHOD /path" with `{param}`, found by walking its routers. */
function servedRoutes(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const path = `${prefix}${layer.route.path === '/' ? '' : layer.route.path}`.replace(/:(\w+)/g, '{$1}') || '/';
        const methods = Object.keys(layer.route.methods);
        // app.all() registers every method node knows (ACL, BIND, ...): one route for all of them.
        if (methods.length > 10) out.push(`ALL ${path}`);
        else for (const method of methods) out.push(`${method.toUpperCase()} ${path}`);
      } else if (layer.handle.stack) {
        walk(layer.handle.stack, `${prefix}${typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : ''}`);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return out;
}

/** Path parameters are compared by position, not name (express names them per route, OpenAPI per path). */
const shape = (route: string) => route.replace(/\{[^}]+\}/g, '{}');

describe('GET /openapi.json', () => {
  it('is served without a key and is valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes exactly the routes the app serves, and the other way round', () => {
    const app = createApp({
      service: server.runtime.service,
      authenticator: new Authenticator({ store: server.runtime.store, extraKeys: [] }),
      rateLimiter: server.runtime.rateLimiter(0),
      logger: silentLogger,
      mcp: createMcpHttpHandler({ service: server.runtime.service }),
      consoleDir: server.dir,
    });
    const served = servedRoutes(app).map(shape).map((r) => (r === 'ALL /mcp' ? 'POST /mcp' : r));
    const documented = documentedRoutes().map(shape);
    expect([...new Set(served)].sort()).toEqual([...new Set(documented)].sort());
    const inDocument = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => shape(`${m.toUpperCase()} ${path}`)));
    expect(inDocument.sort()).toEqual([...new Set(documented)].sort());
  });

  it('answers every documented route on the live server (none is the unknown-route 404)', async () => {
    for (const route of documentedRoutes()) {
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace(/\{[^}]+\}/g, 'mem_AAAAAAAAAAAA');
      const res = await server.call(path, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { json: {} }) });
      const text = await res.text();
      expect(text, route).not.toContain('No route for');
    }
  });

  it('takes its request and response schemas from the core schemas, with every error and the key requirement', () => {
    const store = doc.paths['/v1/memories']?.post;
    expect(store?.requestBody?.content['application/json']?.schema).toEqual(
      (({ $schema: _s, ...rest }) => rest)(z.toJSONSchema(storeInputSchema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>),
    );
    expect(Object.keys(store?.responses ?? {}).sort()).toEqual(['200', '201', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
    const read = doc.paths['/v1/memories/by-id/{id}']?.get;
    const required = (read?.responses['200'] as { content: Record<string, { schema: { required: string[] } }> }).content['application/json']
      ?.schema.required;
    // Every field but the optional ones (key: only for a memory stored with one).
    const always = Object.entries(memorySchema.shape).filter(([, field]) => !field.safeParse(undefined).success);
    expect([...(required ?? [])].sort()).toEqual(always.map(([name]) => name).sort());
    expect(always.map(([name]) => name)).not.toContain('key');
    expect(Object.keys(read?.responses ?? {})).toContain('404');
    expect(doc.paths['/healthz']?.get?.security).toEqual([]);
    expect(doc.paths['/v1/memories']?.get?.security).toBeUndefined();
    const metadata = doc.paths['/v1/memories']?.get?.parameters?.find((p) => p.name === 'metadata');
    expect(metadata).toMatchObject({ in: 'query', content: { 'application/json': {} } });
  });

  it('documents the key routes: PUT answers 201 or 200 with the memory, GET and DELETE take userId and appId', () => {
    const item = doc.paths['/v1/memories/by-key/{key}'];
    expect(Object.keys(item ?? {}).sort()).toEqual(['delete', 'get', 'put']);
    expect(item?.put?.requestBody?.content['application/json']?.schema).toEqual(
      (({ $schema: _s, ...rest }) => rest)(z.toJSONSchema(putByKeyInputSchema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>),
    );
    expect(Object.keys(item?.put?.responses ?? {})).toEqual(expect.arrayContaining(['200', '201', '403', '422']));
    for (const method of ['get', 'delete'] as const) {
      expect(item?.[method]?.parameters?.map((p) => `${p.in}:${p.name}`).sort()).toEqual(['path:key', 'query:appId', 'query:userId']);
    }
    expect(Object.keys(item?.get?.responses ?? {})).toContain('404');
    const storeBody = doc.paths['/v1/memories']?.post?.requestBody?.content['application/json']?.schema as { properties: Record<string, unknown> };
    expect(storeBody.properties.key).toMatchObject({ type: 'string', maxLength: 256 });
  });
});
