import { openTestPglite } from '../support/db.ts';
import { findingsSuite } from './findings-suite.ts';

findingsSuite('PGlite', async () => {
  const db = await openTestPglite();
  return { db, close: () => db.close() };
});
