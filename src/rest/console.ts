import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type RequestHandler, type Response } from 'express';
import { MemoryError } from '../core/errors.js';

/**
 * Where the built console lives: dist/console at the package root. This file is src/rest/console.ts in a checkout
 * and dist/rest/console.js in the package: both are two levels below the root.
 */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../dist/console/', import.meta.url));

/**
 * The console is a page of our own code only: no inline script or style (so injected markup cannot run), no other
 * host, no framing (clickjacking on the delete buttons), and Trusted Types with no policy, so that the browser
 * itself refuses any HTML string assigned to innerHTML and its kin.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** The console's headers with `csp` as the policy: the console itself, and the OAuth consent page (rest/oauth). */
export function setPageHeaders(res: Response, csp: string = CONSOLE_CSP): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  // Revalidated on every load, so that an upgraded server never runs with last version's scripts.
  res.setHeader('Cache-Control', 'no-cache');
}

function securityHeaders(): RequestHandler {
  return function consoleHeaders(_req, res, next) {
    setPageHeaders(res);
    next();
  };
}

/**
 * The web console's static files, mounted at /console without a key: the page holds no data, and talks to /v1
 * with the key the person pastes in, so it can do no more than that key.
 */
export function consoleRouter(dir: string = DEFAULT_CONSOLE_DIR): Router {
  const router = Router();
  router.use(securityHeaders());
  if (!existsSync(join(dir, 'index.html'))) {
    router.use((_req, _res, next) => {
      next(new MemoryError('unavailable', 'The console is not built: run `npm run build` in the agent-memory folder.'));
    });
    return router;
  }
  // "/console" itself: the page's relative URLs (./main.js) need the trailing slash.
  router.get('/', (req, res, next) => {
    if (req.originalUrl.split('?')[0] === req.baseUrl) res.redirect(301, `${req.baseUrl}/`);
    else next();
  });
  router.use(express.static(dir, { index: 'index.html', dotfiles: 'ignore', redirect: false, fallthrough: true, cacheControl: false }));
  return router;
}
