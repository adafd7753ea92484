import { createRequire } from 'node:module';
import { Router } from 'express';
import { openApiDocument } from '../openapi.js';

/** The package's own version: ../../../package.json from both src/rest/routes and dist/rest/routes. */
function packageVersion(): string {
  const pkg = createRequire(import.meta.url)('../../../package.json') as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}

/** `GET /openapi.json`, without a key: the API's OpenAPI 3.1 document, generated from the request schemas. */
export function openApiRouter(): Router {
  const router = Router();
  const document = openApiDocument(packageVersion());
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  return router;
}
