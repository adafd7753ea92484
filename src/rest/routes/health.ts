import { Router } from 'express';
import type { MemoryService } from '../../core/service.js';

/** `GET /healthz`, without a key: 200 `{"status":"ok"}` once the store and the model are ready, else 503. */
export function healthRouter(service: MemoryService): Router {
  const router = Router();
  router.get('/healthz', async (_req, res) => {
    const report = await service.health();
    if (report.status === 'ok') {
      res.json({ status: 'ok' });
      return;
    }
    res.status(503).json(report);
  });
  return router;
}
