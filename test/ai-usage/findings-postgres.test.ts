import { openTestPostgres } from '../support/db.ts';
import { findingsSuite } from './findings-suite.ts';

findingsSuite('PostgreSQL', async () => {
  const t = await openTestPostgres();
  return { db: t.db, close: () => t.drop() };
});
