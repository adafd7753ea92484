import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { CONSOLE_CSP, consoleRouter } from '../../src/rest/console.js';
import { errorHandler, notFound } from '../../src/rest/middleware/errors.js';
import { startTestServer, type ErrorJson, type TestServer } from '../helpers/server.js';

/** The console's files over HTTP (the page itself is tested in Chromium: test/console/). Needs `npm run build`. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

const get = (path: string) => fetch(`${server.url}${path}`, { redirect: 'manual' });

describe('GET /console', () => {
  it('redirects /console to /console/, so that the page finds its modules', async () => {
    const res = await get('/console?x=1');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/console/');
  });

  it('serves the page without a key, under the strict policy and no caching of stale scripts', async () => {
    const res = await get('/console/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    expect(html).toContain('<script type="module" src="./main.js"></script>');
    // Nothing inline: every script and style is a file of the console's own.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\bstyle=/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('serves the modules and the stylesheet with their types', async () => {
    const js = await get('/console/main.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(await js.text()).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    expect((await get('/console/console.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('answers an unknown file, a dot file or a path outside the folder with the JSON 404', async () => {
    for (const path of ['/console/nope.js', '/console/.env', '/console/..%2f..%2fpackage.json', '/console/../package.json']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as ErrorJson).error.code).toBe('not_found');
    }
    expect((await fetch(`${server.url}/console/`, { method: 'POST' })).status).toBe(404);
  });
});

describe('a console that was not built', () => {
  it('answers 503 unavailable with what to run, not a blank page', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-memory-noconsole-'));
    const app = express();
    app.use('/console', consoleRouter(dir));
    app.use(notFound());
    app.use(errorHandler(silentLogger));
    const listener = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listener.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(listener.address() as AddressInfo).port}/console/`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as ErrorJson).error).toEqual({
        code: 'unavailable',
        message: 'The console is not built: run `npm run build` in the agent-memory folder.',
      });
    } finally {
      listener.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
