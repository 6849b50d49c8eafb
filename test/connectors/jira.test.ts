import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jiraSignature } from '../../src/connectors/jira/index.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { adfDoc, type FakeJira, type JComment, type JIssue, seedJira, startFakeJira } from '../fakes/jira.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('jira connector against the fake Jira Cloud REST v3 API', () => {
  let t: TestApp;
  let jira: FakeJira;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Pages of at most 5 issues: a few documents, many pages.
    jira = await startFakeJira(seedJira({ issuesPerProject: 12 }), { maxPage: 5 });
    ({ t, worker } = await kindHarness('jira', jira.url, { clock, oauthClient: { client_id: 'atl-client', client_secret: 'atl-secret-0123456789', token_url: `${jira.url}/oauth/token` } }));
  });
  after(async () => {
    await t.close();
    await jira.close();
  });

  const d = () => jira.data;
  const inScope = (i: JIssue) => i.project.key === 'ENG' || i.project.key === 'OPS';
  const expectedIds = () =>
    [
      ...d().projects.filter((p) => p.key !== 'DES').map((p) => `project:${p.id}`),
      ...d().issues.filter(inScope).flatMap((i) => [`issue:${i.id}`, ...i.comments.map((c) => `comment:${i.id}:${c.id}`)]),
    ].sort();
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const issue = (key: string) => {
    const i = d().issues.find((x) => x.key === key);
    assert.ok(i, key);
    return i;
  };
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'jira', display_name: 'Jira', ...payload } });

  it('refuses unknown settings keys, a bad site URL, a sorted JQL filter and a token without its email (400 naming the field)', async () => {
    const creds = { email: jira.email, api_token: jira.apiToken };
    const unknown = await create({ credentials: creds, settings: { site_url: jira.siteUrl, boards: ['x'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*boards/);
    for (const site_url of ['acme.atlassian.net', 'http://acme.atlassian.net', 'https://user:pw@acme.atlassian.net', 'https://acme.atlassian.net/?x=1']) {
      const bad = await create({ credentials: creds, settings: { site_url } });
      assert.equal(bad.statusCode, 400, site_url);
      assert.match(bad.json().error.message, /settings\.site_url/, bad.body);
    }
    const sorted = await create({ credentials: creds, settings: { site_url: jira.siteUrl, jql: 'labels = x ORDER BY key' } });
    assert.match(sorted.json().error.message, /settings\.jql/);
    const lonely = await create({ credentials: { api_token: jira.apiToken }, settings: { site_url: jira.siteUrl } });
    assert.equal(lonely.statusCode, 400);
    assert.match(lonely.json().error.message, /credentials\.email/);
  });

  it('a full sync of ENG and OPS stores projects, issues and comments, paging with nextPageToken project by project', async () => {
    const created = await create({ credentials: { email: jira.email, api_token: jira.apiToken }, settings: { site_url: `${jira.siteUrl}/`, projects: ['ENG', 'OPS'] } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /authenticated as ada@acme\.test on acme\.atlassian\.net/i);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const got = await stored();
    const want = expectedIds();
    assert.deepEqual({ missing: want.filter((x) => !got.includes(x)), extra: got.filter((x) => !want.includes(x)) }, { missing: [], extra: [] });
    // Bounded JQL per project; Jira answering 5 of the 50 asked per page, later pages are asked with nextPageToken.
    const jqls = jira.searches.map((s) => s.jql);
    assert.deepEqual([...new Set(jqls)], ['project = 10000 ORDER BY created ASC', 'project = 10001 ORDER BY created ASC']);
    assert.ok(jira.searches.some((s) => s.nextPageToken), 'second page requested with nextPageToken');
    assert.ok(jira.searches.every((s) => s.fields.includes('description') && s.fields.includes('comment')));
    // Basic auth against the site itself (here the fake), never the OAuth gateway.
    assert.equal(jira.fake.requestsTo(/^\/ex\/jira\//).length, 0);
  });

  it('maps an issue: key title, ADF description as text plus status/assignee/labels lines, browse URL, reporter email, project ACL', async () => {
    const i = issue('ENG-1');
    const row = await doc(`issue:${i.id}`);
    assert.ok(row);
    assert.equal(row.title, 'ENG-1: Fix login redirect loop');
    assert.equal(row.url, 'https://acme.atlassian.net/browse/ENG-1');
    assert.equal(row.document_type, 'issue');
    assert.equal(row.author, 'jira:712020:0e1f2a3b-hidden', 'the reporter hides their email: their account id');
    const content = String(row.content);
    assert.ok(!content.includes('"type"'), 'text, not ADF JSON');
    for (const part of ['## Steps', 'Reported by @Grace Hopper while testing login redirect loop.', '- open the app', '```bash\ncurl https://acme.test/eng/1\n```', 'Status: To Do', 'Assignee: Ada Lovelace', 'Labels: customer, login', 'Type: Bug']) {
      assert.ok(content.includes(part), `${part} in ${content}`);
    }
    assert.equal(new Date(String(row.created_at)).toISOString(), '2026-01-05T09:00:00.000Z');
    assert.deepEqual(row.acl, { groups: ['jira:project:10000'] });
    const meta = row.metadata as Record<string, unknown>;
    assert.deepEqual([meta.key, meta.project_key, meta.status, meta.status_category, meta.priority], ['ENG-1', 'ENG', 'To Do', 'new', 'High']);
    const withEmail = await doc(`issue:${issue('ENG-2').id}`);
    assert.equal(withEmail?.author, 'ada@acme.test', 'lower-cased reporter email');
    const secured = await doc(`issue:${issue('OPS-1').id}`);
    assert.equal((secured?.metadata as Record<string, unknown> | undefined)?.security_level, 'Internal only');
  });

  it('maps comments as their own documents, reading past what the search embeds; restricted comments get their group', async () => {
    const eng2 = issue('ENG-2');
    assert.ok(eng2.comments.length > 5);
    assert.ok(jira.fake.requestsTo(`/rest/api/3/issue/${eng2.id}/comment`).length >= 1, 'comments beyond the embedded 5 read from /comment');
    const last = eng2.comments.at(-1) as JComment;
    const c = await doc(`comment:${eng2.id}:${last.id}`);
    assert.equal(c?.title, `Comment on ENG-2: ${eng2.summary}`);
    assert.equal(c?.content, 'Investigation note 8');
    assert.equal(c?.url, `https://acme.atlassian.net/browse/ENG-2?focusedCommentId=${last.id}`);
    assert.equal(c?.document_type, 'comment');
    assert.deepEqual(c?.acl, { groups: ['jira:project:10000'] });
    const ops1 = issue('OPS-1');
    const restricted = await doc(`comment:${ops1.id}:${ops1.comments[0]?.id}`);
    assert.deepEqual(restricted?.acl, { groups: ['jira:group:a1b2c3-oncall'] });
  });

  it('documents are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'session cookie domain', mode: 'lexical' } });
    assert.equal(r.statusCode, 200, r.body);
    const eng1 = issue('ENG-1');
    assert.equal(r.json().passages[0]?.external_id, `comment:${eng1.id}:${eng1.comments[1]?.id}`);
  });

  it('an incremental sync asks updated >= the cursor in the user time zone and applies edits, new and deleted comments', async () => {
    const cursor = (await t.db.query<{ sync_cursor: { since: string } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.ok(cursor?.since);
    const edited = issue('OPS-3');
    edited.summary = 'Renamed after the sync';
    edited.description = adfDoc({ type: 'paragraph', content: [{ type: 'text', text: 'New description text' }] });
    edited.updated = jira.tick();
    const eng1 = issue('ENG-1');
    const removed = eng1.comments.shift() as JComment;
    const at = jira.tick();
    eng1.comments.push({ id: '29999', author: d().users[1] as JComment['author'], body: adfDoc({ type: 'paragraph', content: [{ type: 'text', text: 'Fixed in 4.2' }] }), created: at, updated: at });
    eng1.updated = at;
    const des = issue('DES-1');
    des.updated = jira.tick();
    jira.searches.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    // Added: the new comment; updated: OPS-3 and ENG-1 (its `updated` moved); deleted: the removed comment.
    assert.deepEqual([run.added, run.updated, run.deleted], [1, 2, 1]);
    // Europe/Berlin is UTC+1 in January; one minute of overlap for JQL's minute precision.
    const local = new Date(Date.parse(cursor.since) - 60_000 + 3_600_000).toISOString();
    const literal = `${local.slice(0, 10).replace(/-/g, '/')} ${local.slice(11, 16)}`;
    assert.deepEqual(
      jira.searches.map((s) => s.jql),
      [`updated >= "${literal}" AND project in ("ENG", "OPS") ORDER BY updated ASC`],
    );
    assert.equal((await doc(`issue:${edited.id}`))?.title, 'OPS-3: Renamed after the sync');
    assert.match(String((await doc(`issue:${edited.id}`))?.content), /^New description text/);
    assert.equal((await doc(`comment:${eng1.id}:29999`))?.content, 'Fixed in 4.2');
    assert.equal(await doc(`comment:${eng1.id}:${removed.id}`), undefined);
    assert.equal(await doc(`issue:${des.id}`), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry resumes the full sync from its page', async () => {
    const before = await stored();
    jira.searches.length = 0;
    jira.fake.failNext(1, 502, (req) => req.path === '/rest/api/3/search/jql' && Boolean((req.body as { nextPageToken?: string } | undefined)?.nextPageToken));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Jira answered HTTP 502/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
    const eng = jira.searches.filter((s) => s.jql.startsWith('project = 10000 '));
    assert.deepEqual(
      eng.map((s) => Boolean(s.nextPageToken)),
      [false, true, true],
      'page one once; the retry resumed at the failed page (its nextPageToken)',
    );
  });

  it('a full sync removes an issue deleted in Jira (an incremental sync cannot see deletions) with its comments', async () => {
    const gone = issue('ENG-1');
    d().issues.splice(d().issues.indexOf(gone), 1);
    await sync(false);
    assert.ok(await doc(`issue:${gone.id}`), 'JQL shows no deleted issues: still stored after an incremental sync');
    const c = await sync(true);
    assert.equal(c.sync_runs[0].deleted, 1 + gone.comments.length);
    assert.equal(await doc(`issue:${gone.id}`), undefined);
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
      assert.deepEqual(r.json().events, ['jira:issue_created', 'jira:issue_updated', 'jira:issue_deleted', 'comment_created', 'comment_updated', 'comment_deleted']);
    });
    const envelope = (webhookEvent: string, i: { id: string; key: string }, extra: Record<string, unknown> = {}) => ({
      timestamp: clock.now().getTime(),
      webhookEvent,
      issue_event_type_name: webhookEvent === 'jira:issue_created' ? 'issue_created' : 'issue_generic',
      user: { accountId: d().me.accountId, displayName: d().me.displayName },
      issue: { id: i.id, self: `${jira.siteUrl}/rest/api/2/issue/${i.id}`, key: i.key, fields: { summary: 'from the payload (wiki markup, stale)' } },
      ...extra,
    });
    const deliver = (payload: unknown, signature?: string) => {
      const body = JSON.stringify(payload);
      return t.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/json', 'x-atlassian-webhook-identifier': '42', 'x-hub-signature': signature ?? jiraSignature(secret, body) },
        payload: body,
      });
    };

    it('while paused, a delivery is ignored and named by its webhookEvent', async () => {
      await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/pause`, headers: t.admin });
      try {
        const r = await deliver(envelope('comment_created', issue('ENG-2'), { comment: { id: '1' } }));
        assert.deepEqual(r.json(), { status: 'ignored', event: 'comment_created', reason: 'connector is paused' });
      } finally {
        await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/resume`, headers: t.admin });
      }
    });

    it('issue created and updated are read from the API and upserted; a comment event upserts the comment', async () => {
      const base = issue('ENG-3');
      const at = jira.tick();
      const fresh: JIssue = { ...base, id: '70001', key: 'ENG-700', summary: 'Created in Jira just now', created: at, updated: at, comments: [] };
      d().issues.push(fresh);
      const r = await deliver(envelope('jira:issue_created', fresh));
      assert.equal(r.statusCode, 202, r.body);
      assert.deepEqual(r.json(), { status: 'applied', event: 'jira:issue_created', upserted: 1, deleted: 0 });
      assert.equal((await doc('issue:70001'))?.title, 'ENG-700: Created in Jira just now');

      fresh.comments.push({ id: '80001', author: d().users[0] as JComment['author'], body: adfDoc({ type: 'paragraph', content: [{ type: 'text', text: 'Confirmed on prod.' }] }), created: at, updated: at });
      const rc = await deliver(envelope('comment_created', fresh, { comment: { id: '80001', body: 'Confirmed on prod.' } }));
      assert.equal(rc.json().status, 'applied', rc.body);
      assert.equal((await doc('comment:70001:80001'))?.content, 'Confirmed on prod.');

      fresh.comments.length = 0;
      const rd = await deliver(envelope('comment_deleted', fresh, { comment: { id: '80001' } }));
      assert.equal(rd.json().deleted, 1, rd.body);
      assert.equal(await doc('comment:70001:80001'), undefined);
    });

    it('jira:issue_deleted deletes the issue and its comments; a replayed delete of a live issue deletes nothing', async () => {
      const target = issue('ENG-2');
      const comments = target.comments.length;
      const replay = await deliver(envelope('jira:issue_deleted', target));
      assert.equal(replay.json().deleted, 0, 'Jira still has the issue');
      d().issues.splice(d().issues.indexOf(target), 1);
      const r = await deliver(envelope('jira:issue_deleted', target));
      assert.deepEqual(r.json(), { status: 'applied', event: 'jira:issue_deleted', upserted: 0, deleted: 1 + comments });
      assert.equal(await doc(`issue:${target.id}`), undefined);
    });

    it('ignores issues outside the connector projects and drops an issue moved out of them', async () => {
      const des = issue('DES-2');
      const r = await deliver(envelope('jira:issue_updated', des));
      assert.equal(r.json().upserted, 0, r.body);
      assert.equal(await doc(`issue:${des.id}`), undefined);
      const moved = issue('ENG-4');
      assert.ok(await doc(`issue:${moved.id}`));
      const home = moved.project;
      moved.project = des.project;
      const m = await deliver(envelope('jira:issue_updated', moved));
      assert.equal(m.json().deleted, 1, m.body);
      moved.project = home;
    });

    it('rejects a missing or wrong X-Hub-Signature and a tampered body', async () => {
      const payload = envelope('jira:issue_deleted', issue('ENG-5'));
      const bad = await deliver(payload, jiraSignature('not-the-secret', JSON.stringify(payload)));
      assert.equal(bad.statusCode, 401);
      assert.equal(bad.json().error.code, 'invalid_signature');
      const tampered = await deliver(payload, jiraSignature(secret, JSON.stringify({ ...payload, webhookEvent: 'jira:issue_updated' })));
      assert.equal(tampered.statusCode, 401);
      const body = JSON.stringify(payload);
      const unsigned = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/json' }, payload: body });
      assert.equal(unsigned.statusCode, 401);
      assert.match(unsigned.json().error.message, /X-Hub-Signature/);
    });
  });

  it('a revoked API token puts the connector in error with what Jira said', async () => {
    jira.fake.revoke(`${jira.email}:${jira.apiToken}`);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify({ c, requests: jira.fake.requests.slice(-3) }));
      assert.match(c.status_reason, /rejected the credentials: Jira answered 401 .*Client must be authenticated.*API token/);
    } finally {
      jira.fake.allow(`${jira.email}:${jira.apiToken}`);
    }
  });

  it('connects with OAuth (3LO): audience and consent on the authorize URL, cloudId discovered, API through the gateway', async () => {
    const created = await create({ settings: { site_url: jira.siteUrl, projects: ['OPS'], include_comments: false } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://auth.atlassian.com/authorize');
    assert.deepEqual([u.searchParams.get('audience'), u.searchParams.get('prompt'), u.searchParams.get('scope')], ['api.atlassian.com', 'consent', 'read:jira-work read:jira-user offline_access']);
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=atlassian-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = jira.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    const calls = jira.fake.requests.slice(before);
    assert.ok(calls.some((r) => r.path === '/oauth/token/accessible-resources'));
    const api = calls.filter((r) => r.path.includes('/rest/api/3/'));
    assert.ok(api.length > 0 && api.every((r) => r.path.startsWith(`/ex/jira/${jira.cloudId}/rest/api/3/`) && r.token?.startsWith('atl-at-')), JSON.stringify(api.slice(0, 3)));
    const want = [`project:10001`, ...d().issues.filter((i) => i.project.key === 'OPS').map((i) => `issue:${i.id}`)].sort();
    assert.deepEqual(await stored(oauthId), want);
  });
});
