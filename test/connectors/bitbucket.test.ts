import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bitbucketSignature } from '../../src/connectors/bitbucket/index.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type BBRepo, type BBUser, type FakeBitbucket, seedBitbucket, startFakeBitbucket } from '../fakes/bitbucket.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

const bare = (uuid: string) => uuid.replace(/^\{|\}$/g, '');

describe('bitbucket connector against the fake Bitbucket Cloud REST 2.0 API', () => {
  let t: TestApp;
  let bb: FakeBitbucket;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Pages of at most 2 values: a few documents, many `next` links.
    bb = await startFakeBitbucket(seedBitbucket({ prsPerRepo: 3 }), { pagelen: 2 });
    ({ t, worker } = await kindHarness('bitbucket', bb.url, { clock, oauthClient: { client_id: 'bb-key', client_secret: 'bb-secret-0123456789', token_url: `${bb.url}/site/oauth2/access_token` } }));
  });
  after(async () => {
    await t.close();
    await bb.close();
  });

  const d = () => bb.data;
  const repo = (slug: string) => {
    const r = d().repos.find((x) => x.slug === slug);
    assert.ok(r, slug);
    return r;
  };
  const api = () => repo('api');
  const site = () => repo('website');
  const expectedIds = () =>
    d()
      .repos.flatMap((r) => [
        `repository:${bare(r.uuid)}`,
        ...(r.files['README.md'] ? [`readme:${bare(r.uuid)}`] : []),
        ...r.pullrequests.map((p) => `pr:${bare(r.uuid)}:${p.id}`),
        ...(r.has_issues ? r.issues.map((i) => `issue:${bare(r.uuid)}:${i.id}`) : []),
      ])
      .sort();
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const prId = (r: BBRepo, n: number) => `pr:${bare(r.uuid)}:${n}`;
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'bitbucket', display_name: 'Bitbucket', ...payload } });
  const creds = () => ({ username: bb.username, app_password: bb.appPassword });

  it('refuses unknown settings keys, bad workspace and repository names, and an app password without its username (400 naming the field)', async () => {
    const unknown = await create({ credentials: creds(), settings: { projects: ['x'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*projects/);
    const ws = await create({ credentials: creds(), settings: { workspaces: ['Acme Corp'] } });
    assert.equal(ws.statusCode, 400);
    assert.match(ws.json().error.message, /settings\.workspaces/);
    const rp = await create({ credentials: creds(), settings: { repositories: ['api'] } });
    assert.equal(rp.statusCode, 400);
    assert.match(rp.json().error.message, /settings\.repositories/);
    const lonely = await create({ credentials: { app_password: bb.appPassword } });
    assert.equal(lonely.statusCode, 400);
    assert.match(lonely.json().error.message, /credentials\.username/);
  });

  it('a full sync finds the workspaces and stores repositories, READMEs, pull requests and issues, following next links', async () => {
    const created = await create({ credentials: creds() });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /Ada Lovelace/);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    assert.equal(bb.fake.requestsTo('/2.0/user/workspaces').length, 1, 'workspaces from GET /2.0/user/workspaces');
    assert.equal(bb.fake.requestsTo('/2.0/workspaces').length, 0, 'never the removed GET /2.0/workspaces');
    const prs = bb.listings.filter((l) => l.path.endsWith('/pullrequests'));
    assert.ok(prs.length >= 2 && prs.every((l) => l.states.join() === 'OPEN,MERGED,DECLINED' && l.sort === '-updated_on' && l.q === null), JSON.stringify(prs));
    assert.ok(bb.fake.requests.some((r) => r.path === '/2.0/repositories/acme/api/pullrequests' && r.query.page === '2'), 'second page through the next link');
    assert.deepEqual(bb.listings.filter((l) => l.path.endsWith('/issues')).map((l) => l.path), ['/2.0/repositories/acme/api/issues'], 'issues only where the tracker is on');
    assert.equal(await doc(`readme:${bare(site().uuid)}`), undefined, 'no README.md: no readme document');
  });

  it('maps a pull request: "PR #n: title", description and comments as text, html link, account author, private repository ACL', async () => {
    const row = await doc(prId(api(), 1));
    assert.ok(row);
    assert.equal(row.title, 'PR #1: api: change 1');
    assert.equal(row.url, 'https://bitbucket.org/acme/api/pull-requests/1');
    assert.equal(row.document_type, 'pull_request');
    assert.equal(row.author, 'bitbucket:557058:grace-0002');
    const content = String(row.content);
    for (const part of ['This **change** fixes item 1 of api.', 'State: MERGED', 'Branches: feature/1 → main', 'Ada Lovelace (2026-01-05', 'Looks good, one nit below.', 'Ada Lovelace on src/index.ts:12', 'Rename this variable.']) {
      assert.ok(content.includes(part), `${part} in ${content}`);
    }
    assert.ok(!content.includes('Removed comment'), 'deleted comments are left out');
    assert.ok(!content.includes('"raw"'), 'text, not JSON');
    assert.equal(new Date(String(row.created_at)).toISOString(), '2026-01-05T09:01:00.000Z');
    assert.deepEqual(row.acl, { groups: [`bitbucket:repo:${bare(api().uuid)}`] });
    const issue = await doc(`issue:${bare(api().uuid)}:1`);
    assert.equal(issue?.title, 'Issue #1: Crash when the config file is empty');
    assert.equal(issue?.url, 'https://bitbucket.org/acme/api/issues/1');
    assert.match(String(issue?.content), /^Steps:\n\n1\. empty `config\.yml`\n2\. start\n\nKind: bug\nState: new\nPriority: major\nAssignee: Grace Hopper\nReporter: Ada Lovelace\n\nComments:\n\nGrace Hopper \(.*\):\nReproduced on 2\.3\.$/);
    const readme = await doc(`readme:${bare(api().uuid)}`);
    assert.deepEqual([readme?.title, readme?.url, readme?.document_type], ['acme/api: README.md', 'https://bitbucket.org/acme/api/src/main/README.md', 'readme']);
    assert.match(String(readme?.content), /^# API\n\nThe public API of Acme\./);
    const pub = await doc(`repository:${bare(site().uuid)}`);
    assert.deepEqual([pub?.title, pub?.url, pub?.document_type], ['acme/website', 'https://bitbucket.org/acme/website', 'repository']);
    assert.deepEqual(pub?.acl, { public: true });
    assert.deepEqual((await doc(prId(site(), 2)))?.acl, { public: true });
  });

  it('documents are searchable and filterable by connector_type', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'crash config file empty reproduced', mode: 'lexical', filters: { connector_types: ['bitbucket'] } } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, `issue:${bare(api().uuid)}:1`);
    const other = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'crash config file empty reproduced', mode: 'lexical', filters: { connector_types: ['intercom'] } } });
    assert.equal(other.json().passages.length, 0, other.body);
  });

  it('an incremental sync asks updated_on >= the cursor and applies new comments, new issues and a pushed README', async () => {
    const cursor = (await t.db.query<{ sync_cursor: { since: string } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.ok(cursor?.since);
    const pr = api().pullrequests.find((p) => p.id === 2);
    assert.ok(pr);
    const at = bb.tick();
    pr.comments.push({ id: 7777, raw: 'Ship it after the freeze.', user: d().me, created_on: at });
    pr.updated_on = at;
    const t2 = bb.tick();
    api().issues.push({ id: 2, title: 'Docs typo', raw: 'teh → the', state: 'open', kind: 'task', priority: 'trivial', reporter: d().me, assignee: null, created_on: t2, updated_on: t2, comments: [] });
    site().files['README.md'] = '# Website\n\nMarketing site.';
    site().updated_on = bb.tick();
    bb.listings.length = 0;
    const before = bb.fake.requests.length;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    // Added: the issue and the README; updated: the pull request and the pushed repository.
    assert.deepEqual([run.added, run.updated, run.deleted], [2, 2, 0]);
    const literal = new Date(Math.floor(Date.parse(cursor.since) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    assert.ok(bb.listings.length > 0 && bb.listings.every((l) => l.q === `updated_on >= ${literal}`), JSON.stringify(bb.listings));
    const readmes = bb.fake.requests.slice(before).filter((r) => r.path.includes('/src/')).map((r) => r.path);
    assert.deepEqual(readmes, ['/2.0/repositories/acme/website/src/main/README.md'], 'only the pushed repository README is re-read');
    assert.match(String((await doc(prId(api(), 2)))?.content), /Ship it after the freeze\./);
    assert.equal((await doc(`issue:${bare(api().uuid)}:2`))?.title, 'Issue #2: Docs typo');
    assert.equal((await doc(`readme:${bare(site().uuid)}`))?.content, '# Website\n\nMarketing site.');
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry resumes the full sync from its page', async () => {
    const before = await stored();
    const failing = (path: string, page: string | null) => bb.fake.requests.filter((r) => r.path === path && (r.query.page ?? null) === page).length;
    const listing = '/2.0/repositories/acme/api/pullrequests';
    const firstPages = failing(listing, null);
    bb.fake.failNext(1, 502, (req) => req.path === listing && req.query.get('page') === '2');
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Bitbucket answered HTTP 502/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
    assert.equal(failing(listing, null) - firstPages, 1, 'page one once: the retry resumed at the failed next link');
  });

  it('a full sync removes a deleted issue (an incremental sync cannot see it)', async () => {
    const gone = api().issues.shift();
    assert.ok(gone);
    await sync(false);
    assert.ok(await doc(`issue:${bare(api().uuid)}:${gone.id}`), 'still stored after an incremental sync');
    const c = await sync(true);
    assert.equal(c.sync_runs[0].deleted, 1);
    assert.deepEqual(await stored(), expectedIds());
  });

  describe('webhooks', () => {
    let secret: string;
    let path: string;
    before(async () => {
      const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook`, headers: t.admin });
      assert.equal(r.statusCode, 201, r.body);
      secret = r.json().secret;
      path = new URL(r.json().delivery_url).pathname;
      assert.ok(r.json().events.includes('pullrequest:fulfilled') && r.json().events.includes('repo:push'));
    });
    const repoPayload = (r: BBRepo) => ({ type: 'repository', full_name: `${r.workspace}/${r.slug}`, uuid: r.uuid, is_private: r.is_private, name: r.name });
    const deliver = (event: string, payload: unknown, signature?: string) => {
      const body = JSON.stringify(payload);
      return t.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/json', 'x-event-key': event, 'x-request-uuid': 'b7f7d5e3-0000-4000-8000-000000000001', 'x-hub-signature': signature ?? bitbucketSignature(secret, body) },
        payload: body,
      });
    };

    it('while paused, a delivery is ignored and named by its X-Event-Key', async () => {
      await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/pause`, headers: t.admin });
      try {
        const r = await deliver('pullrequest:created', { repository: repoPayload(api()), pullrequest: { id: 1 } });
        assert.deepEqual(r.json(), { status: 'ignored', event: 'pullrequest:created', reason: 'connector is paused' });
      } finally {
        await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/resume`, headers: t.admin });
      }
    });

    it('pull request events re-read the pull request and its comments (the payload may be stale)', async () => {
      const pr = api().pullrequests.find((p) => p.id === 3);
      assert.ok(pr);
      pr.state = 'MERGED';
      pr.updated_on = bb.tick();
      pr.comments.push({ id: 8888, raw: 'Merged after review.', user: d().me as BBUser, created_on: pr.updated_on });
      const r = await deliver('pullrequest:fulfilled', { actor: {}, repository: repoPayload(api()), pullrequest: { id: 3, title: 'stale title', state: 'OPEN' } });
      assert.equal(r.statusCode, 202, r.body);
      assert.deepEqual(r.json(), { status: 'applied', event: 'pullrequest:fulfilled', upserted: 1, deleted: 0 });
      const row = await doc(prId(api(), 3));
      assert.match(String(row?.content), /State: MERGED/);
      assert.match(String(row?.content), /Merged after review\./);
    });

    it('issue events re-read the issue; repo:push re-reads the repository and its README', async () => {
      const i = api().issues[0];
      assert.ok(i);
      i.title = 'Docs typo on the landing page';
      i.updated_on = bb.tick();
      const ri = await deliver('issue:updated', { repository: repoPayload(api()), issue: { id: i.id } });
      assert.equal(ri.json().upserted, 1, ri.body);
      assert.equal((await doc(`issue:${bare(api().uuid)}:${i.id}`))?.title, 'Issue #2: Docs typo on the landing page');
      api().files['README.md'] = '# API v2\n\nNow with retries.';
      api().updated_on = bb.tick();
      const rp = await deliver('repo:push', { repository: repoPayload(api()), push: { changes: [{ new: { type: 'branch', name: 'main' } }] } });
      assert.deepEqual(rp.json(), { status: 'applied', event: 'repo:push', upserted: 2, deleted: 0 });
      assert.equal((await doc(`readme:${bare(api().uuid)}`))?.content, '# API v2\n\nNow with retries.');
    });

    it('ignores a repository the account cannot read and rejects a missing or wrong signature', async () => {
      const other = await deliver('pullrequest:created', { repository: { full_name: 'elsewhere/tool', uuid: '{x}' }, pullrequest: { id: 1 } });
      assert.deepEqual(other.json(), { status: 'ignored', event: 'pullrequest:created', reason: 'event carries no documents' });
      const payload = { repository: repoPayload(api()), pullrequest: { id: 1 } };
      const bad = await deliver('pullrequest:updated', payload, bitbucketSignature('not-the-secret', JSON.stringify(payload)));
      assert.equal(bad.statusCode, 401);
      assert.equal(bad.json().error.code, 'invalid_signature');
      const unsigned = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/json', 'x-event-key': 'repo:push' }, payload: JSON.stringify(payload) });
      assert.equal(unsigned.statusCode, 401);
      assert.match(unsigned.json().error.message, /X-Hub-Signature/);
    });
  });

  it('a revoked app password puts the connector in error with what Bitbucket said', async () => {
    bb.fake.revoke(`${bb.username}:${bb.appPassword}`);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: Bitbucket answered 401 .*Access token expired or invalid.*app password/);
    } finally {
      bb.fake.allow(`${bb.username}:${bb.appPassword}`);
    }
  });

  it('connects with OAuth: the Bitbucket authorize URL and scopes, then Bearer calls', async () => {
    const created = await create({ settings: { repositories: ['acme/website'], include_readme: false } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://bitbucket.org/site/oauth2/authorize');
    assert.equal(u.searchParams.get('scope'), 'repository pullrequest issue account');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=bitbucket-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = bb.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    const calls = bb.fake.requests.slice(before).filter((r) => r.path.startsWith('/2.0/'));
    assert.ok(calls.length > 0 && calls.every((r) => r.token?.startsWith('bb-oauth-')), JSON.stringify(calls.slice(0, 3)));
    const w = site();
    assert.deepEqual(await stored(oauthId), [`repository:${bare(w.uuid)}`, ...w.pullrequests.map((p) => prId(w, p.id))].sort());
  });
});
