import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { addDocs, type Corpus, NOW, seedCorpus } from './fixtures.ts';

type Item = { id: string; suppressed_by_tombstone: boolean; relevance_score: number; metadata: { external_id: string } };

describe('tombstones and nodes over HTTP', () => {
  let t: TestApp;
  let ids: Corpus;
  let writer: { authorization: string };
  let querier: { authorization: string };
  const federate = async (user: string) =>
    (await t.app.inject({ method: 'POST', url: '/v1/federate', headers: t.admin, payload: { query: 'payment', user_id: user } })).json().items as Item[];

  before(async () => {
    t = await createTestApp({ clock: fixedClock(NOW), env: { ATRIUM_RATE_LIMIT_BURST: '1000' } });
    ids = await seedCorpus(t);
    writer = await t.keyWith(['connector:write']);
    querier = await t.keyWith(['query']);
  });
  after(() => t.close());

  it('flags forgotten documents and ranks them below live ones, until the tombstone is lifted', async () => {
    const before = await federate('u-t1');
    assert.equal(before[0]!.id, ids.outage, 'the outage issue leads before it is forgotten');
    const res = await t.app.inject({ method: 'POST', url: '/v1/forget', headers: writer, payload: { document_ids: [ids.outage], reason: 'GDPR request 42' } });
    assert.equal(res.statusCode, 201);
    const [tomb] = res.json().tombstones;
    assert.match(tomb.id, /^tmb_/);
    assert.equal(tomb.document_id, ids.outage);
    assert.equal(tomb.connector_id, 'github-eng');
    assert.equal(tomb.external_id, 'issue-1');
    assert.equal(tomb.reason, 'GDPR request 42');

    const items = await federate('u-t2');
    const flagged = items.filter((i) => i.suppressed_by_tombstone);
    assert.deepEqual(
      flagged.map((i) => i.id),
      [ids.outage],
    );
    const pos = items.findIndex((i) => i.id === ids.outage);
    assert.ok(items.slice(0, pos).every((i) => !i.suppressed_by_tombstone), 'live results first');
    assert.equal(pos, items.length - 1);

    const list = await t.app.inject({ method: 'GET', url: '/v1/forget', headers: writer });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list.json().tombstones.map((x: { id: string }) => x.id),
      [tomb.id],
    );
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=federation.forget*', headers: t.admin });
    assert.ok(audit.json().events.some((e: { tombstone_ids?: string[] }) => e.tombstone_ids?.includes(tomb.id)));

    // Many clients send a JSON content type with no body on DELETE: that is no body, not malformed JSON.
    const lifted = await t.app.inject({ method: 'DELETE', url: `/v1/forget/${tomb.id}`, headers: { ...writer, 'content-type': 'application/json' } });
    assert.equal(lifted.statusCode, 200);
    assert.ok(lifted.json().lifted_at);
    assert.ok((await federate('u-t3')).every((i) => !i.suppressed_by_tombstone));
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/v1/forget/${tomb.id}`, headers: writer })).statusCode, 404);
  });

  it('forgets by connector + external id (also a later re-sync) and whole connectors', async () => {
    const r1 = await t.app.inject({ method: 'POST', url: '/v1/forget', headers: writer, payload: { connector_id: 'github-eng', external_ids: ['issue-2', 'not-yet-synced'] } });
    assert.equal(r1.statusCode, 201);
    assert.equal(r1.json().tombstones.length, 2);
    await addDocs(t, 'github-eng', [{ external_id: 'not-yet-synced', title: 'Payment webhook notes', content: 'payment webhooks' }]);
    const items = await federate('u-t4');
    const flagged = new Set(items.filter((i) => i.suppressed_by_tombstone).map((i) => i.metadata.external_id));
    assert.deepEqual([...flagged].sort(), ['issue-2', 'not-yet-synced']);

    const r2 = await t.app.inject({ method: 'POST', url: '/v1/forget', headers: writer, payload: { connector_id: 'slack-ops' } });
    assert.equal(r2.statusCode, 201);
    const after = await federate('u-t5');
    assert.ok(after.filter((i) => i.id === ids.alerts).every((i) => i.suppressed_by_tombstone));
    for (const tomb of [...r1.json().tombstones, ...r2.json().tombstones]) {
      await t.app.inject({ method: 'DELETE', url: `/v1/forget/${tomb.id}`, headers: writer });
    }
  });

  it('validates forget requests and checks permissions and tenancy', async () => {
    const post = (payload: unknown, headers = writer) => t.app.inject({ method: 'POST', url: '/v1/forget', headers, payload: payload as Record<string, unknown> });
    assert.equal((await post({})).statusCode, 400);
    assert.equal((await post({ external_ids: ['x'] })).statusCode, 400);
    assert.equal((await post({ document_ids: [] })).statusCode, 400);
    assert.equal((await post({ document_ids: ['doc_missing'] })).statusCode, 404);
    assert.equal((await post({ connector_id: 'nope-1' })).statusCode, 404);
    assert.equal((await post({ document_ids: [ids.wiki] }, querier)).statusCode, 403);
    const other = await t.keyWith(['connector:write'], 'tenant-z');
    assert.equal((await post({ document_ids: [ids.wiki] }, other)).statusCode, 404, 'another tenant cannot see the document');
    const list = await t.app.inject({ method: 'GET', url: '/v1/forget', headers: other });
    assert.deepEqual(list.json().tombstones, []);
  });

  it('lists local sources with their embedding model, and registers remote nodes with a sealed key', async () => {
    const nodes = await t.app.inject({ method: 'GET', url: '/v1/nodes', headers: querier });
    assert.equal(nodes.statusCode, 200);
    const local = nodes.json().nodes.filter((n: { kind: string }) => n.kind === 'local');
    assert.deepEqual(
      local.map((n: { node_id: string }) => n.node_id),
      ['github-eng', 'slack-ops'],
    );
    assert.equal(local[0].embedding_model, 'builtin/glove-100d');
    assert.equal(local[0].connector_type, 'github');

    const body = { name: 'paris', url: 'http://127.0.0.1:9/', api_key: 'atr_remote_secret_value_123' };
    assert.equal((await t.app.inject({ method: 'POST', url: '/v1/nodes', headers: querier, payload: body })).statusCode, 403);
    const created = await t.app.inject({ method: 'POST', url: '/v1/nodes', headers: t.admin, payload: body });
    assert.equal(created.statusCode, 201);
    assert.equal(created.json().url, 'http://127.0.0.1:9');
    assert.ok(!JSON.stringify(created.json()).includes(body.api_key), 'the key is never returned');
    const row = await t.db.query<{ api_key_enc: string }>('SELECT api_key_enc FROM federation_nodes WHERE name = $1', ['paris']);
    assert.ok(row.rows[0]!.api_key_enc.startsWith('v1:') && !row.rows[0]!.api_key_enc.includes(body.api_key), 'sealed at rest');
    assert.equal((await t.app.inject({ method: 'POST', url: '/v1/nodes', headers: t.admin, payload: body })).statusCode, 409);
    assert.equal((await t.app.inject({ method: 'POST', url: '/v1/nodes', headers: t.admin, payload: { ...body, name: 'Bad Name' } })).statusCode, 400);
    assert.equal((await t.app.inject({ method: 'POST', url: '/v1/nodes', headers: t.admin, payload: { ...body, name: 'x', url: 'ftp://a' } })).statusCode, 400);
    // Not a URL at all: the schema's 400 naming body.url, never a 500 from the refinement parsing it again.
    for (const url of ['not a url', 'http://', '::']) {
      const notUrl = await t.app.inject({ method: 'POST', url: '/v1/nodes', headers: t.admin, payload: { ...body, name: 'y', url } });
      assert.equal(notUrl.statusCode, 400, `${url}: ${notUrl.body}`);
      assert.equal(notUrl.json().error.code, 'invalid_request');
      assert.match(notUrl.body, /url/);
    }
    const listed = (await t.app.inject({ method: 'GET', url: '/v1/nodes', headers: querier })).json().nodes;
    assert.ok(listed.some((n: { kind: string; node_id: string }) => n.kind === 'remote' && n.node_id === 'paris'));
    assert.ok(!JSON.stringify(listed).includes(body.api_key));
    assert.equal((await t.app.inject({ method: 'DELETE', url: '/v1/nodes/paris', headers: t.admin })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'DELETE', url: '/v1/nodes/paris', headers: t.admin })).statusCode, 404);
  });
});

describe('federation in the OpenAPI document', () => {
  it('documents every federation route with its permission', async () => {
    const t = await createTestApp();
    try {
      const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
      const expect: [string, string, string][] = [
        ['/v1/federate', 'post', 'query'],
        ['/v1/federate/force', 'post', 'query'],
        ['/v1/forget', 'post', 'connector:write'],
        ['/v1/forget', 'get', 'connector:write'],
        ['/v1/forget/{id}', 'delete', 'connector:write'],
        ['/v1/nodes', 'get', 'query'],
        ['/v1/nodes', 'post', 'admin'],
        ['/v1/nodes/{id}', 'delete', 'admin'],
      ];
      for (const [p, method, permission] of expect) {
        assert.equal(doc.paths[p]?.[method]?.['x-permission'], permission, `${method} ${p}`);
      }
      assert.ok(doc.paths['/v1/federate'].post.responses['504'], '504 documented');
    } finally {
      await t.close();
    }
  });
});
