import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeGuru, startFakeGuru } from '../fakes/guru.ts';
import { type KindHarness, kindHarness } from './support.ts';

describe('guru connector against the fake Guru API', () => {
  let guru: FakeGuru;
  let h: KindHarness;
  let id: string;
  before(async () => {
    guru = await startFakeGuru(undefined, { pageSize: 2 });
    h = await kindHarness('guru', guru.url, { oauthClient: { client_id: 'guru-client', client_secret: 'guru-secret-0123456789', token_url: `${guru.origin}/oauth/token` } });
  });
  after(async () => {
    await h.close();
    await guru.close();
  });
  const credentials = () => ({ username: guru.email, api_token: guru.token });
  const expectedIds = () => [...guru.data.collections.map((c) => `collection:${c.id}`), ...guru.data.cards.filter((c) => !c.archived).map((c) => `card:${c.id}`)].sort();
  const calls = (from: number) => guru.fake.requests.slice(from);

  it('refuses a token without its username, unknown settings and a malformed collection id (400 naming the field)', async () => {
    const noUser = await h.create({ credentials: { api_token: guru.token } });
    assert.equal(noUser.statusCode, 400, noUser.body);
    assert.match(noUser.json().error.message, /credentials\.username/);
    const unknown = await h.create({ credentials: credentials(), settings: { boards: ['x'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*boards/);
    const bad = await h.create({ credentials: credentials(), settings: { collections: ['Engineering Team!'] } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().error.message, /settings\.collections/);
  });

  it('a full sync reads the collections and every card page by page (Link rel="next-page"), Basic auth', async () => {
    const created = await h.create({ credentials: credentials() });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await h.worker.drain();
    const connected = await h.get(id);
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(String(connected.status_reason), /ada@acme\.test \(Acme\)/);
    const from = guru.fake.requests.length;
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await h.stored(id), expectedIds());
    const made = calls(from);
    assert.ok(made.every((r) => r.token === `${guru.email}:${guru.token}`), 'HTTP Basic email:token');
    const search = made.filter((r) => r.path === '/api/v1/search/query');
    assert.deepEqual(search.map((r) => Boolean(r.query.token)), [false, true, true], '5 cards in pages of 2');
    assert.equal(search[0]?.query.q, undefined, 'a full sync asks for every card');
    assert.deepEqual(made.filter((r) => r.path === '/api/v1/collections').map((r) => Boolean(r.query.token)), [false, true]);
  });

  it('maps cards: HTML as text under its collection and boards, url, owner email, dates, collection ACL', async () => {
    const deploy = await h.doc(id, 'card:c1a2b3c4-0001');
    assert.ok(deploy);
    assert.equal(deploy.title, 'Deploying to production');
    const content = String(deploy.content);
    assert.ok(content.startsWith('In Engineering › Runbooks\nTags: deploy, ops\nVerification: trusted\n\n'), content);
    assert.match(content, /Steps/);
    assert.match(content, /Merge to main/);
    assert.match(content, /Rollbacks: see the runbook\./);
    assert.doesNotMatch(content, /<\w+/);
    assert.equal(deploy.url, 'https://app.getguru.com/card/c1a2b3c4/Deploying-to-production');
    assert.equal(deploy.author, 'ada@acme.test');
    assert.equal(deploy.document_type, 'card');
    assert.equal(new Date(String(deploy.created_at)).toISOString(), '2025-07-01T09:00:00.000Z');
    assert.equal(new Date(String(deploy.updated_at)).toISOString(), '2025-07-01T09:05:00.000Z');
    assert.deepEqual(deploy.acl, { groups: ['guru:collection:col-eng'] });
    assert.deepEqual((await h.doc(id, 'card:c1a2b3c4-0003'))?.acl, { public: true }, 'an external collection');
    assert.deepEqual((await h.doc(id, 'card:c1a2b3c4-0004'))?.acl, { public: true }, 'a public card where public cards are enabled');
    assert.deepEqual((await h.doc(id, 'card:c1a2b3c4-0005'))?.acl, { groups: ['guru:collection:col-sales'] });
    assert.equal((await h.doc(id, 'card:c1a2b3c4-0002'))?.author, 'grace@acme.test');
    const col = await h.doc(id, 'collection:col-eng');
    assert.equal(col?.content, 'Guru collection Engineering\n\nHow we build things.');
    assert.equal(await h.doc(id, 'card:c1a2b3c4-0006'), undefined, 'archived cards are not synced');
  });

  it('an incremental sync asks for cards with lastModified >= the last run and stores only those', async () => {
    const added = guru.addCard('col-sales', 'Renewal playbook', '<p>Call 90 days before.</p>');
    const from = guru.fake.requests.length;
    const c = await h.sync(id, false);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual([c.sync_runs[0]?.added, c.sync_runs[0]?.updated], [1, 0]);
    const search = calls(from).filter((r) => r.path === '/api/v1/search/query');
    assert.equal(search.length, 1);
    assert.match(String(search[0]?.query.q), /^lastModified >= \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    assert.ok((await h.stored(id)).includes(`card:${added.id}`));
  });

  it('an archived card is removed by the full sync; a collection that disappears is removed with its cards by an incremental one', async () => {
    guru.card('c1a2b3c4-0002').archived = true;
    const full = await h.sync(id, true);
    assert.equal(full.sync_runs[0]?.deleted, 1);
    const sales = guru.data.collections.splice(2, 1);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.sync_runs[0]?.status, 'completed');
      assert.equal(c.sync_runs[0]?.deleted, 4, 'the collection and its 3 cards');
      assert.deepEqual((await h.stored(id)).filter((x) => x.includes('sales') || x.includes('-0004')), []);
    } finally {
      guru.data.collections.push(...sales);
    }
  });

  it('a collection token reads its own collection only', async () => {
    const created = await h.create({ credentials: { username: 'col-eng', api_token: 'col-eng-token-1234' } });
    assert.equal(created.statusCode, 201, created.body);
    const cid = created.json().connector_id;
    await h.worker.drain();
    const c = await h.sync(cid, true);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c));
    assert.deepEqual(await h.stored(cid), ['card:c1a2b3c4-0001', 'collection:col-eng']);
  });

  it('a vendor 5xx fails the attempt and is retried', async () => {
    guru.fake.failNext(1, 500, (req) => req.path === '/api/v1/search/query');
    await h.t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: h.t.admin });
    await h.worker.drain();
    const job = (await h.t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Guru answered HTTP 500/);
    await h.t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await h.worker.drain();
    assert.equal((await h.get(id)).sync_runs[0]?.status, 'completed');
    assert.deepEqual(await h.stored(id), expectedIds());
  });

  it('a revoked token puts the connector in error with what Guru said', async () => {
    guru.fake.revoke(`${guru.email}:${guru.token}`);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /rejected the credentials: Guru answered 401 .*Unauthorized.*user token/);
    } finally {
      guru.fake.allow(`${guru.email}:${guru.token}`);
    }
  });

  it('connects with OAuth: Guru authorize URL and read:* scope, the token sent as Bearer', async () => {
    const created = await h.create({ settings: { collections: ['col-help'] } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://api.getguru.com/oauth/authorize');
    assert.equal(u.searchParams.get('scope'), 'read:*');
    const cb = await h.t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=guru-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const from = guru.fake.requests.length;
    const c = await h.sync(oauthId, true);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c));
    const made = calls(from);
    assert.ok(made.length > 0 && made.every((r) => r.token?.startsWith('guru_oauth_')), JSON.stringify(made[0]));
    assert.deepEqual(await h.stored(oauthId), ['card:c1a2b3c4-0003', 'collection:col-help']);
  });

  it('is in the catalogue as productivity with OAuth 2.0 and user/collection tokens', async () => {
    const cat = (await h.t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: h.t.admin })).json();
    const entry = cat.connectors.find((c: { connector_type: string }) => c.connector_type === 'guru');
    assert.equal(entry?.group, 'productivity');
    assert.deepEqual(entry?.auth_types, ['oauth2', 'api_key']);
    assert.equal(entry?.oauth, true);
  });
});
