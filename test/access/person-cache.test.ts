import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/access/index.ts';
import { directoryChanged, mapAccount, replaceGroupMembers, resolveView, upsertAccounts } from '../../src/identity/index.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { openTestPglite } from '../support/db.ts';

const T = 'default';
const ada: Principal = { kind: 'api_key', id: 'k-ada', tenantId: T, userId: 'ada', email: 'ada@acme.test', permissions: new Set(['query']) };
const principals = async (db: DatabaseExecutor) => {
  const v = (await resolveView({ db }, ada)).viewer;
  assert.ok('principals' in v);
  return v.principals;
};

/**
 * A person's view is cached per process (identity/person-cache.ts), so these check correctness, not speed: every
 * directory write through the identity module is seen by the very next request, and two databases never share it.
 */
describe("a person's cached view", () => {
  let db: DatabaseExecutor;
  let other: DatabaseExecutor;
  before(async () => {
    db = await openTestPglite();
    other = await openTestPglite();
  });
  after(async () => {
    await db.close();
    await other.close();
  });

  it('a membership added or removed (a sync, a manual group) is in the next view', async () => {
    assert.ok(!(await principals(db)).includes('group:slack:C1'));
    await replaceGroupMembers(db, T, 'manual', [{ group_id: 'slack:C1', members: ['ada@acme.test'] }]);
    assert.ok((await principals(db)).includes('group:slack:C1'));
    await replaceGroupMembers(db, T, 'manual', [{ group_id: 'slack:C1', members: [] }]);
    assert.ok(!(await principals(db)).includes('group:slack:C1'), 'the removed membership is gone at once');
  });

  it('a vendor account mapped by hand is in the next view, and its groups with it', async () => {
    await upsertAccounts(db, T, 'manual', [{ account_id: 'github:42', email: null }]);
    await replaceGroupMembers(db, T, 'manual', [{ group_id: 'github:org/repo', members: ['github:42'] }]);
    assert.ok(!(await principals(db)).includes('user:github:42'));
    await mapAccount(db, T, 'github:42', 'ada@acme.test');
    const p = await principals(db);
    assert.ok(p.includes('user:github:42') && p.includes('group:github:org/repo'));
    await mapAccount(db, T, 'github:42', null);
    assert.ok(!(await principals(db)).includes('group:github:org/repo'));
  });

  it('is per database, and a write by other means is seen after directoryChanged (or the short TTL)', async () => {
    await replaceGroupMembers(db, T, 'manual', [{ group_id: 'g-db', members: ['ada@acme.test'] }]);
    assert.ok((await principals(db)).includes('group:g-db'));
    assert.ok(!(await principals(other)).includes('group:g-db'), 'another database never answers from this cache');
    await db.query(`DELETE FROM identity_memberships WHERE tenant_id = $1 AND group_id = 'g-db'`, [T]);
    directoryChanged(T);
    assert.ok(!(await principals(db)).includes('group:g-db'));
  });
});
