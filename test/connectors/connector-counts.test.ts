import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpClient, listen } from '../mcp/support.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker } from './support.ts';

/** Issue 24: `document_count` in the connector list and detail never counts documents the caller cannot read. */
describe('connector document counts follow the caller’s view', () => {
  let t: TestApp;
  let id: string;
  const keys: Record<string, string> = {};
  before(async () => {
    t = await createTestApp({ env: { ATRIUM_SYNC_SCHEDULER: 'false' } });
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'api', display_name: 'Push' } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    const push = await t.app.inject({
      method: 'POST',
      url: `/v1/connectors/${id}/documents`,
      headers: t.admin,
      payload: {
        documents: [
          { external_id: 'open', title: 'Open', content: 'Everyone reads this.', acl: { public: true } },
          { external_id: 'plain', title: 'No ACL', content: 'No ACL: the whole tenant.' },
          { external_id: 'ada-only', title: 'Ada', content: 'For Ada only.', acl: { users: ['ada@acme.test'] } },
          { external_id: 'team', title: 'Team', content: 'For the team group.', acl: { groups: ['team-x'] } },
        ],
      },
    });
    assert.equal(push.statusCode, 200, push.body);
    await connectorWorker(t).drain();
    const key = async (name: string, permissions: string[], email?: string) => {
      const r = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers: t.admin, payload: { name, permissions, ...(email ? { identity: { email } } : {}) } });
      assert.equal(r.statusCode, 201, r.body);
      return `Bearer ${r.json().key}`;
    };
    keys.ada = await key('ada', ['query', 'connector:read'], 'ada@acme.test');
    keys.bob = await key('bob', ['query', 'connector:read'], 'bob@acme.test');
    keys.service = await key('svc', ['connector:read']);
    keys.admin = await key('admin', ['admin']);
    const members = await t.app.inject({ method: 'PUT', url: '/v1/identity/groups/team-x/members', headers: t.admin, payload: { members: ['bob@acme.test'] } });
    assert.equal(members.statusCode, 200, members.body);
  });
  after(() => t.close());

  const counts = async (authorization: string, query = '') => {
    const list = await t.app.inject({ method: 'GET', url: `/v1/connectors${query}`, headers: { authorization } });
    assert.equal(list.statusCode, 200, list.body);
    const detail = await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}${query}`, headers: { authorization } });
    assert.equal(detail.statusCode, 200, detail.body);
    const inList = (list.json().connectors as { connector_id: string; document_count: number }[]).find((c) => c.connector_id === id)?.document_count;
    assert.equal(inList, detail.json().document_count, 'list and detail agree');
    return inList;
  };

  it('a person counts what they may read; a service key and an admin without bypass count public documents; the bypass counts all', async () => {
    assert.equal(await counts(keys.ada!), 3, 'public + no ACL + her own');
    assert.equal(await counts(keys.bob!), 3, 'public + no ACL + his group');
    assert.equal(await counts(keys.service!), 2, 'only what everyone may read');
    assert.equal(await counts(keys.admin!), 2, 'an admin does not bypass by default');
    assert.equal(await counts(keys.admin!, '?bypass_acl=true'), 4);
    const audit = await t.db.query("SELECT 1 FROM audit_events WHERE action = 'acl.bypassed'");
    assert.ok(audit.rows.length >= 2, 'each bypass is audited');
  });

  it('MCP list_connectors (official SDK client over HTTP) counts the caller’s view too', async () => {
    const base = await listen(t);
    const count = async (authorization: string) => {
      const client = await httpClient(base, authorization);
      try {
        const r = await client.callTool({ name: 'list_connectors', arguments: {} });
        const list = (r.structuredContent as { connectors: { connector_id: string; document_count: number }[] }).connectors;
        return list.find((c) => c.connector_id === id)?.document_count;
      } finally {
        await client.close();
      }
    };
    assert.equal(await count(keys.ada!), 3);
    assert.equal(await count(keys.service!), 2);
  });

  it('?bypass_acl=true from a non-admin is refused (403), not silently widened', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1/connectors?bypass_acl=true', headers: { authorization: keys.ada! } });
    assert.equal(r.statusCode, 403, r.body);
  });
});
