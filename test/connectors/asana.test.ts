import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeAsana, startFakeAsana } from '../fakes/asana.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('asana connector against the fake Asana API', () => {
  let t: TestApp;
  let fa: FakeAsana;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // One item a page: every list is read over several pages (next_page.offset).
    fa = await startFakeAsana(undefined, { maxPage: 1 });
    ({ t, worker } = await kindHarness('asana', fa.url, { clock, oauthClient: { client_id: 'asana-client', client_secret: 'asana-secret-0123456789', token_url: `${fa.url}/-/oauth_token` } }));
  });
  after(async () => {
    await t.close();
    await fa.close();
  });

  const d = () => fa.data;
  const expectedIds = () => {
    const archived = new Set(d().projects.filter((p) => p.archived).map((p) => p.gid));
    return [...d().projects.filter((p) => !p.archived).map((p) => `project:${p.gid}`), ...d().tasks.filter((x) => x.memberships.some(([p]) => !archived.has(p))).map((x) => `task:${x.gid}`)].sort();
  };
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'asana', display_name: 'Asana', ...payload } });

  it('is in the catalogue as work management / productivity with OAuth and a token', async () => {
    const cat = (await t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: t.admin })).json();
    const e = cat.connectors.find((c: { connector_type: string }) => c.connector_type === 'asana');
    assert.deepEqual([e.category, e.group, e.auth_types], ['work_management', 'productivity', ['oauth2', 'api_key']]);
    assert.ok(e.settings_schema.properties.include_comments);
  });

  it('refuses unknown settings keys and gids that are not gids (400 naming the field)', async () => {
    const creds = { personal_access_token: fa.token };
    const unknown = await create({ credentials: creds, settings: { portfolios: ['1'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*portfolios/);
    const bad = await create({ credentials: creds, settings: { projects: ['https://app.asana.com/0/2001'] } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().error.message, /settings\.projects/);
  });

  it('validates with /users/me, then a full sync pages workspaces, projects, tasks and stories', async () => {
    const created = await create({ credentials: { personal_access_token: fa.token } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /ada@acme\.test \(Acme\)/);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    assert.ok(fa.fake.requestsTo('/tasks').some((r) => r.query.offset), 'task pages followed with next_page.offset');
    assert.ok(fa.fake.requestsTo('/tasks').every((r) => r.query.opt_fields?.includes('memberships.project.name') && !r.query.modified_since));
    assert.ok(fa.fake.requestsTo('/projects').every((r) => r.query.archived === 'false'), 'archived projects left out');
    assert.equal(fa.fake.requestsTo('/tasks/4004/stories').length, 1, 'a task in two projects is read once');
    assert.ok(fa.fake.requests.every((r) => r.token === fa.token));
  });

  it('maps tasks: header, description and comments as text, permalink, creator, dates, project ACL', async () => {
    const task = await doc('task:4001');
    assert.equal(task?.title, 'Draft the landing page copy');
    assert.equal(task?.document_type, 'task');
    assert.equal(task?.url, 'https://app.asana.com/0/2001/4001');
    assert.equal(task?.author, 'ada@acme.test');
    const story = d().tasks[0]?.stories[1];
    assert.equal(
      task?.content,
      `Project: Website relaunch / Design\nStatus: open\nAssignee: Grace Hopper\nDue: 2026-02-01\nTags: copy\n\nFocus on the pricing calculator and the customer quotes.\n\nGrace Hopper — ${story?.created_at.slice(0, 16).replace('T', ' ')} UTC\nThe quotes from Globex are approved by legal.`,
    );
    assert.ok(!String(task?.content).includes('added to Design'), 'system stories left out');
    assert.equal(new Date(String(task?.created_at)).toISOString(), d().tasks[0]?.created_at);
    assert.deepEqual(task?.acl, { public: true });
    assert.deepEqual((await doc('task:4003'))?.acl, { groups: ['asana:project:2002', 'asana:team:3001'] });
    assert.deepEqual((await doc('task:4004'))?.acl, { public: true }, 'public through one of its projects');
    assert.match(String((await doc('task:4002'))?.content), /Status: completed 2026-/);
    const project = await doc('project:2002');
    assert.equal(project?.document_type, 'project');
    assert.equal(project?.content, 'Project: Hiring\nWorkspace: Acme\nTeam: People\nOwner: Grace Hopper\n\nOpen roles and interview loops.');
    assert.equal(project?.author, 'grace@acme.test');
  });

  it('documents are searchable (restricted ones with the audited bypass)', async () => {
    const search = (query: string, bypass: boolean) => t.app.inject({ method: 'POST', url: `/v1/search${bypass ? '?bypass_acl=true' : ''}`, headers: t.admin, payload: { query, mode: 'lexical', filters: { connector_types: ['asana'] } } });
    const r = await search('quotes approved by legal', false);
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, 'task:4001');
    const hidden = (await search('shortlist staff engineer', false)).json().passages.map((p: { external_id: string }) => p.external_id);
    assert.ok(!hidden.includes('task:4003'), 'a private project task needs the bypass');
    assert.equal((await search('shortlist staff engineer', true)).json().passages[0]?.external_id, 'task:4003');
  });

  it('an incremental sync asks modified_since and applies edited and new tasks; deletions wait for the full sync', async () => {
    const edited = d().tasks.find((x) => x.gid === '4003');
    assert.ok(edited);
    edited.name = 'Hire a principal engineer';
    edited.modified_at = fa.tick();
    const at = fa.tick();
    d().tasks.push({ gid: '4007', name: 'Write the launch post', notes: 'Blog and newsletter.', completed: false, completed_at: null, assignee: '501', created_by: '502', due_on: null, memberships: [['2001', 'Launch']], tags: [], created_at: at, modified_at: at, stories: [] });
    const gone = d().tasks.findIndex((x) => x.gid === '4006');
    d().tasks.splice(gone, 1);
    const before = fa.fake.requests.length;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual([c.sync_runs[0].added, c.sync_runs[0].updated, c.sync_runs[0].deleted], [1, 1, 0]);
    const lists = fa.fake.requests.slice(before).filter((r) => r.path === '/tasks');
    assert.ok(lists.length > 0 && lists.every((r) => r.query.modified_since), JSON.stringify(lists[0]));
    assert.equal((await doc('task:4003'))?.title, 'Hire a principal engineer');
    assert.ok(await doc('task:4006'), 'kept until a full sync');
    const full = await sync(true);
    assert.equal(full.sync_runs[0].deleted, 1);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry completes the full sync', async () => {
    const before = await stored();
    fa.fake.failNext(1, 500, (req) => req.path === '/tasks' && Boolean(req.query.get('offset')));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Asana answered HTTP 500.*Server Error/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a revoked token puts the connector in error with what Asana said', async () => {
    fa.fake.revoke(fa.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: Asana answered 401 .*Not Authorized.*personal access token/);
    } finally {
      fa.fake.allow(fa.token);
    }
  });

  it('connects with OAuth: the code is exchanged at /-/oauth_token and calls carry the bearer token', async () => {
    const created = await create({ settings: { projects: ['2002'] } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://app.asana.com/-/oauth_authorize');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=asana-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = fa.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    assert.ok(fa.fake.requests.slice(before).every((r) => r.token?.startsWith('asana-oauth-')));
    assert.deepEqual(await stored(oauthId), ['project:2002', 'task:4003', 'task:4004'], 'task 4004 is read with 2002 when 2001 is not synced');
    assert.deepEqual((await doc('task:4004', oauthId))?.acl, { groups: ['asana:project:2002', 'asana:team:3001'] }, 'only synced projects widen an ACL');
  });
});
