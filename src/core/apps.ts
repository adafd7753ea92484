import { MemoryError } from './errors.js';
import { isUuid } from './ids.js';
import type { AppStore } from './store.js';
import type { App } from './types.js';

/**
 * The app an app reference names, for a write: a UUID must name an existing app (a typo must not create one); a slug
 * names its app, created on first use. The service's stores, key creation and import all resolve apps here.
 */
export async function findOrCreateApp(store: Pick<AppStore, 'findApp' | 'ensureApp'>, ref: string): Promise<App> {
  if (!isUuid(ref)) return store.ensureApp(ref);
  const app = await store.findApp(ref);
  if (!app) {
    throw new MemoryError('validation_error', `No app has the UUID "${ref}".`, {
      details: [{ path: 'appId', message: 'No app has this UUID; name a new app by slug to create it.' }],
    });
  }
  return app;
}
