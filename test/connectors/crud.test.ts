import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.ts';

describe('connectors CRUD (api kind)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('creates an api connector in connecting, which is then connected; lists, reads and deletes it', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: t.admin,
      payload: { connector_type: 'api', display_name: 'Pushed docs', settings: { requests_per_minute: 60 } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.match(body.connector_id, /^api-[0-9a-z]{16}$/);
    assert.deepEqual({ ...body, connector_id: 'x' }, { connector_id: 'x', connector_type: 'api', display_name: 'Pushed docs', status: 'connecting', oauth_url: null });

    const got = await t.app.inject({ method: 'GET', url: `/v1/connectors/${body.connector_id}`, headers: t.admin });
    assert.equal(got.statusCode, 200);
    assert.equal(got.json().status, 'connected');
    assert.equal(got.json().document_count, 0);
    assert.deepEqual(got.json().settings, { requests_per_minute: 60 });
    assert.deepEqual(got.json().sync_runs, []);

    const list = await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: t.admin });
    assert.equal(list.json().connectors.length, 1);
    assert.equal(list.json().connectors[0].connector_id, body.connector_id);

    const sync = await t.app.inject({ method: 'POST', url: `/v1/connectors/${body.connector_id}/sync`, headers: t.admin });
    assert.equal(sync.statusCode, 409);
    assert.equal(sync.json().error.code, 'conflict');
    assert.match(sync.json().error.message, /push sources/);

    const del = await t.app.inject({ method: 'DELETE', url: `/v1/connectors/${body.connector_id}`, headers: t.admin });
    assert.equal(del.statusCode, 200);
    assert.equal(del.json().deleted, true);
    const gone = await t.app.inject({ method: 'GET', url: `/v1/connectors/${body.connector_id}`, headers: t.admin });
    assert.equal(gone.statusCode, 404);
    assert.equal(gone.json().error.code, 'not_found');

    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=connector.*', headers: t.admin });
    const actions = audit.json().events.map((e: { action: string }) => e.action);
    assert.ok(actions.includes('connector.created'));
    assert.ok(actions.includes('connector.deleted'));
  });

  it('validates type, settings and permissions, and isolates tenants', async () => {
    const unknown = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'nope', display_name: 'x' } });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().error.message, /unknown connector_type/);
    const badSettings = await t.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: t.admin,
      payload: { connector_type: 'api', display_name: 'x', settings: { requests_per_minute: 'lots' } },
    });
    assert.equal(badSettings.statusCode, 400);
    assert.equal(badSettings.json().error.details.problems[0].path, 'settings.requests_per_minute');
    const reader = await t.keyWith(['connector:read']);
    const denied = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: { authorization: reader.authorization }, payload: { connector_type: 'api', display_name: 'x' } });
    assert.equal(denied.statusCode, 403);

    const mine = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: 'mine' } });
    const other = await t.keyWith(['connector:read', 'connector:write'], 'other-tenant');
    const peek = await t.app.inject({ method: 'GET', url: `/v1/connectors/${mine.json().connector_id}`, headers: { authorization: other.authorization } });
    assert.equal(peek.statusCode, 404);
    const del = await t.app.inject({ method: 'DELETE', url: `/v1/connectors/${mine.json().connector_id}`, headers: { authorization: other.authorization } });
    assert.equal(del.statusCode, 404);
    const list = await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: { authorization: other.authorization } });
    assert.deepEqual(list.json().connectors, []);
  });

  it('pauses and resumes with the transition table, and lists the catalogue', async () => {
    const c = (await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: 'p' } })).json();
    const pause = await t.app.inject({ method: 'POST', url: `/v1/connectors/${c.connector_id}/pause`, headers: t.admin });
    assert.deepEqual(pause.json(), { connector_id: c.connector_id, status: 'paused' });
    const again = await t.app.inject({ method: 'POST', url: `/v1/connectors/${c.connector_id}/pause`, headers: t.admin });
    assert.equal(again.statusCode, 409);
    const resume = await t.app.inject({ method: 'POST', url: `/v1/connectors/${c.connector_id}/resume`, headers: t.admin });
    assert.deepEqual(resume.json(), { connector_id: c.connector_id, status: 'connected' });
    const cat = await t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: t.admin });
    assert.equal(cat.statusCode, 200);
    const api = cat.json().connectors.find((k: { connector_type: string }) => k.connector_type === 'api');
    assert.equal(api.auth_type, 'none');
    assert.equal(api.sync, false);
  });
});

describe('connector metrics', () => {
  it('exports connectors by kind and state on /metrics', async () => {
    const t = await createTestApp();
    try {
      await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: 'm' } });
      const m = await t.app.inject({ method: 'GET', url: '/metrics' });
      assert.match(m.body, /atrium_connectors\{connector_type="api",status="connected"\} 1/);
    } finally {
      await t.close();
    }
  });
});
