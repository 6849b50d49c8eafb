import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { documentStoreFor } from '../../src/sync/documents-adapter.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

describe('HTTP input the database or the framework would refuse', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_SYNC_SCHEDULER: 'false' } });
  });
  after(() => t.close());

  const expect400 = (res: { statusCode: number; json(): { error: { code: string; message: string } } }, path: string) => {
    assert.equal(res.statusCode, 400, JSON.stringify(res.json()));
    assert.equal(res.json().error.code, 'invalid_request');
    assert.match(res.json().error.message, new RegExp(`invalid ${path.replace(/\./g, '\\.')}: contains a NUL character`));
  };

  it('refuses U+0000 in a body, a path id or a query value with 400 naming the field, not 500', async () => {
    expect400(await t.app.inject({ method: 'POST', url: '/v1/federate', headers: t.admin, payload: { query: 'checkout\u0000outage', user_id: 'u' } }), 'body.query');
    expect400(await t.app.inject({ method: 'POST', url: '/v1/federate', headers: t.admin, payload: { query: 'checkout', user_id: 'u\u0000' } }), 'body.user_id');
    expect400(
      await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: 'a\u0000b' } }),
      'body.display_name',
    );
    expect400(await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers: t.admin, payload: { name: 'k\u0000', permissions: ['query'] } }), 'body.name');
    expect400(await t.app.inject({ method: 'GET', url: '/v1/connectors/%00', headers: t.admin }), 'params.id');
    expect400(await t.app.inject({ method: 'GET', url: '/v1/documents/doc%00x', headers: t.admin }), 'params.id');
    expect400(await t.app.inject({ method: 'DELETE', url: '/v1/forget/%00', headers: t.admin }), 'params.id');
    expect400(await t.app.inject({ method: 'GET', url: '/v1/auth/sso/login?tenant_id=a%00' }), 'querystring.tenant_id');
    // Nothing was created by the refused requests.
    const list = await t.app.inject({ method: 'GET', url: '/v1/connectors', headers: t.admin });
    assert.deepEqual(list.json().connectors, []);
  });

  it('answers Fastify-level refusals in the one error shape, and takes ids up to their schema length', async () => {
    const bad = await t.app.inject({ method: 'GET', url: '/v1/connectors/%ZZ', headers: t.admin });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(typeof bad.json().error?.code, 'string', bad.body);
    const long = 'x'.repeat(150);
    const missing = await t.app.inject({ method: 'GET', url: `/v1/connectors/${long}`, headers: t.admin });
    assert.equal(missing.statusCode, 404, missing.body);
    assert.equal(missing.json().error.code, 'not_found', 'the route is found; the connector is not');
    const forget = await t.app.inject({ method: 'DELETE', url: `/v1/forget/${long}`, headers: t.admin });
    assert.equal(forget.statusCode, 404, forget.body);
    assert.equal(typeof forget.json().error?.code, 'string');
  });

  it('answers 415 for a text/plain body instead of parsing it as a string', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/federate',
      headers: { ...t.admin, 'content-type': 'text/plain' },
      payload: JSON.stringify({ query: 'x', user_id: 'u' }),
    });
    assert.equal(res.statusCode, 415, res.body);
    assert.equal(typeof res.json().error?.code, 'string');
  });

  it('refuses unknown body fields on every JSON route (a misspelt dry_run must not run the action for real)', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: 'strict' } });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().connector_id;
    const cases: [string, string, Record<string, unknown>][] = [
      ['POST', '/v1/connectors', { connector_type: 'api', display_name: 'x', dispaly_name: 'typo' }],
      ['POST', `/v1/connectors/${id}/execute`, { intent: 'create an issue', dryrun: true }],
      ['PUT', `/v1/connectors/${id}/credentials`, { credentials: {}, extra: 1 }],
      ['POST', '/v1/search', { query: 'x', limt: 3 }],
      ['POST', '/v1/api-keys', { name: 'k', permissions: ['query'], tenant: 'other' }],
      ['POST', '/v1/embeddings', { input: ['x'], modle: 'y' }],
      ['POST', '/v1/expose/mcp/invoke', { tool: 'list_connectors', parameters: {}, extra: true }],
      ['POST', '/v1/vec2vec/translate', { source_model: 'a', target_model: 'b', vector: [1], extra: 1 }],
      ['POST', '/v1/auth/sso/test', { test_mode: true, extra: 1 }],
    ];
    for (const [method, url, payload] of cases) {
      const res = await t.app.inject({ method: method as 'POST', url, headers: t.admin, payload });
      assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`);
      assert.equal(res.json().error.code, 'invalid_request', `${method} ${url}`);
      assert.match(res.json().error.message, /unrecognized key|unknown/i, `${method} ${url}: ${res.body}`);
    }
  });

  it('MCP: a non-JSON initialize is 415, and an empty sources list is an invalid argument (400 over REST)', async () => {
    const plain = await t.app.inject({
      method: 'POST',
      url: '/v1/expose/mcp',
      headers: { ...t.admin, 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    assert.equal(plain.statusCode, 415, plain.body);
    const empty = await t.app.inject({ method: 'POST', url: '/v1/expose/mcp/invoke', headers: t.admin, payload: { tool: 'query_knowledge', parameters: { query: 'x', sources: [] } } });
    assert.equal(empty.statusCode, 400, empty.body);
    assert.match(empty.body, /sources/);
  });
});

describe('deleting a connector while a batch is written to it', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_SYNC_SCHEDULER: 'false' } });
  });
  after(() => t.close());

  it('leaves no orphan: the batch lands before the delete (and goes with it) or finds the connector gone (404)', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: `race ${trial}` } });
      const id = created.json().connector_id as string;
      const documents = Array.from({ length: 400 }, (_, i) => ({ external_id: `d${i}`, title: `Doc ${i}`, content: `Paragraph ${i} about deployments, rollbacks and on-call. `.repeat(20) }));
      const push = t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/documents`, headers: t.admin, payload: { documents } });
      // The delete starts while the push chunks and embeds its batch, before the push's write transaction.
      await new Promise((r) => setImmediate(r));
      const del = t.app.inject({ method: 'DELETE', url: `/v1/connectors/${id}`, headers: t.admin });
      const [p, d] = await Promise.all([push, del]);
      assert.equal(d.statusCode, 200, d.body);
      assert.ok(p.statusCode === 200 || p.statusCode === 404, `${p.statusCode} ${p.body}`);
      const orphans = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE source_node = $1', [id]);
      assert.equal(orphans.rows[0]?.n, 0, `trial ${trial}: push ${p.statusCode}, delete removed ${d.json().documents_deleted}`);
    }
  });

  it('a batch whose connector was deleted after the request was checked stores nothing (sync adapter and push path)', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: 'gone' } });
    const id = created.json().connector_id as string;
    // What the delete's transaction leaves once it has run between the push's check and its write.
    await t.db.query('DELETE FROM connectors WHERE id = $1', [id]);
    const store = documentStoreFor(() => t.deps);
    await assert.rejects(store.upsert({ tenantId: 'default', connectorId: id, documents: [{ external_id: 'x', title: 'X', content: 'late page' }] }), /not found/);
    const n = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE source_node = $1', [id]);
    assert.equal(n.rows[0]?.n, 0);
  });
});
