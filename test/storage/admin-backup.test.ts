import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';

describe('GET /v1/admin/backup', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("gives an admin of tenant 'default' a tar of the embedded data folder, audited", async () => {
    const admin = await t.keyWith(['admin']);
    const res = await t.app.inject({ method: 'GET', url: '/v1/admin/backup', headers: { authorization: admin.authorization } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/x-tar');
    assert.equal(res.rawPayload.subarray(257, 262).toString('latin1'), 'ustar');
    const audit = await t.db.query<{ actor_id: string }>("SELECT actor_id FROM audit_events WHERE action = 'storage.backup'");
    assert.deepEqual(audit.rows.map((r) => r.actor_id), [admin.id]);
  });

  it("refuses admins of other tenants (a backup holds every tenant) and non-admins, in the documented error shape", async () => {
    const other = await t.keyWith(['admin'], 'acme');
    const res = await t.app.inject({ method: 'GET', url: '/v1/admin/backup', headers: { authorization: other.authorization } });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'permission_denied');
    assert.match(res.json().error.message, /only an admin credential of tenant 'default'/);
    const reader = await t.keyWith(['query']);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/admin/backup', headers: { authorization: reader.authorization } })).statusCode, 403);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/admin/backup' })).statusCode, 401);
  });
});
