import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';

describe('foundation over HTTP', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('serves health without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/health' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok', version: '0.1.0', storage: 'pglite' });
  });

  it('answers 401 with the error shape without a key and with a wrong key', async () => {
    for (const headers of [{}, { authorization: 'Bearer atr_wrong_wrong_wrong_wrong' }, { authorization: 'Basic xyz' }]) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/connectors', headers });
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error.code, 'unauthenticated');
      assert.equal(typeof res.json().error.message, 'string');
    }
  });

  it('lets an admin mint a query-only key that gets 403 on connectors and cannot mint keys', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/api-keys',
      headers: t.admin,
      payload: { name: 'reader', permissions: ['query'] },
    });
    assert.equal(created.statusCode, 201);
    const body = created.json();
    assert.match(body.key, /^atr_[\w-]{40,}$/);
    assert.deepEqual(body.permissions, ['query']);
    const auth = { authorization: `Bearer ${body.key}` };
    const denied = await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: auth });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error.code, 'permission_denied');
    const mint = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers: auth, payload: { name: 'x', permissions: ['admin'] } });
    assert.equal(mint.statusCode, 403);
    const list = await t.app.inject({ method: 'GET', url: '/v1/api-keys', headers: t.admin });
    assert.ok(!JSON.stringify(list.json()).includes(body.key), 'plaintext key never listed');
  });

  it('sends security headers on API answers: nosniff, no-store, no referrer, a closed CSP on JSON', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers: t.admin, payload: { name: 'h', permissions: ['query'] } });
    const denied = await t.app.inject({ method: 'GET', url: '/v1/connectors' });
    for (const res of [created, denied, await t.app.inject({ method: 'GET', url: '/v1/health' })]) {
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.equal(res.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
      assert.equal(res.headers['strict-transport-security'], undefined, 'no HSTS for an http:// public URL');
    }
  });

  it('returns an empty connector list with connector:read', async () => {
    const k = await t.keyWith(['connector:read']);
    const res = await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: { authorization: k.authorization } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { connectors: [] });
  });

  it('rejects malformed JSON, unknown permissions and unknown routes with the error shape', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/v1/api-keys',
      headers: { ...t.admin, 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'malformed_json');
    const perm = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers: t.admin, payload: { name: 'x', permissions: ['root'] } });
    assert.equal(perm.statusCode, 400);
    assert.equal(perm.json().error.code, 'invalid_request');
    assert.match(perm.json().error.message, /permissions/);
    const missing = await t.app.inject({ method: 'GET', url: '/v1/does-not-exist', headers: t.admin });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'route_not_found');
  });

  it('audits key creation and revocation, filterable by prefix', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers: t.admin, payload: { name: 'tmp', permissions: ['query'] } });
    const id = created.json().id;
    const del = await t.app.inject({ method: 'DELETE', url: `/v1/api-keys/${id}`, headers: t.admin });
    assert.equal(del.statusCode, 200);
    assert.ok(del.json().revoked_at);
    const revokedUse = await t.app.inject({ method: 'GET', url: '/v1/audit', headers: { authorization: `Bearer ${created.json().key}` } });
    assert.equal(revokedUse.statusCode, 401);
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=apikey*', headers: t.admin });
    assert.equal(audit.statusCode, 200);
    const actions = audit.json().events.map((e: { action: string }) => e.action);
    assert.ok(actions.includes('apikey.created'));
    assert.ok(actions.includes('apikey.revoked'));
    const exact = await t.app.inject({ method: 'GET', url: '/v1/audit?action=apikey.revoked', headers: t.admin });
    assert.ok(exact.json().events.every((e: { action: string }) => e.action === 'apikey.revoked'));
    const unknown = await t.app.inject({ method: 'DELETE', url: '/v1/api-keys/key_nope', headers: t.admin });
    assert.equal(unknown.statusCode, 404);
  });

  it('serves an OpenAPI document with permissions and error schemas', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.0.3');
    const create = doc.paths['/v1/api-keys'].post;
    // Any credential may ask: an admin creates any key, an SSO session only keys bound to itself (checked in the handler).
    assert.equal(create['x-permission'], 'authenticated');
    assert.equal(doc.paths['/v1/api-keys'].get['x-permission'], 'admin');
    assert.ok(create.responses['201']);
    assert.ok(create.responses['401']);
    assert.ok(create.requestBody);
  });
});
