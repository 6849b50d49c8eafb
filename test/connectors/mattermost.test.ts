import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeMattermost, startFakeMattermost } from '../fakes/mattermost.ts';
import { expectedMattermostIds } from './fixtures/mattermost.ts';
import { type KindHarness, kindHarness } from './support.ts';

const SITE = 'https://chat.acme.test';

describe('mattermost connector against the fake Mattermost API v4', () => {
  let h: KindHarness;
  let mm: FakeMattermost;
  let id: string;
  before(async () => {
    mm = await startFakeMattermost();
    h = await kindHarness('mattermost', mm.url, {
      oauthClient: { client_id: 'atrium', client_secret: 'mm-secret-0123456789', authorize_url: `${SITE}/oauth/authorize`, token_url: `${mm.url}/oauth/access_token` },
    });
  });
  after(async () => {
    await h.close();
    await mm.close();
  });
  const channel = (name: string) => {
    const c = mm.data.channels.find((x) => x.name === name);
    assert.ok(c, name);
    return c;
  };
  const postsOf = (name: string) => mm.data.posts.filter((p) => p.channel_id === channel(name).id);

  it('refuses a missing or non-https site_url and unknown keys (400 naming the field)', async () => {
    for (const settings of [{}, { site_url: 'http://chat.acme.test' }, { site_url: 'https://chat.acme.test/?x=1' }]) {
      const r = await h.create({ credentials: { token: mm.token }, settings });
      assert.equal(r.statusCode, 400, JSON.stringify(settings));
      assert.match(r.json().error.message, /settings\.site_url/, r.body);
    }
    const unknown = await h.create({ credentials: { token: mm.token }, settings: { site_url: SITE, team_ids: ['x'] } });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().error.message, /settings.*team_ids/);
  });

  it('a full sync reads every team’s public channels page by page, as Bearer personal access token', async () => {
    const created = await h.create({ credentials: { token: mm.token }, settings: { site_url: SITE } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await h.worker.drain();
    const connected = await h.get(id);
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(String(connected.status_reason), /atrium-reader on chat\.acme\.test/);
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await h.stored(id), expectedMattermostIds(mm.data));
    assert.ok(mm.fake.requests.every((r) => r.token === mm.token));
    const postCalls = mm.fake.requestsTo(/\/posts$/);
    assert.ok(postCalls.length > 0 && postCalls.every((r) => r.query.page === '0' && r.query.per_page === '200' && !r.query.since));
    for (const skipped of ['secret-plans', 'hr', 'old-stuff']) assert.equal(mm.fake.requestsTo(`/api/v4/channels/${channel(skipped).id}/posts`).length, 0, skipped);
  });

  it('maps posts: text with integration attachments and file names, permalink, author names, dates, thread replies, public ACL', async () => {
    const sq = channel('town-square');
    const [welcome, join, reply, ci] = postsOf('town-square');
    assert.ok(welcome && join && reply && ci);
    const row = await h.doc(id, `post:${sq.id}:${welcome.id}`);
    assert.ok(row);
    assert.equal(row.title, '~Town Square — Alice Liddell');
    assert.equal(row.content, 'Welcome to **Acme**! Release notes go to ~dev, questions here.');
    assert.equal(row.url, `${SITE}/acme/pl/${welcome.id}`);
    assert.equal(row.author, 'Alice Liddell');
    assert.equal(row.document_type, 'message');
    assert.equal(new Date(String(row.created_at)).getTime(), welcome.create_at);
    assert.deepEqual(row.acl, { public: true });
    assert.equal(await h.doc(id, `post:${sq.id}:${join.id}`), undefined, 'system posts are housekeeping');
    const r = await h.doc(id, `post:${sq.id}:${reply.id}`);
    assert.equal(r?.document_type, 'thread_reply');
    assert.equal(r?.title, '~Town Square (thread reply) — Bobby');
    assert.equal((r?.metadata as Record<string, unknown> | undefined)?.root_id, welcome.id);
    assert.equal((await h.doc(id, `post:${sq.id}:${ci.id}`))?.content, 'Build #42\nmain passed\nAll 1,204 tests green.');
    assert.equal((await h.doc(id, `post:${sq.id}:${ci.id}`))?.author, 'ci-bot');
    const dev = postsOf('dev')[0];
    assert.equal((await h.doc(id, `post:${channel('dev').id}:${dev?.id}`))?.content, 'Postgres 16 upgrade plan attached.\nAttachments: upgrade-plan.pdf');
  });

  it('an incremental sync asks each channel what changed since its stored time: new and edited posts, deletions by delete_at', async () => {
    const sq = channel('town-square');
    const stored = (await h.t.db.query<{ sync_cursor: { channels: Record<string, number> } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    const since = stored?.channels[sq.id];
    assert.ok(since);
    const [welcome, , reply] = postsOf('town-square');
    assert.ok(welcome && reply);
    const fresh = mm.post(sq.id, mm.data.users[1]?.id ?? '', 'Standup moved to 10:00.');
    mm.edit(welcome.id, 'Welcome to **Acme**! Release notes go to ~dev.');
    mm.remove(reply.id);
    const from = mm.fake.requests.length;
    const c = await h.sync(id, false);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual([c.sync_runs[0]?.added, c.sync_runs[0]?.updated, c.sync_runs[0]?.deleted], [1, 1, 1]);
    const calls = mm.fake.requests.slice(from).filter((r) => r.path.endsWith('/posts'));
    assert.equal(calls.find((r) => r.path === `/api/v4/channels/${sq.id}/posts`)?.query.since, String(since));
    assert.ok(calls.every((r) => r.query.since && !r.query.page), 'since alone, as the API requires');
    assert.ok(await h.doc(id, `post:${sq.id}:${fresh.id}`));
    assert.equal((await h.doc(id, `post:${sq.id}:${welcome.id}`))?.content, 'Welcome to **Acme**! Release notes go to ~dev.');
    assert.equal(await h.doc(id, `post:${sq.id}:${reply.id}`), undefined);
    assert.deepEqual(await h.stored(id), expectedMattermostIds(mm.data));
  });

  it('sync_private: private channels the account is in carry mattermost:channel:<id>, members mirrored as the group', async () => {
    const created = await h.create({ credentials: { token: mm.token }, settings: { site_url: SITE, sync_private: true, teams: ['acme'] } });
    const pid = created.json().connector_id;
    await h.worker.drain();
    const c = await h.sync(pid, true);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c.sync_runs[0]));
    const secret = channel('secret-plans');
    const post = postsOf('secret-plans')[0];
    const row = await h.doc(pid, `post:${secret.id}:${post?.id}`);
    assert.deepEqual(row?.acl, { groups: [`mattermost:channel:${secret.id}`] });
    assert.ok(!(await h.stored(pid)).some((x) => x.startsWith(`post:${channel('hr').id}:`)), 'not a member: not listed');
    assert.ok(!(await h.stored(pid)).some((x) => x.startsWith(`post:${channel('random').id}:`)), 'only the listed team');
    const members = await h.t.db.query<{ member: string }>('SELECT member FROM identity_memberships WHERE group_id = $1 ORDER BY 1', [`mattermost:channel:${secret.id}`]);
    assert.deepEqual(members.rows.map((r) => r.member), secret.members.map((m) => `mattermost:${m}`).sort());
  });

  it('a Mattermost 5xx fails the attempt and the job retries; nothing is lost', async () => {
    const before = await h.stored(id);
    mm.fake.failNext(1, 503, (req) => req.path.endsWith('/posts'));
    const r = await h.t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: h.t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await h.worker.drain();
    const job = (await h.t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued');
    assert.match(String(job?.last_error), /Mattermost answered HTTP 503/);
    assert.deepEqual(await h.stored(id), before);
    await h.t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await h.worker.drain();
    assert.equal((await h.get(id)).sync_runs[0]?.status, 'completed');
  });

  it('a revoked token puts the connector in error with what Mattermost said', async () => {
    mm.fake.revoke(mm.token);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /rejected the credentials: Mattermost answered 401 .*Invalid or expired session.*personal access token/);
    } finally {
      mm.fake.allow(mm.token);
    }
  });

  it('connects with OAuth at the server set in ATRIUM_OAUTH_CLIENTS and syncs with the Bearer access token', async () => {
    const created = await h.create({ settings: { site_url: SITE, teams: ['other-team'] } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, `${SITE}/oauth/authorize`);
    const cb = await h.t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=mattermost-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oid = created.json().connector_id;
    const from = mm.fake.requests.length;
    const c = await h.sync(oid, true);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c));
    const calls = mm.fake.requests.slice(from).filter((r) => r.path.startsWith('/api/v4/'));
    assert.ok(calls.length > 0 && calls.every((r) => r.token?.startsWith('mm-oauth-')), JSON.stringify(calls.slice(0, 3)));
    assert.deepEqual(await h.stored(oid), postsOf('random').map((p) => `post:${channel('random').id}:${p.id}`).sort());
  });
});
