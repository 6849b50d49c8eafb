import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeGitBook, startFakeGitBook } from '../fakes/gitbook.ts';
import { type KindHarness, kindHarness } from './support.ts';

describe('gitbook connector against the fake GitBook API', () => {
  let gb: FakeGitBook;
  let h: KindHarness;
  let id: string;
  before(async () => {
    gb = await startFakeGitBook(undefined, { pageSize: 1 });
    h = await kindHarness('gitbook', gb.url, { oauthClient: { client_id: 'gb-client', client_secret: 'gb-secret-0123456789', token_url: `${gb.origin}/oauth/token` } });
  });
  after(async () => {
    await h.close();
    await gb.close();
  });
  const calls = (from: number) => gb.fake.requests.slice(from);
  const all = [
    'page:sp-api:pg-auth',
    'page:sp-handbook:pg-escalation',
    'page:sp-handbook:pg-intro',
    'page:sp-handbook:pg-oncall',
    'page:sp-handbook:pg-secret',
    'page:sp-notes:pg-ideas',
    'space:sp-api',
    'space:sp-handbook',
    'space:sp-notes',
  ];

  it('refuses unknown settings, a URL for an id and a non-boolean include_hidden (400 naming the field)', async () => {
    const unknown = await h.create({ credentials: { access_token: gb.token }, settings: { collections: ['x'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*collections/);
    const url = await h.create({ credentials: { access_token: gb.token }, settings: { spaces: ['https://app.gitbook.com/s/sp-api'] } });
    assert.equal(url.statusCode, 400, url.body);
    assert.match(url.json().error.message, /settings\.spaces/);
    const bool = await h.create({ credentials: { access_token: gb.token }, settings: { include_hidden: 'yes' } });
    assert.equal(bool.statusCode, 400, bool.body);
    assert.match(bool.json().error.message, /settings\.include_hidden/);
  });

  it('a full sync pages organizations and spaces, reads each space revision and every document page as Markdown', async () => {
    const created = await h.create({ credentials: { access_token: gb.token } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await h.worker.drain();
    const connected = await h.get(id);
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(String(connected.status_reason), /ada@acme\.test/);
    const from = gb.fake.requests.length;
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await h.stored(id), all);
    const made = calls(from);
    assert.deepEqual(made.filter((r) => r.path === '/v1/orgs').map((r) => Boolean(r.query.page)), [false, true], 'two organizations, one a page');
    assert.deepEqual(made.filter((r) => r.path === '/v1/orgs/org-acme/spaces').map((r) => Boolean(r.query.page)), [false, true]);
    const pages = made.filter((r) => r.path.includes('/content/page/'));
    assert.equal(pages.length, 6, 'documents only: no group, no link');
    assert.ok(pages.every((r) => r.query.format === 'markdown'));
  });

  it('maps pages and spaces: Markdown text with its place in the tree, url, dates, space visibility as ACL', async () => {
    const intro = await h.doc(id, 'page:sp-handbook:pg-intro');
    assert.ok(intro);
    assert.equal(intro.title, 'Introduction');
    assert.equal(intro.content, 'Start here\n\nIn Engineering Handbook\n\n# Introduction\n\nWelcome to the **Acme** handbook.\n\nStart with the on-call guide.');
    assert.equal(intro.url, 'https://app.gitbook.com/s/sp-handbook/introduction');
    assert.equal(intro.document_type, 'page');
    assert.equal(new Date(String(intro.updated_at)).toISOString(), gb.page('sp-handbook', 'pg-intro').updatedAt);
    assert.deepEqual(intro.acl, { groups: ['gitbook:space:sp-handbook'] });
    const escalation = await h.doc(id, 'page:sp-handbook:pg-escalation');
    assert.equal(escalation?.content, 'In Engineering Handbook › Operations › On-call\n\nEscalate to the duty manager after 30 minutes.');
    assert.equal(escalation?.url, 'https://app.gitbook.com/s/sp-handbook/operations/on-call/escalation');
    assert.deepEqual((await h.doc(id, 'page:sp-api:pg-auth'))?.acl, { public: true });
    const space = await h.doc(id, 'space:sp-handbook');
    assert.equal(space?.content, 'GitBook space Engineering Handbook (Acme)\n\nPages:\n- Introduction\n- Operations › On-call\n- Operations › On-call › Escalation\n- Operations › Hidden notes');
    assert.deepEqual((await h.doc(id, 'space:sp-notes'))?.acl, { groups: ['gitbook:space:sp-notes'] }, 'unlisted is not public');
  });

  it('an incremental sync skips spaces whose revision did not move and reads only changed pages; removed pages are deleted', async () => {
    gb.edit('sp-handbook', (s) => {
      const oncall = s.pages[1]?.pages?.[0];
      assert.ok(oncall);
      oncall.markdown = '## Paging\n\n- Acknowledge within 2 minutes\n';
      oncall.updatedAt = gb.tick();
      s.pages = s.pages.filter((p) => p.id !== 'pg-intro');
    });
    const from = gb.fake.requests.length;
    const c = await h.sync(id, false);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual([c.sync_runs[0]?.added, c.sync_runs[0]?.updated, c.sync_runs[0]?.deleted], [0, 2, 1], 'the page and its space; the intro');
    const made = calls(from);
    assert.deepEqual(made.filter((r) => r.path.endsWith('/content')).map((r) => r.path), ['/v1/spaces/sp-handbook/content'], 'unchanged spaces are not read');
    assert.deepEqual(made.filter((r) => r.path.includes('/content/page/')).map((r) => r.path), ['/v1/spaces/sp-handbook/content/page/pg-oncall']);
    assert.match(String((await h.doc(id, 'page:sp-handbook:pg-oncall'))?.content), /within 2 minutes/);
    assert.equal(await h.doc(id, 'page:sp-handbook:pg-intro'), undefined);
  });

  it('a space that disappears is deleted with its pages by an incremental sync; a 429 waits for X-RateLimit-Reset', async () => {
    const side = gb.data.orgs[1];
    assert.ok(side);
    const notes = side.spaces.splice(0, 1);
    gb.fake.rateLimitNext(1, 1, (req) => req.path === '/v1/orgs');
    try {
      const c = await h.sync(id, false);
      assert.equal(c.sync_runs[0]?.status, 'completed');
      assert.equal(c.sync_runs[0]?.deleted, 2);
      assert.ok(Number(c.sync_runs[0]?.rate_limited_waits) >= 1);
      assert.equal(await h.doc(id, 'page:sp-notes:pg-ideas'), undefined);
    } finally {
      side.spaces.push(...notes);
    }
  });

  it('a vendor 5xx fails the attempt and is retried', async () => {
    gb.fake.failNext(1, 503, (req) => req.path.endsWith('/content'));
    await h.t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: h.t.admin });
    await h.worker.drain();
    const job = (await h.t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /GitBook answered HTTP 503/);
    await h.t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await h.worker.drain();
    assert.equal((await h.get(id)).sync_runs[0]?.status, 'completed');
    assert.ok((await h.stored(id)).includes('page:sp-notes:pg-ideas'));
  });

  it('a revoked token puts the connector in error with what GitBook said', async () => {
    gb.fake.revoke(gb.token);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /rejected the credentials: GitBook answered 401 .*invalid or expired token.*personal access token/);
    } finally {
      gb.fake.allow(gb.token);
    }
  });

  it('connects with OAuth: GitBook authorize URL and scopes, the token sent as Bearer', async () => {
    const created = await h.create({ settings: { spaces: ['sp-api'] } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://oauth.gitbook.com/authorize');
    assert.equal(u.searchParams.get('scope'), 'user:read organization:read space:read');
    const cb = await h.t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=gitbook-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const from = gb.fake.requests.length;
    const c = await h.sync(oauthId, true);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c));
    const made = calls(from);
    assert.ok(made.length > 0 && made.every((r) => r.token?.startsWith('gb_oauth_')), JSON.stringify(made[0]));
    assert.deepEqual(await h.stored(oauthId), ['page:sp-api:pg-auth', 'space:sp-api']);
  });

  it('is in the catalogue as productivity with OAuth 2.0 and a personal access token', async () => {
    const cat = (await h.t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: h.t.admin })).json();
    const entry = cat.connectors.find((c: { connector_type: string }) => c.connector_type === 'gitbook');
    assert.equal(entry?.group, 'productivity');
    assert.deepEqual(entry?.auth_types, ['oauth2', 'api_key']);
    assert.equal(entry?.oauth, true);
  });
});
