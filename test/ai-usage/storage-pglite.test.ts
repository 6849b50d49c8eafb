import { openTestPglite } from '../support/db.ts';
import { usageStorageSuite } from './storage-suite.ts';

usageStorageSuite('PGlite', async () => {
  const db = await openTestPglite();
  return { db, close: () => db.close() };
});
