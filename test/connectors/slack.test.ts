import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Worker } from '../../src/platform/jobs/index.ts';

import { type FakeSlack, loadSlackExport, startFakeSlack } from '../fakes/slack.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker, syncConnector } from './support.ts';

describe('slack connector against the fake Slack seeded from the real export', () => {
  let t: TestApp;
  let slack: FakeSlack;
  let worker: Worker;
  let id: string;
  before(async () => {
    const seed = await loadSlackExport();
    // The export has no threads; add one reply so conversations.replies is exercised.
    const parent = seed.channels[0]?.messages.find((m) => !m.subtype && m.text);
    assert.ok(parent);
    seed.channels[0]?.messages.push({ ts: `${parent.ts.split('.')[0]}.999999`, user: parent.user, text: `Agreed, <@${parent.user}> — see <https://example.com/doc|the doc>`, thread_ts: parent.ts });
    slack = await startFakeSlack(seed, { pageSize: 10 });
    t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ slack: slack.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await slack.close();
  });

  const expectedIds = () => {
    const ids: string[] = [];
    // Housekeeping subtypes are skipped; integration messages count by their attachments (most of the export's
    // bot_message posts have empty text).
    const hasContent = (m: (typeof slack.channels)[number]['messages'][number]) => Boolean(m.text.trim() || m.attachments?.some((a) => (a.text ?? a.fallback ?? a.pretext ?? '').trim()));
    for (const c of slack.channels) for (const m of c.messages) if (!(m.subtype?.startsWith('channel_') || m.subtype === 'bot_add' || m.subtype === 'bot_remove' || m.subtype === 'tombstone') && hasContent(m)) ids.push(`msg:${c.id}:${m.ts}`);
    return ids.sort();
  };
  const stored = async () => (await t.db.query<{ external_id: string }>('SELECT external_id FROM documents WHERE source_node = $1 ORDER BY 1', [id])).rows.map((r) => r.external_id);
  const sync = (full: boolean) => syncConnector(t, worker, id, full);

  it('syncs every channel message and thread reply with authors and permalinks', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'slack', display_name: 'Slack', credentials: { token: slack.token } } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const got = await stored();
    const want = expectedIds();
    assert.deepEqual({ missing: want.filter((x) => !got.includes(x)), extra: got.filter((x) => !want.includes(x)) }, { missing: [], extra: [] });
    assert.ok(want.length > 20);
    const doc = await t.db.query<Record<string, unknown>>("SELECT * FROM documents WHERE source_node = $1 AND document_type = 'thread_reply'", [id]);
    const reply = doc.rows[0];
    assert.ok(reply);
    assert.match(String(reply.content), /^Agreed, @[A-Z][a-z]+ [A-Z][a-z]+ — see the doc \(https:\/\/example.com\/doc\)$/);
    assert.match(String(reply.url), /^https:\/\/atrium-test\.slack\.com\/archives\/C\w+\/p\d{16}\?thread_ts=/);
    assert.ok(slack.calls.some((x) => x.method === 'conversations.history' && x.args.cursor), 'history pages followed');
    assert.ok(slack.calls.some((x) => x.method === 'conversations.replies'));
    const authors = await t.db.query<{ author: string }>('SELECT DISTINCT author FROM documents WHERE source_node = $1', [id]);
    assert.ok(authors.rows.some((r) => r.author === 'Harry Potter'), 'user ids resolved to real names');
    const bots = await t.db.query<{ content: string }>("SELECT content FROM documents WHERE source_node = $1 AND content LIKE '%simulated annealing rough draft%'", [id]);
    assert.equal(bots.rows.length, 1, "the export's GitHub commit notices (attachments only) are indexed");
  });

  it('incremental sync asks only for messages after the cursor; 429 is waited out', async () => {
    const channel = slack.channels[1];
    assert.ok(channel);
    const last = channel.messages.at(-1)?.ts ?? '0';
    channel.messages.push({ ts: `${Math.floor(Number(last)) + 100}.000001`, user: slack.users[0]?.id, text: 'A new message after the last sync' });
    slack.calls.length = 0;
    slack.rateLimitNext(1, 1);
    const c = await sync(false);
    assert.equal(c.status, 'idle');
    assert.equal(c.sync_runs[0].added, 1);
    assert.equal(c.sync_runs[0].rate_limited_waits, 1);
    const history = slack.calls.filter((x) => x.method === 'conversations.history');
    assert.ok(history.length > 0 && history.every((x) => x.args.oldest), 'every history call carries oldest');
    assert.deepEqual(await stored(), expectedIds());
  });

  it('incremental sync re-reads the lookback window: edits, deletions and new replies to recent threads', async () => {
    const channel = slack.channels[0];
    assert.ok(channel);
    const user = slack.users[0]?.id;
    const now = Math.floor(Date.now() / 1000);
    const ts = (daysAgo: number, n: number) => `${now - Math.round(daysAgo * 86_400)}.${String(n).padStart(6, '0')}`;
    const root = ts(3, 1);
    channel.messages.push(
      { ts: ts(4, 1), user, text: 'quokka release checklist' },
      { ts: ts(3.5, 1), user, text: 'message that will be deleted' },
      { ts: root, user, text: 'thread about the wombat migration' },
      { ts: ts(2.9, 1), user, text: 'first reply: wombat step one', thread_ts: root },
      { ts: ts(2.8, 1), user, text: 'second reply: to be deleted', thread_ts: root },
    );
    await sync(false);
    assert.deepEqual(await stored(), expectedIds());
    // At Slack: an edit, a deleted message, a deleted reply and a new reply to the 3-day-old thread.
    const edited = channel.messages.find((m) => m.ts === ts(4, 1));
    assert.ok(edited);
    edited.text = 'capybara release checklist';
    edited.edited = { user: user ?? '', ts: ts(0.1, 1) };
    channel.messages.splice(channel.messages.findIndex((m) => m.ts === ts(3.5, 1)), 1);
    channel.messages.splice(channel.messages.findIndex((m) => m.ts === ts(2.8, 1)), 1);
    channel.messages.push({ ts: ts(0.05, 1), user, text: 'late reply: axolotl', thread_ts: root });
    slack.calls.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle');
    assert.deepEqual({ added: c.sync_runs[0].added, updated: c.sync_runs[0].updated, deleted: c.sync_runs[0].deleted }, { added: 1, updated: 1, deleted: 2 });
    assert.deepEqual(await stored(), expectedIds());
    const content = await t.db.query<{ content: string }>('SELECT content FROM documents WHERE source_node = $1 AND external_id = $2', [id, `msg:${channel.id}:${ts(4, 1)}`]);
    assert.equal(content.rows[0]?.content, 'capybara release checklist');
    // Only the thread with a new reply was re-read, and history only as far back as the window.
    const replies = slack.calls.filter((x) => x.method === 'conversations.replies');
    assert.deepEqual([...new Set(replies.map((x) => x.args.ts))], [root]);
    const history = slack.calls.filter((x) => x.method === 'conversations.history' && x.args.channel === channel.id);
    assert.ok(history.every((x) => Number(x.args.oldest) >= now - 8 * 86_400), 'history bounded by the 7-day window');
  });

  it('posts a message through the rule planner', async () => {
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: t.admin, payload: { intent: 'post to #enrique: deploy finished' } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().calls[0].action, 'post_message');
    assert.equal(slack.posted.at(-1)?.text, 'deploy finished');
  });

  it('a wrong token ends in error with what to do', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'slack', display_name: 'bad', credentials: { token: 'xoxb-wrong' } } });
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${created.json().connector_id}`, headers: t.admin })).json();
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /invalid_auth/);
  });
});
