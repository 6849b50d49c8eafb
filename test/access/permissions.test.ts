import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createSession } from '../../src/auth/sessions.ts';
import { upsertUser } from '../../src/auth/users.ts';
import { WebSocketTransport } from '../../src/mcp/index.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { connectorWorker, syncConnector } from '../connectors/support.ts';
import { type FakeGitHub, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { listen, openSocket, upgradeStatus } from '../mcp/support.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * Permission-aware retrieval through the real surfaces: a tenant with a private Slack channel (members synced from
 * conversations.members), a private GitHub repository (its group set by hand: collaborators are not mirrored yet), a
 * public pushed handbook and an HR note for an IdP group; four people with different memberships, a service key,
 * an act_as key and an admin.
 */
describe('permission-aware retrieval: REST, federate, MCP', () => {
  let t: TestApp;
  let slack: FakeSlack;
  let gh: FakeGitHub;
  let worker: Worker;
  let slackId: string;
  const keys: Record<string, string> = {};
  let daveCookie: string;

  const msg = (ts: string, user: string, text: string) => ({ ts, user, text });
  before(async () => {
    slack = await startFakeSlack({
      users: [
        { id: 'U_ADA', name: 'ada', real_name: 'Ada Lovelace', email: 'Ada@Acme.test' },
        { id: 'U_BOB', name: 'bob', real_name: 'Bob Babbage', email: 'bob@acme.test' },
        { id: 'U_CAR', name: 'carol', real_name: 'Carol Hidden' },
      ],
      channels: [
        { id: 'C_GEN', name: 'general', is_private: false, messages: [msg('1767225600.000100', 'U_BOB', 'The roadmap review is on Friday for everyone.')] },
        { id: 'C_SEC', name: 'launch', is_private: true, members: ['U_ADA', 'U_CAR'], messages: [msg('1767225600.000200', 'U_ADA', 'Roadmap secret: codename zephyr ships in March.')] },
      ],
    });
    gh = await startFakeGitHub({ repos: [seededRepo('acme/open', 2), seededRepo('acme/vault', 2, { private: true })] });
    t = await createTestApp({
      env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ slack: slack.url, github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false', ATRIUM_RATE_LIMIT_BURST: '10000' },
    });
    worker = connectorWorker(t);
    const create = async (payload: Record<string, unknown>) => {
      const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload });
      assert.equal(r.statusCode, 201, r.body);
      return r.json().connector_id as string;
    };
    slackId = await create({ connector_type: 'slack', display_name: 'Slack', credentials: { token: slack.token }, settings: { sync_private: true } });
    const ghId = await create({ connector_type: 'github', display_name: 'GH', credentials: { access_token: gh.token }, settings: { file_extensions: ['.md'] } });
    const apiId = await create({ connector_type: 'api', display_name: 'Push' });
    await worker.drain();
    assert.equal((await syncConnector(t, worker, slackId, true)).status, 'idle');
    assert.equal((await syncConnector(t, worker, ghId, true)).status, 'idle');
    const push = await t.app.inject({
      method: 'POST',
      url: `/v1/connectors/${apiId}/documents`,
      headers: t.admin,
      payload: {
        documents: [
          { external_id: 'handbook', title: 'Handbook', content: 'The public roadmap handbook and billing rules.', acl: { public: true } },
          { external_id: 'hr', title: 'HR note', content: 'Roadmap of salary bands, billing of bonuses.', acl: { groups: ['hr-team'] } },
        ],
      },
    });
    assert.equal(push.statusCode, 200, push.body);
    await worker.drain();

    const key = async (name: string, permissions: string[], identity?: string) => {
      const r = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers: t.admin, payload: { name, permissions, ...(identity ? { identity: { email: identity } } : {}) } });
      assert.equal(r.statusCode, 201, r.body);
      return `Bearer ${r.json().key}`;
    };
    keys.service = await key('service', ['query']);
    keys.actAs = await key('assistant', ['query', 'act_as']);
    keys.ada = await key('ada', ['query'], 'ada@acme.test');
    keys.bob = await key('bob', ['query'], 'bob@acme.test');
    keys.carol = await key('carol', ['query'], 'carol@partner.test');
    keys.admin = await key('admin', ['admin']);
    // Dave signs in through SSO with the IdP group hr-team.
    const now = new Date();
    const dave = await upsertUser(t.db, {
      tenantId: 'default',
      identity: { email: 'dave@acme.test', name: 'Dave', groups: ['hr-team'] } as never,
      role: 'member',
      provider: 'oidc',
      externalId: 'dave',
      now,
    });
    const s = await createSession(t.db, { tenantId: 'default', userId: dave.id, provider: 'oidc', ttlSeconds: 3600, now });
    daveCookie = `atrium_session=${s.token}`;
  });
  after(async () => {
    await t.close();
    await slack.close();
    await gh.close();
  });

  let listening: string | undefined;
  const baseUrl = async () => {
    listening ??= await listen(t);
    return listening;
  };
  const search = async (headers: Record<string, string>, query = 'roadmap', url = '/v1/search') => {
    const r = await t.app.inject({ method: 'POST', url, headers, payload: { query, limit: 50, mode: 'lexical' } });
    assert.equal(r.statusCode, 200, r.body);
    return (r.json().passages as { title: string; content: string; document_id: string }[]).map((p) => p.content).sort();
  };
  const federate = async (headers: Record<string, string>, body: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/v1/federate', headers, payload: { max_results: 50, include_reasoning: true, ...body } });
  const contents = (r: { json(): { items: { content: string }[] } }) => r.json().items.map((i) => i.content).sort();
  const SECRET = 'Roadmap secret: codename zephyr ships in March.';
  const GENERAL = 'The roadmap review is on Friday for everyone.';
  const HANDBOOK = 'The public roadmap handbook and billing rules.';
  const HR = 'Roadmap of salary bands, billing of bonuses.';
  /** The public GitHub repository's README ("roadmap" is in its headings): everyone reads it. */
  const GH_OPEN = 'What comes next.';
  const only = (...xs: string[]) => [GH_OPEN, ...xs].sort();

  it('maps each source to the shared ACL shape and syncs the private channel members with their emails', async () => {
    const acls = await t.db.query<{ external_id: string; acl: unknown }>("SELECT external_id, acl FROM documents WHERE external_id LIKE 'msg:%' ORDER BY 1");
    assert.deepEqual(acls.rows.map((r) => r.acl), [{ public: true }, { groups: ['slack:C_SEC'] }]);
    const vault = await t.db.query<{ acl: unknown }>("SELECT DISTINCT acl FROM documents WHERE external_id LIKE 'issue:acme/vault%' OR external_id LIKE 'pr:acme/vault%'");
    assert.deepEqual(vault.rows.map((r) => r.acl), [{ groups: ['github:acme/vault'] }]);
    const unresolved = await t.app.inject({ method: 'GET', url: '/v1/identity/accounts?unresolved=true', headers: t.admin });
    assert.equal(unresolved.statusCode, 200, unresolved.body);
    assert.deepEqual(unresolved.json().accounts.map((a: { account_id: string; groups: string[] }) => [a.account_id, a.groups]), [['slack:U_CAR', ['slack:C_SEC']]]);
  });

  it('a service key sees only documents everyone may read; counts and snippets hold nothing else', async () => {
    assert.deepEqual(await search({ authorization: keys.service! }), only(GENERAL, HANDBOOK));
    assert.deepEqual(await search({ authorization: keys.service! }, 'zephyr'), [], 'a hidden word finds nothing');
    const r = await federate({ authorization: keys.service! }, { query: 'roadmap', user_id: 'svc' });
    assert.equal(r.statusCode, 200, r.body);
    // Hybrid: vector neighbours fill the list too, all of them public.
    const got = contents(r);
    assert.ok(got.includes(GENERAL) && got.includes(HANDBOOK));
    assert.ok(!got.some((c) => c === SECRET || c === HR || c.includes('acme/vault')), got.join(' | '));
    assert.doesNotMatch(r.body, /zephyr|salary|vault/i, 'no snippet, title or reasoning mentions a hidden document');
  });

  it('each person sees exactly their documents (email, vendor groups, IdP groups, hand-set groups)', async () => {
    assert.deepEqual(await search({ authorization: keys.ada! }), only(SECRET, GENERAL, HANDBOOK));
    assert.deepEqual(await search({ authorization: keys.bob! }), only(GENERAL, HANDBOOK));
    assert.deepEqual(await search({ authorization: keys.carol! }), only(GENERAL, HANDBOOK), 'unresolved Slack account: not a member yet');
    assert.deepEqual(await search({ cookie: daveCookie }), only(GENERAL, HANDBOOK, HR), 'IdP group from the SSO session');
    // GitHub collaborators are not mirrored: an admin sets the repository group's members by hand.
    const billing = async (k: string) => (await search({ authorization: k }, 'billing')).filter((c) => c.includes('acme/vault')).length;
    assert.equal(await billing(keys.bob!), 0);
    const set = await t.app.inject({ method: 'PUT', url: `/v1/identity/groups/${encodeURIComponent('github:acme/vault')}/members`, headers: t.admin, payload: { members: ['Bob@acme.test'] } });
    assert.equal(set.statusCode, 200, set.body);
    assert.ok((await billing(keys.bob!)) > 0, 'bob now reads the private repository');
    assert.equal(await billing(keys.ada!), 0);
    // Carol's Slack account mapped by hand: she is in the private channel's group now.
    const map = await t.app.inject({ method: 'PUT', url: '/v1/identity/accounts/slack:U_CAR', headers: t.admin, payload: { email: 'carol@partner.test' } });
    assert.equal(map.statusCode, 200, map.body);
    assert.ok((await search({ authorization: keys.carol! })).includes(SECRET));
  });

  it('GET /v1/me answers the identity and groups retrieval uses; act_as shows the named person', async () => {
    const ada = (await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: keys.ada! } })).json();
    assert.deepEqual(ada.identity, { email: 'ada@acme.test' });
    assert.deepEqual([ada.view.kind, ada.view.vendor_groups, ada.view.vendor_accounts], ['person', ['slack:C_SEC'], ['slack:U_ADA']]);
    const dave = (await t.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: daveCookie } })).json();
    assert.deepEqual([dave.view.email, dave.view.idp_groups], ['dave@acme.test', ['hr-team']]);
    const svc = (await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: keys.service! } })).json();
    assert.deepEqual([svc.identity, svc.view.kind], [null, 'service']);
    const acting = (await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: keys.actAs!, 'x-atrium-act-as': 'ada@acme.test' } })).json();
    assert.deepEqual([acting.view.kind, acting.view.email, acting.view.acting], ['person', 'ada@acme.test', true]);
  });

  it('act_as gives exactly the named person’s view; without act_as the header is a 403', async () => {
    assert.deepEqual(await search({ authorization: keys.actAs!, 'x-atrium-act-as': 'ada@acme.test' }), await search({ authorization: keys.ada! }));
    assert.deepEqual(await search({ authorization: keys.actAs!, 'x-atrium-act-as': 'dave@acme.test' }), only(GENERAL, HANDBOOK, HR));
    assert.deepEqual(await search({ authorization: keys.actAs! }), only(GENERAL, HANDBOOK), 'no header: a service view');
    const refused = await t.app.inject({ method: 'POST', url: '/v1/search', headers: { authorization: keys.bob!, 'x-atrium-act-as': 'ada@acme.test' }, payload: { query: 'roadmap' } });
    assert.equal(refused.statusCode, 403, refused.body);
    const viaUserId = await federate({ authorization: keys.actAs! }, { query: 'roadmap', user_id: 'ada@acme.test' });
    assert.equal(viaUserId.statusCode, 200, viaUserId.body);
    assert.ok(contents(viaUserId).includes(SECRET), "federate's user_id names the person for act_as keys");
  });

  it("a person-bound key's federated user_id must be that person", async () => {
    const own = await federate({ authorization: keys.bob! }, { query: 'roadmap', user_id: 'bob@acme.test' });
    assert.equal(own.statusCode, 200, own.body);
    const other = await federate({ authorization: keys.bob! }, { query: 'roadmap', user_id: 'ada@acme.test' });
    assert.equal(other.statusCode, 403, other.body);
  });

  it('the federated result cache is per reader: a cached answer never reaches another view', async () => {
    const body = { query: 'roadmap zephyr', user_id: 'shared-user' };
    const first = await federate({ authorization: keys.actAs!, 'x-atrium-act-as': 'ada@acme.test' }, body);
    assert.ok(contents(first).includes(SECRET));
    const again = await federate({ authorization: keys.actAs!, 'x-atrium-act-as': 'ada@acme.test' }, body);
    assert.equal(again.json().reasoning.cache, 'hit');
    const svc = await federate({ authorization: keys.actAs! }, body);
    assert.equal(svc.json().query_hash, first.json().query_hash, 'the same request hash');
    assert.equal(svc.json().reasoning.cache, 'miss');
    assert.ok(!contents(svc).includes(SECRET));
    assert.doesNotMatch(svc.body, /zephyr/);
  });

  it('GET /v1/documents/{id}: hidden = 404; the acl only for admins; admins bypass only explicitly, audited', async () => {
    const row = await t.db.query<{ id: string }>("SELECT id FROM documents WHERE external_id = 'msg:C_SEC:1767225600.000200'");
    const id = row.rows[0]!.id;
    const get = (headers: Record<string, string>, q = '') => t.app.inject({ method: 'GET', url: `/v1/documents/${id}${q}`, headers });
    assert.equal((await get({ authorization: keys.service! })).statusCode, 404);
    assert.equal((await get({ authorization: keys.bob! })).statusCode, 404);
    const ada = await get({ authorization: keys.ada! });
    assert.equal(ada.statusCode, 200);
    assert.equal('acl' in ada.json(), false, 'the ACL is for admins');
    assert.equal((await get({ authorization: keys.admin! })).statusCode, 404, 'admin does not bypass by default');
    assert.equal((await get({ authorization: keys.bob! }, '?bypass_acl=true')).statusCode, 403);
    const bypass = await get({ authorization: keys.admin! }, '?bypass_acl=true');
    assert.equal(bypass.statusCode, 200, bypass.body);
    assert.deepEqual(bypass.json().acl, { groups: ['slack:C_SEC'] });
    const audit = await t.app.inject({ method: 'GET', url: '/v1/audit?action=acl.*', headers: t.admin });
    assert.ok(audit.json().events.some((e: { action: string }) => e.action === 'acl.bypassed'));
  });

  it('API keys: GET lists identities; a non-admin key cannot mint keys', async () => {
    const list = (await t.app.inject({ method: 'GET', url: '/v1/api-keys', headers: t.admin })).json().api_keys as { name: string; identity: unknown }[];
    assert.deepEqual(list.find((k) => k.name === 'ada')?.identity, { email: 'ada@acme.test' });
    assert.equal(list.find((k) => k.name === 'service')?.identity, null);
    const r = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers: { authorization: keys.ada! }, payload: { name: 'x', permissions: ['query'] } });
    assert.equal(r.statusCode, 403);
  });

  it('a signed-in person creates keys bound to themself only, within their permissions', async () => {
    const headers = { cookie: daveCookie, 'sec-fetch-site': 'same-origin' };
    const own = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers, payload: { name: 'dave-cli', permissions: ['query'] } });
    assert.equal(own.statusCode, 201, own.body);
    assert.deepEqual(own.json().identity, { email: 'dave@acme.test' });
    assert.deepEqual(await search({ authorization: `Bearer ${own.json().key}` }), only(GENERAL, HANDBOOK, HR));
    const other = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers, payload: { name: 'x', permissions: ['query'], identity: { email: 'ada@acme.test' } } });
    assert.equal(other.statusCode, 403);
    const actAs = await t.app.inject({ method: 'POST', url: '/v1/api-keys', headers, payload: { name: 'x', permissions: ['act_as'] } });
    assert.equal(actAs.statusCode, 403);
  });

  it('MCP (official SDK client): query_knowledge, get_document and the recent-documents resource answer the caller’s view', async () => {
    const base = await baseUrl();
    const client = async (authorization: string, extra: Record<string, string> = {}) => {
      const c = new Client({ name: 'perm-test', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(new URL('/v1/expose/mcp', base), { requestInit: { headers: { authorization, ...extra } } }));
      return c;
    };
    const text = (r: unknown) => JSON.stringify(r);
    const svc = await client(keys.service!);
    const ada = await client(keys.ada!);
    const acting = await client(keys.actAs!, { 'x-atrium-act-as': 'ada@acme.test' });
    try {
      const q = { name: 'query_knowledge', arguments: { query: 'roadmap zephyr', limit: 20 } };
      assert.doesNotMatch(text(await svc.callTool(q)), /zephyr/);
      assert.match(text(await ada.callTool(q)), /zephyr/);
      assert.match(text(await acting.callTool(q)), /zephyr/);
      const id = (await t.db.query<{ id: string }>("SELECT id FROM documents WHERE external_id = 'msg:C_SEC:1767225600.000200'")).rows[0]!.id;
      const hidden = await svc.callTool({ name: 'get_document', arguments: { document_id: id } });
      assert.equal(hidden.isError, true);
      assert.doesNotMatch(text(hidden), /zephyr/);
      assert.match(text(await ada.callTool({ name: 'get_document', arguments: { document_id: id } })), /zephyr/);
      const resources = await svc.listResources();
      const recent = resources.resources.find((r) => r.uri.endsWith('://recent'));
      assert.ok(recent);
      assert.doesNotMatch(text(await svc.readResource({ uri: recent.uri })), /launch|zephyr|HR note|vault/);
      assert.match(text(await ada.readResource({ uri: recent.uri })), /launch/);
    } finally {
      await Promise.all([svc.close(), ada.close(), acting.close()]);
    }
  });

  /** Each person's restricted documents (after the hand mappings above) and the markers of the others'. */
  const MARKERS = { zephyr: /zephyr/i, salary: /salary/i, vault: /acme\/vault/i } as const;
  const readers = () =>
    [
      { who: 'ada', headers: { authorization: keys.ada! }, mcp: { authorization: keys.ada! }, sees: ['zephyr'] },
      { who: 'bob', headers: { authorization: keys.bob! }, mcp: { authorization: keys.bob! }, sees: ['vault'] },
      { who: 'carol', headers: { authorization: keys.carol! }, mcp: { authorization: keys.carol! }, sees: ['zephyr'] },
      { who: 'dave', headers: { cookie: daveCookie }, mcp: { authorization: keys.actAs!, 'x-atrium-act-as': 'dave@acme.test' }, sees: ['salary'] },
      { who: 'service', headers: { authorization: keys.service! }, mcp: { authorization: keys.service! }, sees: [] },
    ] as const;
  const email = (who: string) => (who === 'carol' ? 'carol@partner.test' : `${who}@acme.test`);
  const ALL_WORDS = 'roadmap zephyr salary billing acme vault body issue';

  it('four people and a service key: /v1/federate answers exactly their sets; no item, snippet or reasoning of another', async () => {
    for (const r of readers()) {
      const res = await federate(r.headers, { query: ALL_WORDS, user_id: r.who === 'service' ? 'svc' : email(r.who) });
      assert.equal(res.statusCode, 200, `${r.who}: ${res.body}`);
      const items = res.json().items as { content: string; title?: string }[];
      assert.ok(items.length > 0, r.who);
      for (const [name, re] of Object.entries(MARKERS)) {
        const mine = (r.sees as readonly string[]).includes(name);
        if (mine) assert.ok(items.some((i) => re.test(i.content)), `${r.who} finds their ${name} document`);
        else assert.doesNotMatch(res.body, re, `${r.who} never sees ${name}`);
      }
    }
  });

  it('four people and a service key over MCP (SDK client, Streamable HTTP and WebSocket): query_knowledge and get_document', async () => {
    const base = await baseUrl();
    const ids = Object.fromEntries(
      (
        await t.db.query<{ id: string; external_id: string }>(
          "SELECT id, external_id FROM documents WHERE external_id IN ('msg:C_SEC:1767225600.000200', 'hr') OR external_id LIKE 'issue:acme/vault#%'",
        )
      ).rows.map((r) => [r.external_id === 'hr' ? 'salary' : r.external_id.startsWith('msg:') ? 'zephyr' : 'vault', r.id]),
    ) as Record<keyof typeof MARKERS, string>;
    assert.deepEqual(Object.keys(ids).sort(), ['salary', 'vault', 'zephyr']);
    const wsUrl = `${base.replace(/^http/, 'ws')}/v1/expose/mcp/ws`;
    for (const transport of ['http', 'websocket'] as const) {
      for (const r of readers()) {
        const c = new Client({ name: 'perm-test', version: '1' });
        if (transport === 'http') {
          await c.connect(new StreamableHTTPClientTransport(new URL('/v1/expose/mcp', base), { requestInit: { headers: { ...r.mcp } } }));
        } else {
          await c.connect(new WebSocketTransport(await openSocket(wsUrl, { ...r.mcp })));
        }
        try {
          const found = JSON.stringify(await c.callTool({ name: 'query_knowledge', arguments: { query: ALL_WORDS, limit: 50 } }));
          for (const [name, re] of Object.entries(MARKERS)) {
            const mine = (r.sees as readonly string[]).includes(name);
            if (mine) assert.match(found, re, `${transport} ${r.who} finds ${name}`);
            else assert.doesNotMatch(found, re, `${transport} ${r.who} never sees ${name}`);
            const doc = await c.callTool({ name: 'get_document', arguments: { document_id: ids[name as keyof typeof MARKERS] } });
            if (mine) assert.match(JSON.stringify(doc), re, `${transport} ${r.who} reads ${name}`);
            else {
              assert.equal(doc.isError, true, `${transport} ${r.who}: ${name} is not found`);
              assert.match(JSON.stringify(doc), /not found/i);
              assert.doesNotMatch(JSON.stringify(doc), re);
            }
          }
        } finally {
          await c.close();
        }
      }
    }
  });

  it('MCP over WebSocket: ?act_as= for clients that cannot set headers; without act_as the upgrade is a 403', async () => {
    const base = await baseUrl();
    const wsUrl = `${base.replace(/^http/, 'ws')}/v1/expose/mcp/ws`;
    const c = new Client({ name: 'perm-test', version: '1' });
    await c.connect(new WebSocketTransport(await openSocket(`${wsUrl}?act_as=${encodeURIComponent('ada@acme.test')}`, { authorization: keys.actAs! })));
    try {
      assert.match(JSON.stringify(await c.callTool({ name: 'query_knowledge', arguments: { query: 'roadmap zephyr', limit: 20 } })), /zephyr/);
    } finally {
      await c.close();
    }
    const refused = await upgradeStatus(wsUrl, { authorization: keys.bob!, 'x-atrium-act-as': 'ada@acme.test' });
    assert.equal(refused.status, 403, refused.body);
    assert.equal((await upgradeStatus(`${wsUrl}?act_as=ada@acme.test`, { authorization: keys.service! })).status, 403);
    assert.equal((await upgradeStatus(`${wsUrl}?act_as=not-an-email`, { authorization: keys.actAs! })).status, 400);
    assert.equal((await upgradeStatus(`${wsUrl}?act_as=ada@acme.test`, { authorization: keys.actAs!, 'x-atrium-act-as': 'bob@acme.test' })).status, 400);
  });

  it('a membership removed at Slack disappears after the next sync', async () => {
    const channel = slack.channels.find((c) => c.id === 'C_SEC')!;
    channel.members = ['U_CAR'];
    assert.equal((await syncConnector(t, worker, slackId, false)).status, 'idle');
    assert.ok(!(await search({ authorization: keys.ada! })).includes(SECRET));
    const fed = await federate({ authorization: keys.ada! }, { query: 'roadmap zephyr', user_id: 'ada@acme.test' });
    assert.equal(fed.statusCode, 200, fed.body);
    assert.doesNotMatch(fed.body, /zephyr/, 'nor through federate (its cache is keyed by the view, which changed)');
    const me = (await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: keys.carol! } })).json();
    assert.deepEqual(me.view.vendor_groups, ['slack:C_SEC']);
    assert.ok((await search({ authorization: keys.carol! })).includes(SECRET), 'the hand mapping survives the sync');
  });
});
