import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { slackSignature } from '../../src/connectors/slack/webhook.ts';
import { type FakeSlack, type FakeSlackChannel, loadSlackExport, startFakeSlack } from '../fakes/slack.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from '../support/app.ts';
import { openTestPostgres } from '../support/db.ts';
import { type Served, spawnServer } from '../support/spawn.ts';
import { connectorWorker } from './support.ts';

const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';

/**
 * A Slack event acknowledged on the 2.5 s deadline survives the API process dying right after its answer:
 * `atrium serve` (role api) on PostgreSQL is killed with SIGKILL after answering 202 `accepted`, and a worker of
 * another process applies the event from the durable `connector.webhook` job.
 */
describe('an acknowledged Slack event survives kill -9 of the API process that answered it (PostgreSQL)', () => {
  let pg: Awaited<ReturnType<typeof openTestPostgres>>;
  let slack: FakeSlack;
  let t: TestApp;
  let api: Served | undefined;
  let id: string;
  let channel: FakeSlackChannel;

  before(async () => {
    pg = await openTestPostgres();
    slack = await startFakeSlack(await loadSlackExport(), { pageSize: 200 });
    channel = slack.channels[0] as FakeSlackChannel;
    const env = { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ slack: slack.url }), ATRIUM_SYNC_SCHEDULER: 'false' };
    t = await createTestApp({ db: pg.db, env });
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: t.admin,
      payload: { connector_type: 'slack', display_name: 'Slack', credentials: { token: slack.token, signing_secret: SIGNING_SECRET }, settings: { channels: [channel.id] } },
    });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await connectorWorker(t).drain(); // validation
    const enabled = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook`, headers: t.admin });
    assert.equal(enabled.statusCode, 201, enabled.body);
    api = await spawnServer({
      ...env,
      DATABASE_URL: pg.url,
      ATRIUM_ROLE: 'api',
      ATRIUM_ADMIN_API_KEY: ADMIN_KEY,
      ATRIUM_SECRET_KEY: 'test-secret-key',
      ATRIUM_DATA_DIR: '/tmp/atrium-test-unused',
    });
  });
  after(async () => {
    if (api && api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
    await t?.close();
    await slack?.close();
    await pg?.drop();
  });

  it('answers 202 accepted, dies, and a worker elsewhere applies the event', async () => {
    assert.ok(api);
    const user = slack.users[1] as { id: string };
    const ts = `${Math.floor(Date.now() / 1000)}.000100`;
    channel.messages.push({ ts, user: user.id, text: 'Acknowledged, then the process died' });
    // The fresh process knows no channel yet: its first Slack call (conversations.info) answers after 3.5 s.
    slack.slowNext(1, 3_500);
    const body = JSON.stringify({
      token: 'XXYYZZ',
      team_id: 'T0BMHLSRH',
      api_app_id: 'A123ABC456',
      type: 'event_callback',
      event_id: 'Ev0DURABLE1',
      event_time: Math.floor(Date.now() / 1000),
      event: { type: 'message', channel: channel.id, user: user.id, text: 'Acknowledged, then the process died', ts, event_ts: ts, channel_type: 'channel' },
    });
    const stamp = String(Math.floor(Date.now() / 1000));
    const res = await fetch(`${api.url}/v1/connectors/${id}/webhook/deliveries`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': stamp, 'x-slack-signature': slackSignature(SIGNING_SECRET, stamp, body) },
      body,
    });
    const answer = (await res.json()) as { status: string; job_id?: string };
    assert.equal(res.status, 202, JSON.stringify(answer));
    assert.equal(answer.status, 'accepted');
    // kill -9 right after the acknowledgement, while Slack is still being asked.
    api.child.kill('SIGKILL');
    await new Promise((r) => api?.child.once('exit', r));
    const doc = async () => (await t.db.query<{ content: string }>('SELECT content FROM documents WHERE source_node = $1 AND external_id = $2', [id, `msg:${channel.id}:${ts}`])).rows[0];
    assert.equal(await doc(), undefined, 'the dead process stored nothing');
    const job = (await t.db.query<{ kind: string; status: string }>('SELECT kind, status FROM jobs WHERE id = $1', [answer.job_id])).rows[0];
    assert.deepEqual(job, { kind: 'connector.webhook', status: 'queued' });
    await connectorWorker(t).drain();
    assert.equal((await doc())?.content, 'Acknowledged, then the process died');
  });
});
