import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';
import { storeContract } from '../store-contract.js';

// The backend contract suite that PostgreSQL runs too: both stores must behave the same.
storeContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-contract-'));
  const store = SqliteStore.open({ path: join(dir, 'm.db') });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
