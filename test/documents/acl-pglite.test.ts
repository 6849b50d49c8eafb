import { openTestPglite } from '../support/db.ts';
import { aclStorageSuite } from './acl-suite.ts';

aclStorageSuite('PGlite (pgvector, HNSW)', async () => {
  const db = await openTestPglite();
  return { db, close: () => db.close() };
});
