import { openTestPostgres } from '../support/db.ts';
import { documentsStorageSuite } from './store-suite.ts';

// The machine's PostgreSQL has no pgvector: vectors are real[] and scored by an exact SQL dot product.
documentsStorageSuite('PostgreSQL (no pgvector)', async () => {
  const t = await openTestPostgres();
  return { db: t.db, close: () => t.drop() };
});
