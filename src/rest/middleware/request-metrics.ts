import type { Request, RequestHandler, Response } from 'express';

/** Where `mountPoint()` leaves a router's mount path for the metrics. */
interface MetricsLocals {
  mount?: string;
}

/**
 * Times every request and reports it with its route *pattern* (`/v1/memories/by-id/:id`), never the raw path, whose
 * ids would make a label per memory. A request that no route took (an unknown path, or one refused before routing:
 * a bad key, the rate limit) is `unmatched`.
 */
export function requestMetrics(observe: (method: string, route: string, status: number, seconds: number) => void): RequestHandler {
  return function requestMetricsMiddleware(req, res, next) {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      observe(req.method, routeOf(req, res), res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

/**
 * Put before a router mounted under a path: records the mount path, which `req.baseUrl` no longer holds once an error
 * has taken the request back out of the router (`req.route`, the matched route, stays).
 */
export function mountPoint(): RequestHandler {
  return function mountPointMiddleware(req, res, next) {
    (res.locals as MetricsLocals).mount = req.baseUrl;
    next();
  };
}

function routeOf(req: Request, res: Response): string {
  const pattern = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof pattern !== 'string') return 'unmatched';
  const mount = (res.locals as MetricsLocals).mount ?? '';
  return mount !== '' && pattern === '/' ? mount : `${mount}${pattern}`;
}
