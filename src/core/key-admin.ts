import { generateApiKey } from './keys.js';
import { MemoryError } from './errors.js';
import type { AppStore, KeyStore } from './store.js';
import type { ApiKeyRecord } from './types.js';
import { appIdSchema } from './schemas.js';
import { findOrCreateApp } from './apps.js';

/** Issuing and revoking keys: the CLI's `keys` commands and the first-run key use this. */
export async function createApiKey(
  store: AppStore & KeyStore,
  options: { app?: string | undefined; label?: string | undefined } = {},
): Promise<{ key: string; record: ApiKeyRecord }> {
  let appId: string | null = null;
  if (options.app !== undefined) {
    if (!appIdSchema.safeParse(options.app).success) {
      throw new MemoryError('validation_error', `"${options.app}" is not an app slug or UUID.`);
    }
    appId = (await findOrCreateApp(store, options.app)).id;
  }
  const fresh = generateApiKey();
  const record = await store.createKey({
    id: fresh.id,
    prefix: fresh.prefix,
    hash: fresh.hash,
    appId,
    label: options.label ?? null,
    createdAt: new Date().toISOString(),
    revokedAt: null,
  });
  return { key: fresh.key, record };
}
