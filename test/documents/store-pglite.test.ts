import { openTestPglite } from '../support/db.ts';
import { documentsStorageSuite } from './store-suite.ts';

documentsStorageSuite('PGlite (pgvector, HNSW)', async () => {
  const db = await openTestPglite();
  return { db, close: () => db.close() };
});
