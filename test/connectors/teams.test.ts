import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeChannel, type FakeGraph, type FakeMessage, startFakeGraph } from '../fakes/teams.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('teams connector against the fake Microsoft Graph', () => {
  let t: TestApp;
  let graph: FakeGraph;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Pages of 3 and 1 expanded reply: nextLink paging and replies@odata.nextLink are both exercised.
    graph = await startFakeGraph({ pageSize: 3, expandLimit: 1 });
    ({ t, worker } = await kindHarness('teams', `${graph.url}/v1.0`, { clock, oauthClient: { client_id: 'teams-client', client_secret: 'teams-client-secret', token_url: `${graph.url}/organizations/oauth2/v2.0/token` } }));
  });
  after(async () => {
    await t.close();
    await graph.close();
  });

  const channels = (): FakeChannel[] => [...new Map(graph.teams.flatMap((x) => x.channels).map((c) => [c.id, c])).values()];
  const live = (m: FakeMessage) => m.messageType === 'message' && !m.deleted;
  const expectedIds = () =>
    channels()
      // A deleted post's replies stay (Teams keeps showing them).
      .flatMap((c) => c.messages.filter((m) => m.messageType === 'message').flatMap((m) => [...(live(m) ? [`message:${c.id}:${m.id}`] : []), ...m.replies.filter(live).map((r) => `reply:${c.id}:${m.id}:${r.id}`)]))
      .sort();
  const stored = async () => storedIds(t.db, id);
  const doc = async (externalId: string) => storedDocument(t.db, id, externalId);
  const sync = (full: boolean) => syncConnector(t, worker, id, full);
  const general = () => graph.teams[0]?.channels[0] as FakeChannel;
  const rollout = () => general().messages.find((m) => m.subject === 'Payments gateway rollout') as FakeMessage;

  it('connects through the Microsoft identity platform (authorization code) and names the account', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'teams', display_name: 'Teams' } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://login.microsoftonline.com/organizations/oauth2/v2.0/authorize');
    assert.equal(u.searchParams.get('scope'), 'Team.ReadBasic.All Channel.ReadBasic.All ChannelMessage.Read.All GroupMember.Read.All ChannelMember.Read.All offline_access User.Read');
    const done = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=ms-auth-code` });
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(done.json(), { status: 'connected', connector_id: id, created: false });
  });

  it('a full sync stores every channel message and reply once (shared channels once), mapped to readable documents', async () => {
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    assert.equal(c.sync_runs[0].added, expectedIds().length);
    // Paged with @odata.nextLink, $top ≤ 50, replies beyond the expanded ones read from …/replies.
    assert.ok(graph.requests.some((r) => r.path.endsWith('/messages') && r.query.$skiptoken));
    assert.ok(graph.requests.some((r) => r.path.endsWith('/replies')));
    assert.ok(graph.requests.filter((r) => r.path.endsWith('/messages')).every((r) => !r.query.$top || Number(r.query.$top) <= 50));
    assert.equal(graph.requests.filter((r) => r.path === `/v1.0/teams/${graph.teams[1]?.id}/channels/19:7d6c5b4a3f2e4d1c0b9a8f7e6d5c4b3a@thread.tacv2/messages`).length, 0, 'the shared channel is read through its first team only');

    const root = rollout();
    const row = await doc(`message:${general().id}:${root.id}`);
    assert.ok(row);
    assert.equal(row.title, 'General — Payments gateway rollout');
    assert.equal(row.content, 'Payments gateway rollout\n\nRollout plan for the payments gateway v2: canary on Monday, @Jane Smith owns the runbook.\n\nAttachments: runbook.docx');
    assert.match(String(row.url), /^https:\/\/teams\.microsoft\.com\/l\/message\/19%3A4a95f7d8db4c4e7fae857bcebe0623e6%40thread\.tacv2\//);
    assert.equal(row.author, `teams:${graph.users[0]?.id}`);
    assert.equal(row.document_type, 'message');
    assert.equal(new Date(String(row.created_at)).toISOString().slice(0, 19), root.created.slice(0, 19));
    assert.deepEqual(row.acl, { groups: [`teams:team:${graph.teams[0]?.id}`] });
    const meta = row.metadata as Record<string, unknown>;
    assert.equal(meta.team, 'Contoso Engineering');
    assert.equal(meta.author_name, 'Robin Kline');
    assert.deepEqual(meta.mentions, ['Jane Smith']);

    const reply = root.replies[0] as FakeMessage;
    const r = await doc(`reply:${general().id}:${root.id}:${reply.id}`);
    assert.equal(r?.document_type, 'reply');
    assert.equal(r?.content, 'Runbook updated with the rollback steps & the on-call rota.');
    assert.equal(r?.title, 'General — Runbook updated with the rollback steps & the on-call rota.');
    const incidents = graph.teams[0]?.channels[1] as FakeChannel;
    const outage = incidents.messages[0] as FakeMessage;
    assert.deepEqual((await doc(`message:${incidents.id}:${outage.id}`))?.acl, { groups: [`teams:channel:${incidents.id}`] });
    const plain = general().messages.find((m) => m.body.contentType === 'text') as FakeMessage;
    assert.equal((await doc(`message:${general().id}:${plain.id}`))?.content, plain.body.content);
  });

  it('messages are searchable', async () => {
    const found = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'checkout latency failover', mode: 'lexical' } });
    assert.equal(found.statusCode, 200, found.body);
    const incidents = graph.teams[0]?.channels[1] as FakeChannel;
    assert.equal(found.json().passages[0]?.external_id, `message:${incidents.id}:${incidents.messages[0]?.id}`);
  });

  it('an incremental sync follows each channel deltaLink: edits, new replies, deleted replies and posts', async () => {
    const root = rollout();
    root.body = { contentType: 'html', content: '<p>Rollout moved to <b>Tuesday</b>.</p>' };
    graph.touch(root);
    const newReply = graph.message(graph.users[2] ?? null, '<p>Tuesday works for the SRE rota.</p>');
    root.replies.push(newReply);
    const deletedReply = root.replies[1] as FakeMessage;
    graph.remove(deletedReply);
    const lunch = general().messages.find((m) => m.body.content.includes('Lunch and learn')) as FakeMessage;
    graph.remove(lunch);
    const incidents = graph.teams[0]?.channels[1] as FakeChannel;
    const outage = incidents.messages[0] as FakeMessage;
    graph.remove(outage);
    graph.requests.length = 0;

    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [1, 1, 3]);
    assert.ok(graph.requests.some((r) => r.path.endsWith('/messages/delta') && r.query.$deltatoken));
    assert.equal(graph.requests.filter((r) => r.path.endsWith('/messages')).length, 0, 'no full listing');
    assert.equal((await doc(`message:${general().id}:${root.id}`))?.content, 'Payments gateway rollout\n\nRollout moved to Tuesday.\n\nAttachments: runbook.docx');
    assert.ok(await doc(`reply:${general().id}:${root.id}:${newReply.id}`));
    assert.equal(await doc(`message:${incidents.id}:${outage.id}`), undefined);
    assert.ok(await doc(`reply:${incidents.id}:${outage.id}:${outage.replies[0]?.id}`), "a deleted post's reply stays");
    assert.deepEqual(await stored(), expectedIds());
  });

  it('an expired delta link (410 resyncRequired) falls back to a delta round by lastModifiedDateTime', async () => {
    graph.expireDeltaTokens();
    const late = graph.message(graph.users[1] ?? null, '<p>Post written while the delta state was lost.</p>');
    general().messages.push(late);
    graph.requests.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.ok(graph.requests.some((r) => r.status === 410));
    assert.ok(graph.requests.some((r) => r.path.endsWith('/messages/delta') && r.query.$filter?.startsWith('lastModifiedDateTime gt ')));
    assert.deepEqual(await stored(), expectedIds());
    // The new round's deltaLinks work again.
    graph.requests.length = 0;
    await sync(false);
    assert.equal(graph.requests.filter((r) => r.status === 410).length, 0);
  });

  it('a Graph 5xx is retried by the job and loses nothing already stored', async () => {
    const before = await stored();
    graph.failNext(1, 500, (r) => r.path.endsWith('/messages/delta'));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=false`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    assert.deepEqual(await stored(), before);
    const job = await t.db.query<{ id: string; attempts: number; last_error: string }>("SELECT id, attempts, last_error FROM jobs WHERE kind = 'connector.sync' AND payload->>'connectorId' = $1 AND status = 'queued'", [id]);
    assert.equal(job.rows.length, 1, 'queued for a retry');
    assert.match(String(job.rows[0]?.last_error), /Microsoft Graph answered HTTP 500/);
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job.rows[0]?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.status, 'idle');
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a throttling 503 with Retry-After is waited out like a 429', async () => {
    graph.failNext(1, 503, (r) => r.path.endsWith('/messages/delta'));
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.ok(c.sync_runs[0].rate_limited_waits >= 1);
  });

  it('settings: unknown keys and a non-https graph_url are refused naming the field; an unknown team fails the sync with the known ones', async () => {
    const create = (settings: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'teams', display_name: 'x', credentials: { access_token: graph.token }, settings } });
    const unknown = await create({ team: ['Contoso Engineering'] });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().error.message, /settings: Unrecognized key: "team"/);
    const badUrl = await create({ graph_url: 'http://graph.example.com' });
    assert.equal(badUrl.statusCode, 400);
    assert.equal(badUrl.json().error.details.problems[0].path, 'settings.graph_url');

    const scoped = await create({ teams: ['contoso marketing'], channels: ['General'], include_replies: false });
    assert.equal(scoped.statusCode, 201, scoped.body);
    const sid = scoped.json().connector_id;
    await worker.drain();
    const s = await syncConnector(t, worker, sid, true);
    assert.equal(s.status, 'idle', JSON.stringify(s));
    const mkt = graph.teams[1]?.channels[0] as FakeChannel;
    const got = await storedIds(t.db, sid);
    assert.deepEqual(got, mkt.messages.filter(live).map((m) => `message:${mkt.id}:${m.id}`).sort());

    const wrong = await create({ teams: ['Contoso Legal'] });
    const wid = wrong.json().connector_id;
    await worker.drain();
    const w = await syncConnector(t, worker, wid, true);
    assert.equal(w.status, 'error');
    assert.match(w.status_reason, /settings are invalid: Microsoft Teams has no team 'Contoso Legal' readable by this account \(joined: Contoso Engineering, Contoso Marketing\)/);
  });

  it('a revoked token puts the connector in error with what Graph said', async () => {
    graph.revoke(`${graph.token}.1`);
    const c = await sync(false);
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /the vendor rejected the credentials: Microsoft Graph answered 401 .*InvalidAuthenticationToken.*reconnect with OAuth/);
    assert.ok(await doc(`message:${general().id}:${rollout().id}`), 'stored documents are kept');
  });
});
