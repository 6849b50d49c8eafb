import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { API_TOKEN, CLOUD_ID, EMAIL, type FakeConfluence, OAUTH_TOKEN, SITE, startFakeConfluence } from '../fakes/confluence.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker, storedDocument, storedIds as storedIdsOf, syncConnector } from './support.ts';

describe('confluence connector against the fake Confluence Cloud API', () => {
  let t: TestApp;
  let cf: FakeConfluence;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    cf = await startFakeConfluence();
    t = await createTestApp({
      clock,
      env: {
        ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ confluence: cf.url }),
        ATRIUM_SYNC_SCHEDULER: 'false',
        ATRIUM_OAUTH_CLIENTS: JSON.stringify({ confluence: { client_id: 'cf-client', client_secret: 'cf-secret' } }),
      },
    });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await cf.close();
  });

  const d = () => cf.data;
  const live = (cid: string) => d().contents.some((c) => c.id === cid && c.status === 'current');
  const expectedIds = () =>
    [
      ...d().contents.filter((c) => c.status === 'current').map((c) => `${c.kind}:${c.id}`),
      ...d().comments.filter((c) => c.status === 'current' && live(c.containerId)).map((c) => `comment:${c.id}`),
    ].sort();
  const storedIds = async (cid = id) => storedIdsOf(t.db, cid);
  const doc = async (externalId: string) => storedDocument(t.db, id, externalId);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'confluence', display_name: 'Confluence', ...payload } });
  const get = async (cid = id) => (await t.app.inject({ method: 'GET', url: `/v1/connectors/${cid}`, headers: t.admin })).json();
  const byTitle = (title: string) => {
    const c = d().contents.find((x) => x.title === title);
    assert.ok(c, title);
    return c;
  };

  it('a full sync (API token) stores pages, blog posts, comments with replies and attachment names, following cursors', async () => {
    const r = await create({ credentials: { email: EMAIL, api_token: API_TOKEN }, settings: { site_url: `${SITE}/` } });
    assert.equal(r.statusCode, 201, r.body);
    id = r.json().connector_id;
    await worker.drain();
    const connected = await get();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /ada@acme\.test@acme\.atlassian\.net/);
    assert.equal(connected.settings.site_url, SITE, 'stored without the trailing slash');
    const c = await syncConnector(t, worker, id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await storedIds(), expectedIds());
    // 30 ENG pages in lists of 25: the second list request carried the cursor of `_links.next`.
    assert.ok(cf.fake.requestsTo('/wiki/api/v2/spaces/65537/pages').some((x) => x.query.cursor && x.query['body-format'] === 'storage'));
    assert.ok(cf.fake.requests.every((x) => x.token === `${EMAIL}:${API_TOKEN}`), 'HTTP Basic email:api_token on every call');
  });

  it('maps a page: storage format as text, attachments, url, author, dates, space ACL', async () => {
    const runbook = byTitle('Deploy runbook');
    const row = await doc(`page:${runbook.id}`);
    assert.ok(row);
    assert.equal(row.title, 'Deploy runbook');
    const content = String(row.content);
    assert.match(content, /^# Deploy/);
    assert.match(content, /Ask @Grace Hopper before a release\./);
    assert.match(content, /npm run deploy --canary/);
    assert.match(content, /Attachments: topology\.png, rollback-checklist\.pdf$/);
    assert.doesNotMatch(content, /<|ac:|ri:|\{"/);
    assert.equal(row.url, `${SITE}/wiki/spaces/65537/pages/${runbook.id}`);
    assert.equal(row.author, 'Ada Lovelace');
    assert.equal(row.document_type, 'page');
    assert.equal(new Date(String(row.created_at)).toISOString(), runbook.createdAt);
    assert.equal(new Date(String(row.updated_at)).toISOString(), runbook.version.createdAt);
    const meta = row.metadata as Record<string, unknown>;
    assert.equal(meta.space_key, 'ENG');
    assert.equal(meta.author_email, 'ada@acme.test');
    assert.deepEqual((meta.attachments as { title: string }[]).map((a) => a.title), ['topology.png', 'rollback-checklist.pdf']);
    assert.deepEqual(row.acl, { users: ['confluence:5b10a2844c20165700ede21g'], groups: ['confluence:g-eng-1', 'confluence:space:65537'] });
  });

  it('maps blog posts, comments (footer, reply, inline), page restrictions and public spaces', async () => {
    const blog = await doc(`blogpost:${byTitle('Q1 retro').id}`);
    assert.equal(blog?.document_type, 'blogpost');
    assert.equal(blog?.author, 'Grace Hopper');
    assert.equal(blog?.content, 'We shipped the search rewrite.');
    const runbook = byTitle('Deploy runbook');
    const [top, reply, inline] = d().comments.filter((c) => c.containerId === runbook.id);
    assert.ok(top && reply && inline);
    const replyDoc = await doc(`comment:${reply.id}`);
    assert.equal(replyDoc?.document_type, 'comment');
    assert.equal(replyDoc?.title, 'Comment on Deploy runbook');
    assert.equal(replyDoc?.content, 'Yes, deploy.canary.');
    assert.equal((replyDoc?.metadata as Record<string, unknown> | undefined)?.parent_comment_id, top.id);
    assert.deepEqual(replyDoc?.acl, (await doc(`page:${runbook.id}`))?.acl, 'a comment carries its page ACL');
    const inlineDoc = await doc(`comment:${inline.id}`);
    assert.equal(inlineDoc?.content, '> before a release\n\nLink the dashboard here.');
    assert.equal((inlineDoc?.metadata as Record<string, unknown> | undefined)?.comment_type, 'inline');
    assert.deepEqual((await doc(`page:${byTitle('ENG note 7').id}`))?.acl, { users: ['ada@acme.test'], groups: ['confluence:g-sec-3'] });
    assert.deepEqual((await doc(`page:${byTitle('Getting started').id}`))?.acl, { public: true, groups: ['confluence:g-all-2', 'confluence:space:98305'] });
    assert.equal(await doc(`page:${byTitle('Old draft').id}`), undefined, 'trashed pages are not indexed');
  });

  it('synced pages are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'canary deploy runbook', mode: 'lexical' } });
    assert.equal(r.statusCode, 200, r.body);
    assert.ok(r.json().passages.some((p: { external_id: string }) => p.external_id === `page:${byTitle('Deploy runbook').id}`), r.body);
  });

  it('an incremental sync asks CQL for what changed, applies edits and new comments, and removes trashed pages with their comments', async () => {
    const note = byTitle('ENG note 3');
    cf.edit(note, { title: 'ENG note 3 (revised)', body: '<p>Revised after the incident review.</p>' });
    const fresh = cf.addContent('blogpost', 'ENG', 'Release notes 2.0', '<p>Dark mode and faster search.</p>');
    const comment = cf.addComment('inline', byTitle('Getting started'), '<p>Which CLI version?</p>');
    const runbook = byTitle('Deploy runbook');
    const runbookComments = d().comments.filter((c) => c.containerId === runbook.id).map((c) => `comment:${c.id}`);
    runbook.status = 'trashed';
    cf.fake.requests.length = 0;
    const c = await syncConnector(t, worker, id, false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [2, 1, 1 + runbookComments.length]);
    const search = cf.fake.requestsTo('/wiki/rest/api/search');
    assert.equal(search.length, 1);
    assert.match(search[0]?.query.cql ?? '', /^type in \(page,blogpost,comment\) and lastmodified >= now\("-\d+m"\) order by lastmodified asc$/);
    assert.ok(cf.fake.requestsTo('/wiki/api/v2/spaces/65537/pages').some((x) => x.query.status === 'trashed'));
    assert.equal(cf.fake.requestsTo(/\/(footer|inline)-comments$/).length, 0, 'no comment listings: changed comments come from CQL');
    assert.equal((await doc(`page:${note.id}`))?.title, 'ENG note 3 (revised)');
    assert.equal((await doc(`blogpost:${fresh.id}`))?.content, 'Dark mode and faster search.');
    assert.equal((await doc(`comment:${comment.id}`))?.title, 'Comment on Getting started');
    for (const x of [`page:${runbook.id}`, ...runbookComments]) assert.equal(await doc(x), undefined, x);
    assert.deepEqual(await storedIds(), expectedIds());
  });

  it('a vendor 5xx fails the run part-way without losing stored documents; the retry resumes and completes', async () => {
    const before = await storedIds();
    // The second list of ENG pages (a cursor request) answers 500 after the first list was committed.
    cf.fake.failNext(1, 500, (req) => req.path === '/wiki/api/v2/spaces/65537/pages' && req.query.has('cursor'));
    await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    await worker.drain();
    assert.deepEqual(await storedIds(), before, 'nothing stored was removed by the failed full sync');
    const job = await t.db.query<{ status: string; last_error: string }>("SELECT status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1");
    assert.equal(job.rows[0]?.status, 'queued', 'retried with backoff');
    assert.match(job.rows[0]?.last_error ?? '', /Confluence answered HTTP 500/);
    await t.db.query("UPDATE jobs SET run_at = now() WHERE kind = 'connector.sync' AND status = 'queued'");
    await worker.drain();
    const c = await get();
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.deepEqual(await storedIds(), expectedIds());
  });

  it('the spaces setting limits the sync to those spaces (and CQL to them); a space it cannot read is a settings error', async () => {
    const r = await create({ credentials: { email: EMAIL, api_token: API_TOKEN }, settings: { site_url: SITE, spaces: ['DOCS'], include_comments: false } });
    const docsOnly = r.json().connector_id as string;
    await worker.drain();
    await syncConnector(t, worker, docsOnly, true);
    const ids = await storedIds(docsOnly);
    assert.deepEqual(ids, [`page:${byTitle('Getting started').id}`]);
    cf.fake.requests.length = 0;
    await syncConnector(t, worker, docsOnly, false);
    assert.match(cf.fake.requestsTo('/wiki/rest/api/search')[0]?.query.cql ?? '', /^type in \(page,blogpost\) and .* and space in \("DOCS"\) order by/);

    const bad = await create({ credentials: { email: EMAIL, api_token: API_TOKEN }, settings: { site_url: SITE, spaces: ['NOPE'] } });
    await worker.drain();
    const c = await syncConnector(t, worker, bad.json().connector_id, true);
    assert.equal(c.status, 'error', JSON.stringify(c));
    assert.match(c.status_reason, /settings are invalid: settings\.spaces names spaces .*: NOPE/);
  });

  it('refuses unknown settings keys, a bad site URL and an API token without site_url', async () => {
    const unknown = await create({ credentials: { email: EMAIL, api_token: API_TOKEN }, settings: { site_url: SITE, space_keys: ['ENG'] } });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.body, /space_keys/);
    const badUrl = await create({ credentials: { email: EMAIL, api_token: API_TOKEN }, settings: { site_url: 'http://acme.atlassian.net?x=1' } });
    assert.equal(badUrl.statusCode, 400);
    assert.match(badUrl.json().error.message, /settings\.site_url/);
    const half = await create({ credentials: { email: EMAIL }, settings: { site_url: SITE } });
    assert.equal(half.statusCode, 400);
    assert.match(half.body, /api_token/);
    const noSite = await create({ credentials: { email: EMAIL, api_token: API_TOKEN } });
    assert.equal(noSite.statusCode, 201);
    await worker.drain();
    const c = await get(noSite.json().connector_id);
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /site_url is required with an API token/);
  });

  it('OAuth: the catalogue and authorize URL follow Atlassian 3LO; an OAuth token finds its cloudId and syncs through the gateway', async () => {
    const cat = (await t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: t.admin })).json();
    const entry = cat.connectors.find((x: { connector_type: string }) => x.connector_type === 'confluence');
    assert.deepEqual([entry.group, entry.category, entry.auth_types, entry.oauth], ['productivity', 'document_workspace', ['oauth2', 'api_key'], true]);
    assert.ok(entry.settings_schema.properties.site_url.description);

    const pending = await create({ credentials: {} });
    assert.equal(pending.statusCode, 201, pending.body);
    const pendingId = pending.json().connector_id as string;
    const u = await t.app.inject({ method: 'GET', url: `/v1/connectors/confluence/oauth-url?connector_id=${pendingId}`, headers: t.admin });
    assert.equal(u.statusCode, 200, u.body);
    const url = new URL(u.json().url);
    assert.equal(`${url.origin}${url.pathname}`, 'https://auth.atlassian.com/authorize');
    assert.equal(url.searchParams.get('audience'), 'api.atlassian.com');
    assert.equal(url.searchParams.get('prompt'), 'consent');
    assert.ok(url.searchParams.get('scope')?.split(' ').includes('offline_access'));

    const r = await create({ credentials: { access_token: OAUTH_TOKEN }, settings: { include_comments: false, include_restrictions: false } });
    const oauthId = r.json().connector_id as string;
    await worker.drain();
    const c = await get(oauthId);
    assert.equal(c.status, 'connected', JSON.stringify(c));
    assert.equal(c.settings.cloud_id, CLOUD_ID, 'the cloudId validate() discovered joined the settings');
    assert.equal(c.settings.site_url, SITE);
    cf.fake.requests.length = 0;
    const synced = await syncConnector(t, worker, oauthId, true);
    assert.equal(synced.status, 'idle', JSON.stringify(synced));
    assert.ok(cf.fake.requests.length > 0 && cf.fake.requests.every((x) => x.path.startsWith(`/ex/confluence/${CLOUD_ID}/wiki/`) && x.token === OAUTH_TOKEN));
    const rows = await t.db.query<{ url: string }>("SELECT url FROM documents WHERE source_node = $1 AND external_id LIKE 'page:%' LIMIT 1", [oauthId]);
    assert.ok(rows.rows[0]?.url.startsWith(`${SITE}/wiki/`), 'links point at the site, not the gateway');
  });

  it('a revoked API token puts the connector in error with what Confluence said', async () => {
    cf.fake.revoke(`${EMAIL}:${API_TOKEN}`);
    try {
      const c = await syncConnector(t, worker, id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /the vendor rejected the credentials: Confluence answered 401 .*Unauthorized.*use an API token with its account email/);
    } finally {
      cf.fake.allow(`${EMAIL}:${API_TOKEN}`);
    }
  });
});
