import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADA, type FakeDiscord, startFakeDiscord } from '../fakes/discord.ts';
import { expectedDiscordIds } from './fixtures/discord.ts';
import { type KindHarness, kindHarness } from './support.ts';

describe('discord connector against the fake Discord REST API', () => {
  let h: KindHarness;
  let dc: FakeDiscord;
  let id: string;
  before(async () => {
    dc = await startFakeDiscord();
    h = await kindHarness('discord', dc.url);
  });
  after(async () => {
    await h.close();
    await dc.close();
  });
  const channel = (name: string) => {
    const c = dc.data.channels.find((x) => x.name === name);
    assert.ok(c, name);
    return c;
  };
  const thread = (name: string) => {
    const t = dc.data.threads.find((x) => x.name === name);
    assert.ok(t, name);
    return t;
  };

  it('refuses unknown settings keys and a guild id that is not a snowflake (400 naming the field)', async () => {
    const unknown = await h.create({ credentials: { token: dc.token }, settings: { servers: ['1'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*servers/);
    const bad = await h.create({ credentials: { token: dc.token }, settings: { guilds: ['narwhal-labs'] } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().error.message, /settings\.guilds/);
    const noToken = await h.create({ credentials: {}, settings: {} });
    assert.equal(noToken.statusCode, 400, noToken.body);
    assert.match(noToken.json().error.message, /credentials\.token/);
  });

  it('a full sync reads every guild, text/announcement channel and public thread from message 0, as the bot', async () => {
    const created = await h.create({ credentials: { token: dc.token }, settings: {} });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await h.worker.drain();
    const connected = await h.get(id);
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(String(connected.status_reason), /atrium-bot/);
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await h.stored(id), expectedDiscordIds(dc.data));
    assert.ok(dc.fake.requests.every((r) => r.token === dc.token), 'Authorization: Bot <token>');
    const messageCalls = dc.fake.requestsTo(/^\/channels\/\d+\/messages$/);
    assert.ok(messageCalls.every((r) => r.query.after === '0' && r.query.limit === '100'), JSON.stringify(messageCalls.map((r) => r.query)));
    for (const skipped of ['Lounge', 'Text Channels', 'staff']) assert.equal(dc.fake.requestsTo(`/channels/${channel(skipped).id}/messages`).length, 0, `${skipped} not read`);
    assert.equal(dc.fake.requestsTo(`/channels/${channel('help').id}/threads/archived/public`).length, 1, 'forum posts are archived threads');
  });

  it('maps a message: mentions and channel links as names, embeds and attachments, message link, author, dates, public ACL', async () => {
    const general = channel('general');
    const [welcome, join, , postmortem] = general.messages;
    assert.ok(welcome && join && postmortem);
    const row = await h.doc(id, `msg:${general.id}:${welcome.id}`);
    assert.ok(row);
    assert.equal(row.title, '#general — Ada Lovelace');
    assert.equal(row.content, 'Welcome! The deploy runbook lives in #releases, ask @grace about the staging cluster.');
    assert.equal(row.url, `https://discord.com/channels/${general.guild_id}/${general.id}/${welcome.id}`);
    assert.equal(row.author, 'Ada Lovelace');
    assert.equal(row.document_type, 'message');
    assert.equal(new Date(String(row.created_at)).toISOString(), new Date(welcome.timestamp).toISOString());
    assert.deepEqual(row.acl, { public: true });
    assert.equal(await h.doc(id, `msg:${general.id}:${join.id}`), undefined, 'a member join is housekeeping');
    const pm = await h.doc(id, `msg:${general.id}:${postmortem.id}`);
    assert.equal(pm?.content, 'Thanks! Linking the postmortem.\nPostmortem: expired certificate\nThe wildcard certificate expired at 02:00 UTC.\nAttachments: timeline.pdf');
    const forum = thread('How do I reset my API key?');
    const answer = await h.doc(id, `msg:${forum.id}:${forum.messages[1]?.id}`);
    assert.equal(answer?.title, '#help › How do I reset my API key? — Ada Lovelace');
    assert.equal(answer?.document_type, 'thread_message');
    assert.equal((answer?.metadata as Record<string, unknown> | undefined)?.channel_id, channel('help').id);
  });

  it('an incremental sync reads only channels and threads with newer messages, from the stored id (after=)', async () => {
    const general = channel('general');
    const cert = thread('Certificate rotation');
    const previous = general.messages.at(-1)?.id;
    const fresh = dc.post(general.id, ADA, 'Incident review on Monday.');
    // Posting in an archived thread unarchives it (newer archive timestamp when it closes again).
    const forum = thread('How do I reset my API key?');
    forum.archived = false;
    const reply = dc.post(forum.id, ADA, 'You can also rotate it from the CLI.');
    const from = dc.fake.requests.length;
    const c = await h.sync(id, false);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.equal(c.sync_runs[0]?.added, 2);
    const calls = dc.fake.requests.slice(from).filter((r) => r.path.endsWith('/messages'));
    assert.deepEqual(calls.map((r) => [r.path, r.query.after]).sort(), [[`/channels/${forum.id}/messages`, forum.messages.at(-2)?.id], [`/channels/${general.id}/messages`, previous]].sort());
    assert.equal(calls.filter((r) => r.path === `/channels/${cert.id}/messages`).length, 0, 'an unchanged thread is not read');
    assert.ok(await h.doc(id, `msg:${general.id}:${fresh.id}`));
    assert.ok(await h.doc(id, `msg:${forum.id}:${reply.id}`));
    assert.deepEqual(await h.stored(id), expectedDiscordIds(dc.data));
  });

  it('sync_private: a private channel and its threads carry the discord:channel:<id> group; a channel the bot cannot read is skipped', async () => {
    const staff = channel('staff');
    const hiring = thread('Hiring plan');
    dc.data.noAccess.add(channel('releases').id);
    try {
      const guild = staff.guild_id;
      const created = await h.create({ credentials: { token: dc.token }, settings: { sync_private: true, guilds: [guild] } });
      const pid = created.json().connector_id;
      await h.worker.drain();
      const c = await h.sync(pid, true);
      assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c.sync_runs[0]));
      const ids = await h.stored(pid);
      assert.ok(ids.includes(`msg:${staff.id}:${staff.messages[0]?.id}`));
      assert.ok(!ids.some((x) => x.startsWith(`msg:${channel('random').id}:`)), 'only the listed guild');
      assert.ok(!ids.some((x) => x.startsWith(`msg:${channel('releases').id}:`)), '403 Missing Access: skipped');
      assert.deepEqual((await h.doc(pid, `msg:${staff.id}:${staff.messages[0]?.id}`))?.acl, { groups: [`discord:channel:${staff.id}`] });
      assert.deepEqual((await h.doc(pid, `msg:${hiring.id}:${hiring.messages[0]?.id}`))?.acl, { groups: [`discord:channel:${staff.id}`] });
    } finally {
      dc.data.noAccess.clear();
    }
  });

  it('a Discord 5xx fails the attempt and the job retries; nothing is lost', async () => {
    const before = await h.stored(id);
    dc.fake.failNext(1, 502, (req) => req.path.endsWith('/messages'));
    const r = await h.t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: h.t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await h.worker.drain();
    const job = (await h.t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Discord answered HTTP 502/);
    assert.deepEqual(await h.stored(id), before);
    await h.t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await h.worker.drain();
    assert.equal((await h.get(id)).sync_runs[0]?.status, 'completed');
    assert.deepEqual(await h.stored(id), expectedDiscordIds(dc.data));
  });

  it('a revoked bot token puts the connector in error with what Discord said', async () => {
    dc.fake.revoke(dc.token);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /rejected the credentials: Discord answered 401 .*401: Unauthorized.*bot token/);
    } finally {
      dc.fake.allow(dc.token);
    }
  });
});
