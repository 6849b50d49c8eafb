import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeZulip, startFakeZulip } from '../fakes/zulip.ts';
import { expectedZulipIds } from './fixtures/zulip.ts';
import { type KindHarness, kindHarness } from './support.ts';

const SITE = 'https://acme.zulipchat.com';

describe('zulip connector against the fake Zulip REST API', () => {
  let h: KindHarness;
  let zu: FakeZulip;
  let id: string;
  before(async () => {
    zu = await startFakeZulip();
    h = await kindHarness('zulip', zu.url);
  });
  after(async () => {
    await h.close();
    await zu.close();
  });
  const creds = () => ({ email: zu.email, api_key: zu.apiKey });
  const messageCalls = (from = 0) => zu.fake.requests.slice(from).filter((r) => r.path === '/api/v1/messages');

  it('refuses a missing or non-https site_url, unknown keys and a bad email (400 naming the field)', async () => {
    for (const settings of [{}, { site_url: 'http://chat.example.com' }, { site_url: 'acme.zulipchat.com' }]) {
      const r = await h.create({ credentials: creds(), settings });
      assert.equal(r.statusCode, 400, JSON.stringify(settings));
      assert.match(r.json().error.message, /settings\.site_url/, r.body);
    }
    const unknown = await h.create({ credentials: creds(), settings: { site_url: SITE, streams: ['x'] } });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().error.message, /settings.*streams/);
    const email = await h.create({ credentials: { email: 'not-an-email', api_key: 'k' }, settings: { site_url: SITE } });
    assert.equal(email.statusCode, 400);
    assert.match(email.json().error.message, /credentials\.email/);
  });

  it('a full sync lists each public channel’s topics and reads every topic whole (raw Markdown), as email:api_key', async () => {
    const created = await h.create({ credentials: creds(), settings: { site_url: `${SITE}/` } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await h.worker.drain();
    const connected = await h.get(id);
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(String(connected.status_reason), /Reader Bot on acme\.zulipchat\.com/);
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await h.stored(id), expectedZulipIds(zu.data));
    assert.deepEqual(zu.fake.requests.filter((r) => r.token !== zu.basic), [], 'HTTP Basic email:api_key');
    assert.deepEqual(zu.fake.requestsTo(/\/topics$/).map((r) => r.path).sort(), ['/api/v1/users/me/1/topics', '/api/v1/users/me/2/topics'], 'archived and private channels skipped');
    const calls = messageCalls();
    assert.equal(calls.length, 3, 'one request per topic');
    for (const r of calls) {
      assert.deepEqual([r.query.anchor, r.query.include_anchor, r.query.num_before, r.query.num_after, r.query.apply_markdown], ['oldest', 'true', '0', '1000', 'false']);
      assert.match(String(r.query.narrow), /^\[\{"operator":"stream","operand":\d+\},\{"operator":"topic","operand":".+"\}\]$/);
    }
  });

  it('maps a topic: its messages in order under names and times, mentions as text, web-app link, first sender, dates, public ACL', async () => {
    const row = await h.doc(id, 'topic:1:deploy pipeline');
    assert.ok(row);
    assert.equal(row.title, '#engineering > deploy pipeline');
    assert.equal(row.document_type, 'topic');
    assert.equal(row.url, `${SITE}/#narrow/stream/1-engineering/topic/deploy.20pipeline`);
    assert.equal(row.author, 'Iago');
    const content = String(row.content);
    assert.match(content, /^Iago — 2026-04-06 \d\d:\d\d UTC\nThe deploy pipeline fails on the migration step since Friday\./);
    assert.ok(content.includes('King Hamlet — '));
    assert.ok(content.includes('@Iago it is the lock timeout, see #engineering > database.'), content);
    assert.ok(content.endsWith('Fixed, thanks @King Hamlet!'), content);
    const msgs = zu.data.messages.filter((m) => m.subject === 'deploy pipeline');
    assert.equal(new Date(String(row.created_at)).getTime(), (msgs[0]?.timestamp ?? 0) * 1000);
    assert.equal(new Date(String(row.updated_at)).getTime(), (msgs.at(-1)?.timestamp ?? 0) * 1000);
    assert.deepEqual(row.acl, { public: true });
    assert.equal((row.metadata as Record<string, unknown>).message_count, 3);
    const logo = await h.doc(id, 'topic:2:logo (v2)');
    assert.equal(logo?.url, `${SITE}/#narrow/stream/2-design-team/topic/logo.20.28v2.29`);
  });

  it('an incremental sync walks each channel after its stored newest id (include_anchor=false) and re-reads only the touched topics', async () => {
    const newest = Math.max(...zu.data.messages.filter((m) => m.stream_id === 1).map((m) => m.id));
    zu.post(1, 'database', 11, 'Also raised it on production.');
    zu.post(1, 'on-call', 13, 'Who is on call this weekend?');
    const from = zu.fake.requests.length;
    const c = await h.sync(id, false);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual([c.sync_runs[0]?.added, c.sync_runs[0]?.updated], [1, 1]);
    const calls = messageCalls(from);
    const walk = calls.find((r) => !String(r.query.narrow).includes('topic') && String(r.query.narrow).includes('"operand":1'));
    assert.deepEqual([walk?.query.anchor, walk?.query.include_anchor], [String(newest), 'false']);
    const topics = calls.filter((r) => String(r.query.narrow).includes('"topic"')).map((r) => JSON.parse(String(r.query.narrow))[1].operand);
    assert.deepEqual(topics.sort(), ['database', 'on-call']);
    assert.equal(zu.fake.requestsTo(/\/topics$/).length, 2, 'no topic listing in an incremental sync');
    assert.match(String((await h.doc(id, 'topic:1:database'))?.content), /Othello — .*\nRaised lock_timeout.*\n\nIago — .*\nAlso raised it on production\./s);
    assert.deepEqual(await h.stored(id), expectedZulipIds(zu.data));
  });

  it('sync_private: invite-only channels carry zulip:stream:<id>, their subscribers mirrored as the group', async () => {
    const created = await h.create({ credentials: creds(), settings: { site_url: SITE, sync_private: true, channels: ['leadership', 'engineering'] } });
    const pid = created.json().connector_id;
    await h.worker.drain();
    const c = await h.sync(pid, true);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c.sync_runs[0]));
    const ids = await h.stored(pid);
    assert.ok(ids.includes('topic:3:budget'));
    assert.ok(!ids.some((x) => x.startsWith('topic:2:')), 'only the listed channels');
    assert.deepEqual((await h.doc(pid, 'topic:3:budget'))?.acl, { groups: ['zulip:stream:3'] });
    const members = await h.t.db.query<{ member: string }>('SELECT member FROM identity_memberships WHERE group_id = $1 ORDER BY 1', ['zulip:stream:3']);
    assert.deepEqual(members.rows.map((r) => r.member), ['zulip:11', 'zulip:8']);
  });

  it('a Zulip 5xx fails the attempt and the job retries; nothing is lost', async () => {
    const before = await h.stored(id);
    zu.fake.failNext(1, 502, (req) => req.path === '/api/v1/messages');
    const r = await h.t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: h.t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await h.worker.drain();
    const job = (await h.t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued');
    assert.match(String(job?.last_error), /Zulip answered HTTP 502/);
    assert.deepEqual(await h.stored(id), before);
    await h.t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await h.worker.drain();
    assert.equal((await h.get(id)).sync_runs[0]?.status, 'completed');
  });

  it('a revoked API key puts the connector in error with what Zulip said', async () => {
    zu.fake.revoke(zu.basic);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /rejected the credentials: Zulip answered 401 .*Invalid API key.*API key/);
    } finally {
      zu.fake.allow(zu.basic);
    }
  });
});
