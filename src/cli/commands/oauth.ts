import type { RuntimeConfig } from '../../runtime/config.js';
import type { Output } from '../../runtime/output.js';
import { openStoreOnly } from '../../runtime/runtime.js';
import { printable, table } from '../output.js';

/** `agent-memory oauth clients`: the clients that registered themselves (serve --oauth), and whether revoked. */
export async function oauthClients(config: RuntimeConfig, out: Output): Promise<number> {
  const store = await openStoreOnly(config);
  try {
    const clients = await store.listOAuthClients();
    if (clients.length === 0) {
      out.notice('No OAuth client has registered (they do so themselves, with `serve --oauth`).');
      return 0;
    }
    const rows = clients.map((c) => [c.id, printable(c.name ?? ''), printable(c.redirectUris.join(' ')), c.createdAt, c.revokedAt ?? 'active']);
    out.print(table([['ID', 'NAME', 'REDIRECT URIS', 'CREATED', 'REVOKED'], ...rows]));
    return 0;
  } finally {
    await store.close();
  }
}

/** `agent-memory oauth revoke CLIENT_ID`: every token of the client is refused from the next request on, on every node. */
export async function oauthRevoke(config: RuntimeConfig, id: string, out: Output): Promise<number> {
  const store = await openStoreOnly(config);
  try {
    if (!(await store.revokeOAuthClient(id, new Date().toISOString()))) {
      out.notice(`No OAuth client has the id "${printable(id)}". See \`agent-memory oauth clients\`.`);
      return 1;
    }
    out.notice(`Revoked ${id}: its tokens are refused from now on, and it cannot authorize again.`);
    return 0;
  } finally {
    await store.close();
  }
}
