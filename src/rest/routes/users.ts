import { Router } from 'express';
import type { MemoryService } from '../../core/service.js';
import { callerOf } from '../locals.js';
import { queryInput } from '../query.js';

const PAGE_NUMBERS = ['page', 'pageSize'] as const;

/** GET /v1/users: the users with memories in the apps the key can see, paged like a memory list. */
export function usersRouter(service: MemoryService): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    res.json(await service.listUsers(callerOf(res), queryInput(req, PAGE_NUMBERS)));
  });
  return router;
}
