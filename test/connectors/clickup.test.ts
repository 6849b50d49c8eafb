import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { CU_BASE, type FakeClickUp, seedClickUp, startFakeClickUp } from '../fakes/clickup.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('clickup connector against the fake ClickUp API (v2, Docs v3)', () => {
  let t: TestApp;
  let cu: FakeClickUp;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Two tasks a page, and a task with more comments than one call answers (25): both read over several pages.
    const data = seedClickUp();
    for (let i = 0; i < 27; i++) data.comments.push({ id: String(600 + i), taskId: '86a2', text: `Runbook review note ${i}`, user: data.me, date: CU_BASE + 3_600_000 + i * 1000 });
    cu = await startFakeClickUp(data, { maxTasks: 2 });
    ({ t, worker } = await kindHarness('clickup', cu.url, { clock, oauthClient: { client_id: 'cu-client', client_secret: 'cu-secret-0123456789', token_url: `${cu.url}/api/v2/oauth/token` } }));
  });
  after(async () => {
    await t.close();
    await cu.close();
  });

  const d = () => cu.data;
  const expectedIds = () =>
    [
      ...d().spaces.map((s) => `space:${s.id}`),
      ...d().folders.map((f) => `folder:${f.id}`),
      ...d().lists.map((l) => `list:${l.id}`),
      ...d().tasks.filter((x) => !x.archived && d().lists.some((l) => l.id === x.listId)).map((x) => `task:${x.id}`),
      ...d().comments.filter((c) => d().tasks.some((x) => x.id === c.taskId && d().lists.some((l) => l.id === x.listId))).map((c) => `comment:${c.taskId}:${c.id}`),
      ...d().docs.filter((x) => !x.deleted).map((x) => `doc:${x.id}`),
    ].sort();
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'clickup', display_name: 'ClickUp', ...payload } });

  it('refuses unknown settings keys, bad ids and a token that is not a personal token (400 naming the field)', async () => {
    const unknown = await create({ credentials: { api_token: cu.token }, settings: { workspace: '9001' } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*workspace/);
    const badIds = await create({ credentials: { api_token: cu.token }, settings: { space_ids: ['../x'] } });
    assert.equal(badIds.statusCode, 400);
    assert.match(badIds.json().error.message, /settings\.space_ids/);
    const badToken = await create({ credentials: { api_token: 'Bearer 123' } });
    assert.equal(badToken.statusCode, 400);
    assert.match(badToken.json().error.message, /credentials\.api_token/);
  });

  it('validates with /user, then a full sync reads the hierarchy, pages tasks and comments, and Docs by cursor', async () => {
    const created = await create({ credentials: { api_token: cu.token } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /ada@acme\.test \(Ada Lovelace\)/);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    const tasks = cu.fake.requestsTo('/api/v2/list/900/task');
    assert.deepEqual(tasks.map((r) => r.query.page), ['0', '1'], 'pages until last_page');
    assert.ok(tasks.every((r) => r.query.include_closed === 'true' && r.query.subtasks === 'true' && !r.query.date_updated_gt));
    const notes = cu.fake.requestsTo('/api/v2/task/86a2/comment');
    assert.deepEqual(notes.map((r) => r.query.start_id ?? null), [null, '602'], 'older comments by start + start_id of the oldest read');
    assert.equal(cu.fake.requestsTo('/api/v2/task/86a1/comment').length, 1, 'a short page is the last');
    assert.ok(cu.fake.requestsTo('/api/v3/workspaces/9001/docs').some((r) => r.query.cursor), 'Docs paged by next_cursor');
    assert.ok(cu.fake.requests.every((r) => r.token === cu.token), 'the personal token bare in Authorization');
  });

  it('maps tasks, comments, lists and Docs: readable text, URLs, authors, dates and the space/list ACLs', async () => {
    const task = await doc('task:86a1');
    assert.equal(task?.title, 'ENG-1: Rotate the signing keys');
    assert.equal(task?.document_type, 'task');
    assert.equal(task?.url, 'https://app.clickup.com/t/86a1');
    assert.equal(task?.author, 'ada@acme.test');
    assert.equal(
      task?.content,
      'Rotate the JWT signing keys before the audit.\nKeep the old key for a day.\n\nStatus: in progress\nPriority: high\nAssignees: Grace Hopper\nTags: security\nList: Engineering / Backend / Sprint 12\n\nChecklist Steps:\n- [x] generate key\n- [ ] deploy',
    );
    const src = d().tasks[0];
    assert.equal(new Date(String(task?.created_at)).toISOString(), new Date(src?.created ?? 0).toISOString());
    assert.deepEqual(task?.acl, { groups: ['clickup:team:9001'] });
    assert.match(String((await doc('task:86a2'))?.content), /Parent task: 86a1/);
    assert.equal((await doc('task:86a3'))?.document_type, 'task', 'closed tasks are synced');
    assert.deepEqual((await doc('task:86b1'))?.acl, { groups: ['clickup:list:901'] }, 'private list');
    assert.deepEqual((await doc('task:86c1'))?.acl, { groups: ['clickup:space:701'] }, 'private space');
    const comment = await doc('comment:86a1:503');
    assert.equal(comment?.title, 'Comment on Rotate the signing keys');
    assert.equal(comment?.content, 'Auditors confirmed Thursday.');
    assert.equal(comment?.author, 'grace@acme.test');
    assert.equal(comment?.url, 'https://app.clickup.com/t/86a1?comment=503');
    const l = await doc('list:900');
    assert.equal(l?.content, 'Work planned for the sprint.\n\nList: Sprint 12\nLocation: Engineering / Backend');
    assert.equal(l?.url, 'https://app.clickup.com/9001/v/li/900');
    assert.equal((await doc('space:701'))?.content, 'Space: Leadership (private)\n\nLists: Plans');
    const handbook = await doc('doc:8cjx1-1');
    assert.equal(handbook?.document_type, 'doc');
    assert.equal(handbook?.content, '# Onboarding\n\nRead the **security** guide first.\n\n## Laptops\n\nLaptops use full-disk encryption.');
    assert.equal(handbook?.url, 'https://app.clickup.com/9001/v/dc/8cjx1-1');
    assert.deepEqual(handbook?.acl, { groups: ['clickup:team:9001'] });
    assert.deepEqual((await doc('doc:8cjx1-2'))?.acl, { groups: ['clickup:space:701'] }, 'a Doc in a private space');
  });

  it('mirrors Workspace members and private-space members into the identity directory', async () => {
    const m = await t.db.query<{ group_id: string; member: string }>('SELECT group_id, member FROM identity_memberships WHERE source = $1 ORDER BY 1, 2', [id]);
    assert.deepEqual(
      m.rows.map((r) => `${r.group_id}=${r.member}`),
      ['clickup:space:701=ada@acme.test', 'clickup:team:9001=ada@acme.test', 'clickup:team:9001=grace@acme.test'],
    );
  });

  it('documents are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'third-party cookies blocked', mode: 'lexical', filters: { connector_types: ['clickup'] } } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, 'comment:86b1:504');
  });

  it('an incremental sync asks date_updated_gt (ms, one minute of overlap) and applies edits, new and deleted comments, deleted Docs and lists', async () => {
    const cursor = (await t.db.query<{ sync_cursor: { since: number } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.ok(cursor?.since);
    const edited = d().tasks.find((x) => x.id === '86a3');
    assert.ok(edited);
    edited.name = 'Ship release 4.2.1';
    edited.updated = cu.tick();
    // A new comment and a deleted one move the task's date_updated.
    const keys = d().tasks.find((x) => x.id === '86a1');
    assert.ok(keys);
    keys.updated = cu.tick();
    d().comments.push({ id: '505', taskId: '86a1', text: 'Rotation finished without downtime.', user: d().me, date: keys.updated });
    d().comments.splice(d().comments.findIndex((c) => c.id === '501'), 1);
    const minutes = d().docs.find((x) => x.id === '8cjx1-2');
    assert.ok(minutes);
    minutes.deleted = true;
    const bugs = d().lists.findIndex((l) => l.id === '901');
    d().lists.splice(bugs, 1);
    const before = cu.fake.requests.length;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    // Added: comment 505; updated: both tasks and the folder (its lists changed); deleted: comment 501, the Doc, the list
    // (its task waits for a full sync).
    assert.deepEqual([run.added, run.updated, run.deleted], [1, 3, 3]);
    assert.equal((await doc('folder:800'))?.content, 'Folder: Backend\n\nSpace: Engineering\nLists: Sprint 12');
    const calls = cu.fake.requests.slice(before);
    const lists = calls.filter((r) => /^\/api\/v2\/list\/\d+\/task$/.test(r.path));
    assert.ok(lists.length > 0 && lists.every((r) => r.query.date_updated_gt === String(cursor.since - 60_000)), JSON.stringify(lists[0]));
    assert.deepEqual(calls.filter((r) => r.path.includes('/comment')).map((r) => r.path).sort(), ['/api/v2/task/86a1/comment', '/api/v2/task/86a3/comment'], 'comments of changed tasks only');
    assert.ok(calls.some((r) => r.path === '/api/v3/workspaces/9001/docs' && r.query.deleted === 'true'), 'deleted Docs listed');
    assert.equal(calls.filter((r) => r.path.endsWith('/pages')).length, 0, 'unchanged Docs are not re-read');
    assert.equal((await doc('task:86a3'))?.title, 'Ship release 4.2.1');
    assert.equal((await doc('comment:86a1:505'))?.content, 'Rotation finished without downtime.');
    assert.equal(await doc('comment:86a1:501'), undefined);
    assert.equal(await doc('doc:8cjx1-2'), undefined);
    assert.equal(await doc('list:901'), undefined);
    assert.ok(await doc('task:86b1'), 'tasks of a removed list stay until a full sync');
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry completes the full sync', async () => {
    const before = await stored();
    cu.fake.failNext(1, 502, (req) => req.path === '/api/v2/list/900/task' && req.query.get('page') === '1');
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /ClickUp answered HTTP 502/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    // The full sync removed the task of the list deleted earlier.
    assert.equal(await doc('task:86b1'), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a full sync removes a deleted task (the list endpoints show no deletions)', async () => {
    const i = d().tasks.findIndex((x) => x.id === '86a3');
    d().tasks.splice(i, 1);
    const c = await sync(true);
    assert.equal(c.sync_runs[0].deleted, 1);
    assert.equal(await doc('task:86a3'), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a ClickUp 429 waits until X-RateLimit-Reset (no Retry-After), then completes', async () => {
    cu.rateLimitNext(1, 1);
    const c = await sync(false);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.ok(c.sync_runs[0].rate_limited_waits >= 1);
  });

  it('a revoked token puts the connector in error with what ClickUp said', async () => {
    cu.fake.revoke(cu.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: ClickUp answered 401 .*Token invalid.*OAUTH_025.*personal API token/);
    } finally {
      cu.fake.allow(cu.token);
    }
  });

  it('connects with OAuth: ClickUp authorize URL, the token sent as Bearer, a space filter', async () => {
    const created = await create({ settings: { space_ids: ['701'], include_comments: false } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://app.clickup.com/api');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=clickup-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = cu.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    const calls = cu.fake.requests.slice(before);
    assert.ok(calls.length > 0 && calls.every((r) => r.token?.startsWith('81_oauth')), JSON.stringify(calls[0]));
    assert.equal(calls.filter((r) => r.path.includes('/comment')).length, 0);
    assert.deepEqual(await stored(oauthId), ['list:902', 'space:701', 'task:86c1']);
  });
});
