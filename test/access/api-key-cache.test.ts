import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { revokeApiKey } from '../../src/access/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/** API-key verification is remembered briefly (src/access/api-keys.ts); a revoke must still take effect at once. */
describe('API key verification cache', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_RATE_LIMIT_BURST: '1000' } });
  });
  after(() => t.close());
  const me = (authorization: string) => t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization } });

  it('rejects a key revoked over HTTP on the very next request, though it was just verified', async () => {
    const k = await t.keyWith(['query']);
    assert.equal((await me(k.authorization)).statusCode, 200);
    assert.equal((await me(k.authorization)).statusCode, 200);
    const del = await t.app.inject({ method: 'DELETE', url: `/v1/api-keys/${k.id}`, headers: t.admin });
    assert.equal(del.statusCode, 200);
    assert.equal((await me(k.authorization)).statusCode, 401);
  });

  it('rejects a key revoked through the domain function (as the CLI does) at once', async () => {
    const k = await t.keyWith(['query']);
    const other = await t.keyWith(['query']);
    assert.equal((await me(k.authorization)).statusCode, 200);
    assert.equal((await me(other.authorization)).statusCode, 200);
    assert.ok(await revokeApiKey(t.db, 'default', k.id));
    assert.equal((await me(k.authorization)).statusCode, 401);
    assert.equal((await me(other.authorization)).statusCode, 200, 'other keys stay valid');
  });
});
