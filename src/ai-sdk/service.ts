import type { MemoryService } from '../core/service.js';
import { LOCAL_CALLER, type Caller } from '../core/types.js';
import type { MemoryBackend } from './scope.js';

/**
 * The tools and the middleware over an in-process `MemoryService` (an agent that embeds agent-memory as a library,
 * `import { MemoryService } from 'agent-memory'`) instead of a server: the same calls, with no HTTP in between. The
 * service checks every input with the same schemas the server does, and its errors (a `MemoryError`, with the
 * contract's codes) reach the model as the client's do. `caller` defaults to the local caller: every app, no key.
 */
export function serviceBackend(service: MemoryService, caller: Caller = LOCAL_CALLER): MemoryBackend {
  return {
    store: async (input) => (await service.store(caller, input)).result,
    recall: async (input) => (await service.recall(caller, input)).context,
    recallRaw: async (input) => (await service.recall(caller, input)).memories,
    list: (input) => service.list(caller, input),
    get: (id) => service.get(caller, id),
    update: (id, patch) => service.update(caller, id, patch),
    forget: (id) => service.forget(caller, id),
    forgetMany: (ids) => service.forgetMany(caller, { ids }),
  };
}
