import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeGitLab, type GProject, seedGitLab, startFakeGitLab } from '../fakes/gitlab.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { expectedGitLabIds } from './fixtures/gitlab.ts';
import { connectorWorker, storedDocument, storedIds, syncConnector } from './support.ts';

describe('gitlab connector against the fake GitLab REST API v4', () => {
  let t: TestApp;
  let gl: FakeGitLab;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    const data = seedGitLab();
    // acme/handbook gets 52 issues: two pages of 50.
    const first = data.issues.find((i) => i.project_id === 1);
    assert.ok(first);
    for (let iid = 4; iid <= 52; iid++) data.issues.push({ ...first, id: 20_000 + iid, iid, title: `handbook issue ${iid}` });
    gl = await startFakeGitLab(data);
    t = await createTestApp({ clock, env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ gitlab: gl.api }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await gl.close();
  });

  const d = () => gl.data;
  const project = (path: string): GProject => {
    const p = d().projects.find((x) => x.path_with_namespace === path);
    assert.ok(p, path);
    return p;
  };
  /** Group `acme` (subgroups included, archived left out) plus the explicitly named `other/elsewhere`. */
  const inScope = (p: GProject) => (p.namespace.full_path.startsWith('acme') && !p.archived) || p.path_with_namespace === 'other/elsewhere';
  const stored = async () => storedIds(t.db, id);
  const doc = async (externalId: string) => storedDocument(t.db, id, externalId);
  const sync = (full: boolean) => syncConnector(t, worker, id, full);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'gitlab', display_name: 'GitLab', ...payload } });
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

  it('a full sync of group acme and one named project stores projects, issues with comments, merge requests, files and wiki pages', async () => {
    const created = await create({ credentials: { private_token: gl.token }, settings: { groups: ['acme'], projects: ['other/elsewhere'], include_notes: true } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedGitLabIds(d(), inScope));
    // The group's projects were listed with their subgroups; issues were paged (52 in acme/handbook, pages of 50).
    assert.ok(gl.fake.requestsTo('/api/v4/groups/acme/projects').every((r) => r.query.include_subgroups === 'true' && r.query.archived === 'false'));
    assert.ok(gl.fake.requestsTo('/api/v4/projects/1/issues').some((r) => r.query.page === '2'));
    assert.ok(gl.fake.requests.every((r) => r.token === gl.token));

    const issue = d().issues.find((i) => i.project_id === 1 && i.iid === 1);
    assert.ok(issue);
    const row = await doc('issue:acme/handbook#1');
    assert.ok(row);
    assert.equal(row.title, `acme/handbook#1: ${issue.title}`);
    assert.equal(row.content, `${issue.description}\n\nComments:\n\n— bob, 2025-01-03:\nI can reproduce this on staging.`);
    assert.equal(row.url, `${gl.url}/acme/handbook/-/issues/1`);
    assert.equal(row.author, 'ada');
    assert.equal(row.document_type, 'issue');
    assert.equal(iso(row.created_at), new Date(issue.created_at).toISOString());
    assert.equal(iso(row.updated_at), new Date(issue.updated_at).toISOString());
    assert.deepEqual(row.acl, { groups: ['gitlab:instance'] }, 'internal project');
    assert.deepEqual((row.metadata as Record<string, unknown>).labels, ['bug']);

    assert.deepEqual((await doc('issue:acme/platform/api#2'))?.acl, { groups: ['gitlab:project:2'] }, 'private project');
    assert.deepEqual((await doc('project:acme/website'))?.acl, { public: true });
    const mr = await doc('mr:acme/website!1');
    assert.equal(mr?.title, 'acme/website!1: Add onboarding guide');
    assert.equal(mr?.document_type, 'merge_request');

    const file = await doc('file:acme/handbook:docs/vacation-policy.md');
    assert.equal(file?.content, '# Vacation policy\n\nEveryone gets 30 days of paid leave.');
    assert.equal(file?.url, `${gl.url}/acme/handbook/-/blob/main/docs/vacation-policy.md`);
    assert.equal(file?.author, 'Ada Lovelace');
    assert.equal(iso(file?.updated_at), '2025-01-04T09:00:00.000Z');
    assert.equal(file?.document_type, 'file');
    assert.equal(await doc('file:acme/handbook:src/app.ts'), undefined, 'not a listed extension');
    const wiki = await doc('wiki:acme/handbook:guides/onboarding');
    assert.equal(wiki?.content, 'Day one: get your laptop.');
    assert.equal(wiki?.url, `${gl.url}/acme/handbook/-/wikis/guides/onboarding`);
    assert.equal(wiki?.document_type, 'wiki_page');
  });

  it('synced documents are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'paid leave vacation', mode: 'lexical' } });
    assert.equal(r.statusCode, 200, r.body);
    const hits = JSON.stringify(r.json());
    assert.match(hits, /vacation-policy\.md/);
  });

  it('an incremental sync reads issues by updated_after, fetches only changed files and wiki pages, and deletes what went', async () => {
    const handbook = project('acme/handbook');
    const edited = d().issues.find((i) => i.project_id === 1 && i.iid === 3);
    assert.ok(edited);
    edited.title = 'Renamed after the sync';
    edited.updated_at = gl.tick();
    const added = gl.addIssue(project('acme/platform/api'), 'Created after the sync');
    gl.commit(handbook, { 'docs/vacation-policy.md': '# Vacation policy\n\nEveryone gets 32 days of paid leave.', 'README.md': null, 'docs/new.rst': 'New page', 'build.sh': 'echo' });
    const home = handbook.wikis.find((w) => w.slug === 'home');
    assert.ok(home);
    home.content = 'Welcome, edited.';
    handbook.wikis = handbook.wikis.filter((w) => w.slug !== 'guides/onboarding');
    gl.fake.requests.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [2, 3, 2]);
    for (const r of gl.fake.requestsTo(/\/(issues|merge_requests)$/)) assert.ok(r.query.updated_after, `${r.path} carries updated_after`);
    // Only the changed and the new file were fetched; the unchanged branch of acme/platform/api was not listed again.
    assert.deepEqual(gl.fake.requestsTo(/\/raw$/).map((r) => r.path).sort(), ['/api/v4/projects/1/repository/files/docs%2Fnew.rst/raw', '/api/v4/projects/1/repository/files/docs%2Fvacation-policy.md/raw']);
    assert.equal(gl.fake.requestsTo('/api/v4/projects/2/repository/tree').length, 0);
    assert.equal((await doc('issue:acme/handbook#3'))?.title, 'acme/handbook#3: Renamed after the sync');
    assert.ok(await doc(`issue:acme/platform/api#${added.iid}`));
    assert.match(String((await doc('file:acme/handbook:docs/vacation-policy.md'))?.content), /32 days/);
    assert.equal((await doc('wiki:acme/handbook:home'))?.content, 'Welcome, edited.');
    assert.deepEqual(await stored(), expectedGitLabIds(d(), inScope));
  });

  it('a vendor 5xx fails the attempt without losing what is stored, and the retried sync completes', async () => {
    const before = await stored();
    const outage = gl.addIssue(project('acme/website'), 'Filed during an outage');
    gl.fake.failNext(1, 502, (r) => r.path === '/api/v4/projects/3/issues');
    const failed = await sync(false);
    assert.equal(failed.sync_runs[0].status, 'running', 'the job is retried with backoff');
    assert.deepEqual(await stored(), before, 'nothing stored was lost');
    // The retry is due after the job's backoff: make it due now and run it.
    await t.db.query("UPDATE jobs SET run_at = now() WHERE status = 'queued' AND kind = 'connector.sync'");
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.status, 'idle', JSON.stringify(c.sync_runs[0]));
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.ok(await doc(`issue:acme/website#${outage.iid}`));
    assert.deepEqual(await stored(), expectedGitLabIds(d(), inScope));
  });

  it('a full sync removes what vanished (an issue, a project dropped from the group)', async () => {
    const i = d().issues.findIndex((x) => x.project_id === 2 && x.iid === 5);
    d().issues.splice(i, 1);
    project('acme/website').archived = true;
    const c = await sync(true);
    assert.equal(c.status, 'idle');
    assert.equal(await doc('issue:acme/platform/api#5'), undefined);
    assert.equal(await doc('project:acme/website'), undefined);
    assert.deepEqual(await stored(), expectedGitLabIds(d(), inScope));
    project('acme/website').archived = false;
  });

  describe('webhooks', () => {
    let secret: string;
    let path: string;
    before(async () => {
      const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook`, headers: t.admin });
      assert.equal(r.statusCode, 201, r.body);
      secret = r.json().secret;
      path = new URL(r.json().delivery_url).pathname;
      assert.deepEqual(r.json().events, ['Issue Hook', 'Confidential Issue Hook', 'Merge Request Hook', 'Push Hook', 'Wiki Page Hook']);
    });
    const deliver = (event: string, payload: unknown, token: string | null = secret) =>
      t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/json', 'x-gitlab-event': event, ...(token === null ? {} : { 'x-gitlab-token': token }) }, payload: JSON.stringify(payload) });
    const hookProject = (p: GProject) => ({ id: p.id, path_with_namespace: p.path_with_namespace, default_branch: 'main', web_url: `${gl.url}/${p.path_with_namespace}` });

    it('refuses a missing or wrong X-Gitlab-Token', async () => {
      const payload = { object_kind: 'issue', project: hookProject(project('acme/handbook')), object_attributes: { iid: 1, action: 'update' } };
      const missing = await deliver('Issue Hook', payload, null);
      assert.equal(missing.statusCode, 401);
      const wrong = await deliver('Issue Hook', payload, `${secret}x`);
      assert.equal(wrong.statusCode, 401);
      assert.equal(wrong.json().error.code, 'invalid_signature');
    });

    it('an Issue Hook upserts the issue as GitLab has it now; an issue GitLab no longer has is deleted', async () => {
      const p = project('acme/handbook');
      const issue = gl.addIssue(p, 'Opened from the webhook');
      const r = await deliver('Issue Hook', { object_kind: 'issue', project: hookProject(p), object_attributes: { iid: issue.iid, action: 'open' } });
      assert.equal(r.statusCode, 202, r.body);
      assert.deepEqual(r.json(), { status: 'applied', event: 'Issue Hook.open', upserted: 1, deleted: 0 });
      assert.equal((await doc(`issue:acme/handbook#${issue.iid}`))?.title, `acme/handbook#${issue.iid}: Opened from the webhook`);
      d().issues.splice(d().issues.indexOf(issue), 1);
      const gone = await deliver('Issue Hook', { object_kind: 'issue', project: hookProject(p), object_attributes: { iid: issue.iid, action: 'update' } });
      assert.deepEqual(gone.json(), { status: 'applied', event: 'Issue Hook.update', upserted: 0, deleted: 1 });
    });

    it('a Push Hook to the default branch fetches added/modified wanted files and deletes removed ones', async () => {
      const p = project('acme/platform/api');
      gl.commit(p, { 'docs/runbook.md': '# Runbook\n\nPage the on-call.', 'notes.txt': null });
      const r = await deliver('Push Hook', {
        object_kind: 'push',
        ref: 'refs/heads/main',
        project: hookProject(p),
        total_commits_count: 1,
        commits: [{ added: ['docs/runbook.md'], modified: [], removed: ['notes.txt'] }],
      });
      assert.deepEqual(r.json(), { status: 'applied', event: 'Push Hook', upserted: 1, deleted: 1 });
      assert.equal((await doc('file:acme/platform/api:docs/runbook.md'))?.content, '# Runbook\n\nPage the on-call.');
      assert.equal(await doc('file:acme/platform/api:notes.txt'), undefined);
      const other = await deliver('Push Hook', { object_kind: 'push', ref: 'refs/heads/feature', project: hookProject(p), commits: [{ added: ['docs/x.md'] }] });
      assert.equal(other.json().status, 'ignored', 'not the default branch');
    });

    it('a Wiki Page Hook upserts or deletes the page; projects outside the connector are ignored', async () => {
      const p = project('acme/handbook');
      p.wikis.push({ slug: 'faq', title: 'FAQ', content: 'Ask away.', format: 'markdown' });
      const r = await deliver('Wiki Page Hook', { object_kind: 'wiki_page', project: hookProject(p), object_attributes: { slug: 'faq', action: 'create' } });
      assert.deepEqual(r.json(), { status: 'applied', event: 'Wiki Page Hook.create', upserted: 1, deleted: 0 });
      assert.equal((await doc('wiki:acme/handbook:faq'))?.content, 'Ask away.');
      const del = await deliver('Wiki Page Hook', { object_kind: 'wiki_page', project: hookProject(p), object_attributes: { slug: 'faq', action: 'delete' } });
      assert.equal(del.json().deleted, 1);
      const old = project('acme/old');
      const out = await deliver('Issue Hook', { object_kind: 'issue', project: hookProject(old), object_attributes: { iid: 1, action: 'update' } });
      assert.equal(out.json().status, 'ignored', 'an archived project is outside the connector');
    });

    it('while the connector is paused a delivery is ignored and named by X-Gitlab-Event', async () => {
      await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/pause`, headers: t.admin });
      try {
        const r = await deliver('Merge Request Hook', { object_kind: 'merge_request', project: hookProject(project('acme/handbook')), object_attributes: { iid: 1, action: 'update' } });
        assert.deepEqual(r.json(), { status: 'ignored', event: 'Merge Request Hook', reason: 'connector is paused' });
      } finally {
        await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/resume`, headers: t.admin });
      }
    });
  });

  it('a revoked token puts the connector in error with a sentence naming the fix', async () => {
    gl.fake.revoke(gl.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /GitLab answered 401 .*read_api and read_repository/);
    } finally {
      gl.fake.allow(gl.token);
    }
  });

  it('refuses unknown settings keys and a bad base_url with 400 naming the field', async () => {
    const unknown = await create({ credentials: { private_token: gl.token }, settings: { project: ['acme/x'] } });
    assert.equal(unknown.statusCode, 400);
    assert.match(JSON.stringify(unknown.json().error), /settings/);
    const bad = await create({ credentials: { private_token: gl.token }, settings: { base_url: 'http://gitlab.example.com' } });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.details.problems[0].path, 'settings.base_url');
    const named = await create({ credentials: { private_token: gl.token }, settings: { base_url: 'https://gitlab.example.com/' } });
    assert.equal(named.statusCode, 201, named.body);
  });

  it('a wrong token ends in error with what GitLab said', async () => {
    const created = await create({ credentials: { private_token: 'glpat-nope' } });
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${created.json().connector_id}`, headers: t.admin })).json();
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /401 Unauthorized/);
  });
});
