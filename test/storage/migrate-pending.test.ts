import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type DatabaseExecutor, migrate, NewerDatabaseError, openPglite } from '../../src/platform/db/index.ts';
import { silentLog } from '../support/db.ts';

// A start with nothing pending lists migrations/ and runs one query; it reads no migration file (issue 29).
describe('migrations at start', () => {
  let dir: string;
  let db: DatabaseExecutor;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-migrations-'));
    await fs.writeFile(path.join(dir, '001_first.sql'), 'CREATE TABLE first_t (id int);');
    db = await openPglite('memory://');
  });
  after(async () => {
    await db.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('creates the bookkeeping table on a new database and applies what is pending', async () => {
    assert.deepEqual(await migrate(db, silentLog, dir), ['001_first']);
    await fs.writeFile(path.join(dir, '002_second.sql'), 'CREATE TABLE second_t (id int);');
    assert.deepEqual(await migrate(db, silentLog, dir), ['002_second']);
    assert.equal((await db.query('SELECT * FROM second_t')).rows.length, 0);
  });

  it('reads no file of an applied migration', async () => {
    // Were 001 read, this (a folder where its file was) would fail the start with EISDIR.
    await fs.rm(path.join(dir, '001_first.sql'));
    await fs.mkdir(path.join(dir, '001_first.sql'));
    assert.deepEqual(await migrate(db, silentLog, dir), []);
  });

  it('still refuses a database migrated by a newer Atrium', async () => {
    await db.query("INSERT INTO schema_migrations (name) VALUES ('900_from_the_future')");
    await assert.rejects(migrate(db, silentLog, dir), NewerDatabaseError);
  });
});
