import { Router } from 'express';
import type { MemoryService } from '../../core/service.js';

/**
 * `GET /healthz`, without a key: 200 `{"status":"ok"}` once the store and the model are ready, else 503. With
 * `calibration` beside it when the score map is not the built-in one ('pending' while the service fits it), and
 * `embeddingBacklog` while memories stored with the embedding endpoint down wait for their vector.
 */
export function healthRouter(service: MemoryService): Router {
  const router = Router();
  router.get('/healthz', async (_req, res) => {
    const report = await service.health();
    if (report.status === 'ok') {
      // The built-in calibration and no backlog are the usual case: the short answer stays as it was.
      res.json({
        status: 'ok',
        ...(report.calibration === undefined || report.calibration === 'builtin' ? {} : { calibration: report.calibration }),
        ...(report.embeddingBacklog === undefined ? {} : { embeddingBacklog: report.embeddingBacklog }),
      });
      return;
    }
    res.status(503).json(report);
  });
  return router;
}
