import { createApiKey } from '../../core/key-admin.js';
import type { RuntimeConfig } from '../../runtime/config.js';
import type { Output } from '../../runtime/output.js';
import { printable, table } from '../output.js';
import { openStoreOnly } from '../../runtime/runtime.js';

export async function keysCreate(config: RuntimeConfig, options: { app?: string; label?: string }, out: Output): Promise<number> {
  const store = await openStoreOnly(config);
  try {
    const { key, record } = await createApiKey(store, { app: options.app, label: options.label });
    out.print(key);
    out.notice(
      `Created key ${record.id}${record.app ? ` bound to app "${record.app.slug}"` : ' (unbound: sees every app)'}. ` +
        'The key above is shown only once.',
    );
    return 0;
  } finally {
    await store.close();
  }
}

export async function keysList(config: RuntimeConfig, out: Output): Promise<number> {
  const store = await openStoreOnly(config);
  try {
    const keys = await store.listKeys();
    if (keys.length === 0) {
      out.notice('No keys. Create one with `agent-memory keys create`.');
      return 0;
    }
    const rows = keys.map((k) => [k.id, `${k.prefix}…`, k.app?.slug ?? '(all apps)', printable(k.label ?? ''), k.createdAt, k.revokedAt ?? 'active']);
    out.print(table([['ID', 'KEY', 'APP', 'LABEL', 'CREATED', 'REVOKED'], ...rows]));
    return 0;
  } finally {
    await store.close();
  }
}

export async function keysRevoke(config: RuntimeConfig, id: string, out: Output): Promise<number> {
  const store = await openStoreOnly(config);
  try {
    const earlier = (await store.listKeys()).find((k) => k.id === id)?.revokedAt;
    if (earlier !== undefined && earlier !== null) {
      out.notice(`${printable(id)} was already revoked at ${earlier}; nothing changed.`);
      return 1;
    }
    if (!(await store.revokeKey(id, new Date().toISOString()))) {
      out.notice(`No key has the id "${printable(id)}". See \`agent-memory keys list\`.`);
      return 1;
    }
    out.notice(`Revoked ${id}: it is refused from now on.`);
    return 0;
  } finally {
    await store.close();
  }
}
