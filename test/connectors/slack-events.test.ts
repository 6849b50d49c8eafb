import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { slackSignature } from '../../src/connectors/slack/webhook.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeSlack, type FakeSlackChannel, loadSlackExport, startFakeSlack } from '../fakes/slack.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker } from './support.ts';

const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';

/** Slack's documented `event_callback` envelope around one event. */
const envelope = (event: Record<string, unknown>, id = `Ev${Math.random().toString(36).slice(2, 12).toUpperCase()}`) => ({
  token: 'XXYYZZ',
  team_id: 'T0BMHLSRH',
  api_app_id: 'A123ABC456',
  event,
  type: 'event_callback',
  authed_users: ['UBOT'],
  event_id: id,
  event_time: Math.floor(Date.now() / 1000),
});

describe('slack Events API webhooks', () => {
  let t: TestApp;
  let slack: FakeSlack;
  let worker: Worker;
  let id: string;
  let deliveryPath: string;
  let enrique: FakeSlackChannel;
  let sailor: FakeSlackChannel;
  let tsSeq = 0;
  const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(++tsSeq).padStart(6, '0')}`;

  before(async () => {
    const seed = await loadSlackExport();
    seed.channels.push({ id: 'G0PRIVATE1', name: 'secret-plans', is_private: true, messages: [] });
    slack = await startFakeSlack(seed, { pageSize: 50 });
    enrique = slack.channels.find((c) => c.name === 'enrique') as FakeSlackChannel;
    sailor = slack.channels.find((c) => c.name === 'traveling-sailor') as FakeSlackChannel;
    assert.ok(enrique && sailor);
    t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ slack: slack.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = connectorWorker(t);
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: t.admin,
      payload: { connector_type: 'slack', display_name: 'Slack', credentials: { token: slack.token, signing_secret: SIGNING_SECRET }, settings: { channels: [enrique.id] } },
    });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain(); // validation
    const sync = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(sync.statusCode, 202, sync.body);
    await worker.drain();
  });
  after(async () => {
    await t.close();
    await slack.close();
  });

  const deliver = (payload: unknown, opts: { secret?: string; timestamp?: number; headers?: Record<string, string> } = {}) => {
    const body = JSON.stringify(payload);
    const ts = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
    return t.app.inject({
      method: 'POST',
      url: deliveryPath,
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': ts,
        'x-slack-signature': slackSignature(opts.secret ?? SIGNING_SECRET, ts, body),
        ...opts.headers,
      },
      payload: body,
    });
  };
  const doc = async (externalId: string) =>
    (await t.db.query<Record<string, unknown>>('SELECT title, content, url, author, document_type, metadata FROM documents WHERE source_node = $1 AND external_id = $2', [id, externalId])).rows[0];
  const count = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE source_node = $1', [id])).rows[0]?.n;
  const user = () => slack.users[1] as { id: string; real_name: string };

  it('enabling returns the delivery URL and no secret: Slack issues it, the credentials hold it', async () => {
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook`, headers: t.admin });
    assert.equal(r.statusCode, 201, r.body);
    const body = r.json();
    assert.equal(body.secret, null);
    assert.deepEqual(body.events, ['message.channels', 'message.groups', 'channel_rename', 'group_rename']);
    assert.doesNotMatch(r.body, new RegExp(SIGNING_SECRET));
    deliveryPath = new URL(body.delivery_url).pathname;
    assert.equal(deliveryPath, `/v1/connectors/${id}/webhook/deliveries`);
    const detail = await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin });
    assert.doesNotMatch(detail.body, new RegExp(SIGNING_SECRET));
    const catalog = (await t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: t.admin })).json();
    const entry = catalog.connectors.find((k: { connector_type: string }) => k.connector_type === 'slack');
    assert.deepEqual(entry?.webhook_events, body.events);
    assert.ok(entry?.credentials_schema.properties.signing_secret, 'signing_secret is a documented credential');
  });

  it('without a signing secret in the credentials, enabling is refused with what to do', async () => {
    const other = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'slack', display_name: 'no secret', credentials: { token: slack.token } } });
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${other.json().connector_id}/webhook`, headers: t.admin });
    assert.equal(r.statusCode, 422, r.body);
    assert.match(r.json().error.message, /signing secret/);
    await t.app.inject({ method: 'DELETE', url: `/v1/connectors/${other.json().connector_id}`, headers: t.admin });
  });

  it('answers url_verification with the challenge (signed), refuses it unsigned', async () => {
    const challenge = '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P';
    const payload = { token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge, type: 'url_verification' };
    const r = await deliver(payload);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { challenge });
    const bad = await deliver(payload, { secret: 'not-the-signing-secret' });
    assert.equal(bad.statusCode, 401);
  });

  it('a new message, a thread reply, an edit and a deletion appear, change and disappear', async () => {
    const ts = nextTs();
    const m = { ts, user: user().id, text: `Webhook hello <@${slack.users[0]?.id}>, see <https://example.com/a|the plan>` };
    enrique.messages.push(m);
    const r = await deliver(envelope({ type: 'message', channel: enrique.id, user: m.user, text: m.text, ts, event_ts: ts, channel_type: 'channel', client_msg_id: 'x1' }));
    assert.equal(r.statusCode, 202, r.body);
    assert.equal(r.json().status, 'applied');
    const d = await doc(`msg:${enrique.id}:${ts}`);
    assert.equal(d?.content, `Webhook hello @${slack.users[0]?.real_name}, see the plan (https://example.com/a)`);
    assert.equal(d?.author, user().real_name);
    assert.equal(d?.title, `#enrique — ${user().real_name}`);
    assert.equal(d?.url, `https://atrium-test.slack.com/archives/${enrique.id}/p${ts.replace('.', '')}`);

    const parentTs = nextTs();
    const replyTs = nextTs();
    enrique.messages.push({ ts: parentTs, user: user().id, text: 'Start of a thread', thread_ts: parentTs }, { ts: replyTs, user: user().id, text: 'A reply in the thread', thread_ts: parentTs });
    const parent = await deliver(envelope({ type: 'message', channel: enrique.id, user: user().id, text: 'Start of a thread', ts: parentTs, event_ts: parentTs, channel_type: 'channel' }));
    assert.equal(parent.json().status, 'applied', parent.body);
    const reply = await deliver(envelope({ type: 'message', channel: enrique.id, user: user().id, text: 'A reply in the thread', ts: replyTs, thread_ts: parentTs, parent_user_id: user().id, event_ts: replyTs, channel_type: 'channel' }));
    assert.equal(reply.json().status, 'applied', reply.body);
    const rd = await doc(`msg:${enrique.id}:${replyTs}`);
    assert.equal(rd?.document_type, 'thread_reply');
    assert.match(String(rd?.url), new RegExp(`\\?thread_ts=${parentTs.replace('.', '\\.')}&cid=${enrique.id}$`));

    const editTs = nextTs();
    Object.assign(m, { text: 'Webhook hello, edited', edited: { user: user().id, ts: editTs } });
    const changed = await deliver(
      envelope({
        type: 'message',
        subtype: 'message_changed',
        hidden: true,
        channel: enrique.id,
        channel_type: 'channel',
        ts: editTs,
        event_ts: editTs,
        message: { type: 'message', user: user().id, text: 'Webhook hello, edited', ts, edited: { user: user().id, ts: editTs } },
        previous_message: { type: 'message', user: user().id, text: 'Webhook hello', ts },
      }),
    );
    assert.equal(changed.json().status, 'applied', changed.body);
    assert.equal((await doc(`msg:${enrique.id}:${ts}`))?.content, 'Webhook hello, edited');

    // Slack's own sync of the same messages stores them unchanged: the webhook maps exactly like the sync.
    const sync = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(sync.statusCode, 202, sync.body);
    await worker.drain();
    const run = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json().sync_runs[0];
    assert.deepEqual([run.status, run.added, run.updated, run.deleted], ['completed', 0, 0, 0]);

    const delTs = nextTs();
    enrique.messages.splice(enrique.messages.indexOf(m), 1);
    const deleted = await deliver(
      envelope({ type: 'message', subtype: 'message_deleted', hidden: true, channel: enrique.id, channel_type: 'channel', ts: delTs, deleted_ts: ts, event_ts: delTs, previous_message: { type: 'message', user: user().id, text: 'Webhook hello, edited', ts } }),
    );
    assert.equal(deleted.json().status, 'applied', deleted.body);
    assert.equal(deleted.json().deleted, 1);
    assert.equal(await doc(`msg:${enrique.id}:${ts}`), undefined);
  });

  it('a retried delivery applies Slack’s current state: a late retry never resurrects a deleted message', async () => {
    const ts = nextTs();
    const ev = envelope({ type: 'message', channel: enrique.id, user: user().id, text: 'Soon gone', ts, event_ts: ts, channel_type: 'channel' });
    // Never stored in Slack any more (deleted meanwhile): the retry must not store the stale payload.
    const gone = await deliver(ev, { headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } });
    assert.equal(gone.statusCode, 202, gone.body);
    assert.equal(await doc(`msg:${enrique.id}:${ts}`), undefined);
    assert.ok(slack.calls.some((c) => c.method === 'conversations.history' && c.args.latest === ts && c.args.inclusive === 'true'));
    // Present in Slack, edited since: the retry stores the edited text.
    enrique.messages.push({ ts, user: user().id, text: 'Still here, edited', edited: { user: user().id, ts: nextTs() } });
    const again = await deliver(ev, { headers: { 'x-slack-retry-num': '2', 'x-slack-retry-reason': 'http_timeout' } });
    assert.equal(again.json().status, 'applied', again.body);
    assert.equal((await doc(`msg:${enrique.id}:${ts}`))?.content, 'Still here, edited');
    const twice = await deliver(ev, { headers: { 'x-slack-retry-num': '3', 'x-slack-retry-reason': 'http_timeout' } });
    assert.equal(twice.json().upserted, 0, 'a repeated delivery changes nothing');
  });

  it('answers before Slack’s 3 s deadline when Slack is slow and hands the event to a durable job; the answering process stops there', async () => {
    const ts = nextTs();
    enrique.messages.push({ ts, user: user().id, text: 'Slow path message' });
    slack.slowNext(1, 3_500);
    const ev = envelope({ type: 'message', channel: enrique.id, user: user().id, text: 'Slow path message', ts, event_ts: ts, channel_type: 'channel' });
    const r = await deliver(ev, { headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } });
    assert.equal(r.statusCode, 202, r.body);
    // 'accepted' = answered on the 2.5 s deadline while Slack (3.5 s) was still being asked; no wall-clock assertion.
    assert.equal(r.json().status, 'accepted');
    const jobId = r.json().job_id as string;
    const job = (await t.db.query<{ kind: string; status: string; payload: { connectorId: string; headers: Record<string, string>; payload: { event: { ts: string } } } }>('SELECT kind, status, payload FROM jobs WHERE id = $1', [jobId])).rows[0];
    assert.ok(job, 'the acknowledged delivery is a job row before the answer');
    assert.equal(job.kind, 'connector.webhook');
    assert.equal(job.status, 'queued');
    assert.equal(job.payload.connectorId, id);
    assert.equal(job.payload.payload.event.ts, ts);
    assert.equal(job.payload.headers['x-slack-signature'], undefined, 'no signature is kept in the job');
    assert.equal(job.payload.headers['x-slack-retry-num'], '1');
    // Slack retries the same delivery meanwhile (another deadline miss): it joins the queued job.
    slack.slowNext(1, 3_500);
    const retry = await deliver(ev, { headers: { 'x-slack-retry-num': '2', 'x-slack-retry-reason': 'http_timeout' } });
    if (retry.json().status === 'accepted') assert.equal(retry.json().job_id, jobId);
    // The answering process abandoned its attempt (as if it had died): after Slack's slow answers nothing is stored.
    await new Promise((res) => setTimeout(res, 4_500));
    if (retry.json().status !== 'applied') assert.equal(await doc(`msg:${enrique.id}:${ts}`), undefined);
    // A worker (any process) applies the job with the same code.
    await worker.drain();
    assert.equal((await doc(`msg:${enrique.id}:${ts}`))?.content, 'Slow path message');
    const done = (await t.db.query<{ status: string; result: { status: string; event: string } }>('SELECT status, result FROM jobs WHERE id = $1', [jobId])).rows[0];
    assert.equal(done?.status, 'completed');
    assert.equal(done?.result.event, 'message');
  });

  it('a deferred delivery applies Slack’s current state (idempotent): a message deleted before the worker ran is not stored', async () => {
    const ts = nextTs();
    enrique.messages.push({ ts, user: user().id, text: 'Deleted before the worker' });
    slack.slowNext(1, 3_500);
    // Not a retry: the (slow) call Slack is asked is users.info for a mentioned user.
    const text = 'Deleted before the worker, cc <@U0NOBODY1>';
    enrique.messages[enrique.messages.length - 1] = { ts, user: user().id, text };
    const r = await deliver(envelope({ type: 'message', channel: enrique.id, user: user().id, text, ts, event_ts: ts, channel_type: 'channel' }));
    assert.equal(r.json().status, 'accepted', r.body);
    enrique.messages.pop();
    await new Promise((res) => setTimeout(res, 4_000));
    await worker.drain();
    assert.equal(await doc(`msg:${enrique.id}:${ts}`), undefined);
    const job = (await t.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM jobs WHERE id = $1', [r.json().job_id])).rows[0];
    assert.equal(job?.status, 'completed');
  });

  it('ignores channels outside the settings, private channels without sync_private, and housekeeping messages', async () => {
    const before = await count();
    const ts = nextTs();
    sailor.messages.push({ ts, user: user().id, text: 'Not in scope' });
    const out = await deliver(envelope({ type: 'message', channel: sailor.id, user: user().id, text: 'Not in scope', ts, event_ts: ts, channel_type: 'channel' }));
    assert.equal(out.statusCode, 202, out.body);
    assert.equal(out.json().status, 'ignored');
    const priv = await deliver(envelope({ type: 'message', channel: 'G0PRIVATE1', user: user().id, text: 'Private', ts, event_ts: ts, channel_type: 'group' }));
    assert.equal(priv.json().status, 'ignored');
    const dm = await deliver(envelope({ type: 'message', channel: 'D0DIRECT1', user: user().id, text: 'DM', ts, event_ts: ts, channel_type: 'im' }));
    assert.equal(dm.json().status, 'ignored');
    const join = await deliver(envelope({ type: 'message', subtype: 'channel_join', channel: enrique.id, user: user().id, text: `<@${user().id}> has joined the channel`, ts, event_ts: ts, channel_type: 'channel' }));
    assert.equal(join.json().status, 'ignored');
    assert.equal(await count(), before);
  });

  it('rejects a bad signature, a tampered body and a stale (replayed) timestamp with 401; nothing is stored', async () => {
    const before = await count();
    const ts = nextTs();
    enrique.messages.push({ ts, user: user().id, text: 'Forged' });
    const ev = envelope({ type: 'message', channel: enrique.id, user: user().id, text: 'Forged', ts, event_ts: ts, channel_type: 'channel' });
    const bad = await deliver(ev, { secret: 'wrong-secret' });
    assert.equal(bad.statusCode, 401);
    assert.equal(bad.json().error.code, 'invalid_signature');
    const stale = await deliver(ev, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    assert.equal(stale.statusCode, 401);
    assert.match(stale.json().error.message, /5 minute window/);
    const now = String(Math.floor(Date.now() / 1000));
    const tampered = await t.app.inject({
      method: 'POST',
      url: deliveryPath,
      headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': now, 'x-slack-signature': slackSignature(SIGNING_SECRET, now, '{"type":"event_callback"}') },
      payload: JSON.stringify(ev),
    });
    assert.equal(tampered.statusCode, 401);
    const unsigned = await t.app.inject({ method: 'POST', url: deliveryPath, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ev) });
    assert.equal(unsigned.statusCode, 401);
    assert.equal(await count(), before);
    enrique.messages.pop();
  });

  it('a channel rename re-maps that channel’s messages under the new name', async () => {
    enrique.name = 'enrique-renamed';
    const r = await deliver(
      envelope({ type: 'channel_rename', channel: { id: enrique.id, name: 'enrique-renamed', name_normalized: 'enrique-renamed', created: 1452837318, is_channel: true, is_mpim: false }, event_ts: nextTs() }),
    );
    assert.equal(r.statusCode, 202, r.body);
    assert.ok(['applied', 'accepted'].includes(r.json().status), r.body);
    if (r.json().status === 'accepted') await worker.drain();
    const titles = async () =>
      (await t.db.query<{ title: string; channel: string }>("SELECT title, metadata->>'channel' AS channel FROM documents WHERE source_node = $1", [id])).rows;
    for (let i = 0; i < 100 && (await titles()).some((x) => x.channel !== 'enrique-renamed'); i++) await new Promise((res) => setTimeout(res, 100));
    const rows = await titles();
    assert.ok(rows.length > 20);
    assert.ok(rows.every((x) => x.channel === 'enrique-renamed' && x.title.startsWith('#enrique-renamed')), JSON.stringify(rows.slice(0, 3)));
  });

  it('while the connector is paused a delivery is ignored and named by its Slack event', async () => {
    const paused = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/pause`, headers: t.admin });
    assert.equal(paused.json().status, 'paused', paused.body);
    try {
      const ts = nextTs();
      const r = await deliver(envelope({ type: 'message', subtype: 'message_deleted', channel: enrique.id, deleted_ts: ts, ts: nextTs(), channel_type: 'channel' }));
      assert.equal(r.statusCode, 202, r.body);
      assert.deepEqual(r.json(), { status: 'ignored', event: 'message.message_deleted', reason: 'connector is paused' });
      const rename = await deliver(envelope({ type: 'channel_rename', channel: { id: enrique.id, name: 'x' }, event_ts: nextTs() }));
      assert.equal(rename.json().event, 'channel_rename');
    } finally {
      await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/resume`, headers: t.admin });
    }
  });
});
