import { openTestPostgres } from '../support/db.ts';
import { aclStorageSuite } from './acl-suite.ts';

// The machine's PostgreSQL has no pgvector: the vector list is the exact SQL dot product, filtered the same way.
aclStorageSuite('PostgreSQL (no pgvector)', async () => {
  const t = await openTestPostgres();
  return { db: t.db, close: () => t.drop() };
});
