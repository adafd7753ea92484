import { Router } from 'express';
import type { MemoryService } from '../../core/service.js';
import { callerOf } from '../locals.js';
import { jsonBody } from '../middleware/json-body.js';
import { queryInput } from '../query.js';

const LIST_NUMBERS = ['page', 'pageSize'] as const;
const RECALL_NUMBERS = ['limit', 'minScore'] as const;
const RECALL_BOOLEANS = ['explain'] as const;

/**
 * The /v1/memories routes: each one hands the request's input to the service and writes its answer. Literal
 * paths (`recall`, `batch-delete`) are declared before `/:userId`, so they are never taken for a user id.
 */
export function memoriesRouter(service: MemoryService): Router {
  const router = Router();
  const body = jsonBody();

  router.post('/', body, async (req, res) => {
    const { result, replayed } = await service.store(callerOf(res), req.body, {
      idempotencyKey: req.get('Idempotency-Key'),
    });
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    // A duplicate created nothing: 200, with the existing memory (a replay answers the status of the first answer);
    // nor did a store under a key that replaced the memory holding it.
    if (result.duplicate) res.setHeader('Memory-Duplicate', 'true');
    res.status(result.duplicate || result.updated === true ? 200 : 201).json(result);
  });

  router.get('/', async (req, res) => {
    res.json(await service.list(callerOf(res), queryInput(req, LIST_NUMBERS)));
  });

  // The body forms of list and delete-all, for filters that are awkward in a URL.
  router.post('/list', body, async (req, res) => {
    res.json(await service.list(callerOf(res), req.body));
  });

  router.delete('/', async (req, res) => {
    res.json(await service.forgetAll(callerOf(res), queryInput(req, [])));
  });

  router.post('/delete-all', body, async (req, res) => {
    res.json(await service.forgetAll(callerOf(res), req.body));
  });

  // Under by-id/, never /:userId: every user id stays listable, even one that looks like a memory id.
  router.get('/by-id/:id', async (req, res) => {
    res.json(await service.get(callerOf(res), req.params.id));
  });

  // A caller's own key: PUT creates (201) or replaces (200, same id) the memory holding it in that user and app.
  router.put('/by-key/:key', body, async (req, res) => {
    const { memory, created } = await service.putByKey(callerOf(res), req.params.key, req.body);
    res.status(created ? 201 : 200).json(memory);
  });

  router.get('/by-key/:key', async (req, res) => {
    res.json(await service.getByKey(callerOf(res), { ...queryInput(req, []), key: req.params.key }));
  });

  router.delete('/by-key/:key', async (req, res) => {
    res.json(await service.forgetByKey(callerOf(res), { ...queryInput(req, []), key: req.params.key }));
  });

  router.patch('/:id', body, async (req, res) => {
    res.json(await service.update(callerOf(res), req.params.id, req.body));
  });

  router.get('/recall', async (req, res) => {
    res.json(await service.recall(callerOf(res), queryInput(req, RECALL_NUMBERS, RECALL_BOOLEANS)));
  });

  router.post('/recall', body, async (req, res) => {
    res.json(await service.recall(callerOf(res), req.body));
  });

  router.post('/batch-delete', body, async (req, res) => {
    res.json(await service.forgetMany(callerOf(res), req.body));
  });

  router.get('/:userId', async (req, res) => {
    res.json(await service.list(callerOf(res), { ...queryInput(req, LIST_NUMBERS), userId: req.params.userId }));
  });

  router.delete('/:id', async (req, res) => {
    res.json(await service.forget(callerOf(res), req.params.id));
  });

  return router;
}
