import { openTestPostgres } from '../support/db.ts';
import { usageStorageSuite } from './storage-suite.ts';

usageStorageSuite('PostgreSQL', async () => {
  const t = await openTestPostgres();
  return { db: t.db, close: () => t.drop() };
});
