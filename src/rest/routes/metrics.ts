import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import { MemoryError } from '../../core/errors.js';
import type { RateLimiter } from '../../core/rate-limit.js';
import { applyDecision } from '../middleware/rate-limit.js';

/** The metrics as REST serves them; the runtime makes them (src/runtime/metrics.ts) when a token is configured. */
export interface MetricsEndpoint {
  /** The bearer token a scrape must present (MEMORY_METRICS_TOKEN / --metrics-token). */
  token: string;
  render(): Promise<{ contentType: string; body: string }>;
  httpRequest(method: string, route: string, status: number, seconds: number): void;
}

/** Compares digests, so that neither the token's content nor its length shows in the time taken. */
function sameToken(presented: string, token: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(token));
}

/**
 * GET /metrics, the Prometheus text exposition, to `Authorization: Bearer <metrics token>` only: anything else is the
 * contract's 401 `auth_error` (WWW-Authenticate: Bearer), and a failed attempt is rate limited per address like a
 * bad API key. Mounted only when a token is configured; without one /metrics is the ordinary 404 of an unknown route.
 */
export function metricsRouter(endpoint: MetricsEndpoint, limiter: RateLimiter): Router {
  const router = Router();
  router.get('/metrics', async (req, res) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer (\S+)$/i.exec(header);
    if (match?.[1] === undefined || !sameToken(match[1], endpoint.token)) {
      applyDecision(res, await limiter.take(`address:${req.ip ?? 'unknown'}`));
      throw new MemoryError('auth_error', 'GET /metrics needs "Authorization: Bearer <metrics token>" (MEMORY_METRICS_TOKEN).');
    }
    const { contentType, body } = await endpoint.render();
    res.setHeader('Cache-Control', 'no-store');
    res.type(contentType).send(body);
  });
  return router;
}
