import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';

describe('HTTP limits and tenancy', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_RATE_LIMIT_PER_MINUTE: '60', ATRIUM_RATE_LIMIT_BURST: '3', ATRIUM_BODY_LIMIT_BYTES: '2048' } });
  });
  after(() => t.close());

  it('answers 429 with Retry-After once a key exhausts its bucket, other keys unaffected', async () => {
    const k = await t.keyWith(['connector:read']);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: { authorization: k.authorization } })).statusCode);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const limited = await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: { authorization: k.authorization } });
    assert.equal(limited.json().error.code, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    const other = await t.keyWith(['connector:read']);
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: { authorization: other.authorization } })).statusCode, 200);
  });

  it('answers 413 with the error shape for a body over the limit', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/api-keys',
      headers: t.admin,
      payload: { name: 'x'.repeat(4000), permissions: ['query'] },
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().error.code, 'payload_too_large');
  });

  it('keeps tenants apart: keys, audit and revocation', async () => {
    const acmeAdmin = await t.keyWith(['admin'], 'acme');
    const created = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers: { authorization: acmeAdmin.authorization }, payload: { name: 'acme-reader', permissions: ['query'] } });
    assert.equal(created.statusCode, 201);
    assert.equal(created.json().tenant_id, 'acme');
    const defaultList = await t.app.inject({ method: 'GET', url: '/v1/api-keys', headers: t.admin });
    assert.ok(!defaultList.json().api_keys.some((k: { name: string }) => k.name === 'acme-reader'));
    const revokeOther = await t.app.inject({ method: 'DELETE', url: `/v1/api-keys/${created.json().id}`, headers: t.admin });
    assert.equal(revokeOther.statusCode, 404, "a tenant cannot revoke another tenant's key");
    const acmeAudit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=apikey*', headers: { authorization: acmeAdmin.authorization } });
    assert.ok(acmeAudit.json().events.every((e: { tenant_id: string }) => e.tenant_id === 'acme'));
    assert.ok(acmeAudit.json().events.length >= 1);
  });

  it('rejects invalid audit filters with 400 naming the field', async () => {
    const admin = { authorization: (await t.keyWith(['admin'])).authorization };
    const res = await t.app.inject({ method: 'GET', url: '/v1/audit?limit=0', headers: admin });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().error.message, /limit/);
    const since = await t.app.inject({ method: 'GET', url: '/v1/audit?since=yesterday', headers: admin });
    assert.equal(since.statusCode, 400);
  });

  it('exposes Prometheus metrics with request counts by route and status', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /atrium_http_requests_total\{method="GET",route="\/v1\/connectors",status="429"\} \d+/);
    assert.match(res.body, /atrium_http_request_duration_seconds_bucket/);
    assert.match(res.body, /atrium_jobs/);
  });
});
