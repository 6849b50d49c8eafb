import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { linearSignature } from '../../src/connectors/linear/index.ts';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';

import { type FakeLinear, seedLinear, startFakeLinear } from '../fakes/linear.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker, storedDocument, storedIds, syncConnector } from './support.ts';

describe('linear connector against the fake Linear GraphQL API', () => {
  let t: TestApp;
  let lin: FakeLinear;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    lin = await startFakeLinear(seedLinear({ issuesPerTeam: 60 }));
    t = await createTestApp({ clock, env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ linear: lin.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await lin.close();
  });

  const d = () => lin.data;
  const eng = (teamKey: string | undefined) => teamKey === 'ENG';
  /** What the ENG-only connector should hold. */
  const expectedIds = () =>
    [
      ...d().issues.filter((i) => eng(i.team.key) && !i.archivedAt).map((i) => `issue:${i.id}`),
      ...d().projects.filter((p) => p.teams.nodes.some((x) => eng(x.key))).map((p) => `project:${p.id}`),
      ...d().cycles.filter((c) => eng(c.team.key)).map((c) => `cycle:${c.id}`),
      ...d().documents.filter((x) => x.project?.teams.nodes.some((y) => eng(y.key))).map((x) => `document:${x.id}`),
      ...d().milestones.filter((m) => m.project.teams.nodes.some((y) => eng(y.key))).map((m) => `milestone:${m.id}`),
      ...d().comments.filter((c) => eng(c.issue.team.key)).map((c) => `comment:${c.id}`),
      ...d().attachments.filter((a) => eng(a.issue.team.key)).map((a) => `attachment:${a.id}`),
    ].sort();
  const stored = async () => storedIds(t.db, id);
  const doc = async (externalId: string) => storedDocument(t.db, id, externalId);
  const sync = (full: boolean) => syncConnector(t, worker, id, full);

  it('a full sync of team ENG stores its issues, projects, cycles, documents, milestones, comments and attachments', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/connectors',
      headers: t.admin,
      payload: { connector_type: 'linear', display_name: 'Linear', credentials: { api_key: lin.apiKey }, settings: { teams: ['ENG'], include_comments: true, sync_attachments: true } },
    });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const got = await stored();
    const want = expectedIds();
    assert.deepEqual({ missing: want.filter((x) => !got.includes(x)), extra: got.filter((x) => !want.includes(x)) }, { missing: [], extra: [] });
    assert.ok(got.some((x) => x.startsWith('comment:')) && got.some((x) => x.startsWith('attachment:')) && got.some((x) => x.startsWith('milestone:')));
    // Relay pagination was followed (59 live ENG issues, pages of 50) and the team filter went to the server.
    const issueCalls = lin.calls.filter((x) => x.operation === 'Sync' && JSON.stringify(x.variables.filter ?? {}).includes('"team"'));
    assert.ok(issueCalls.some((x) => x.variables.after), 'second page requested with after');
    const issue = d().issues.find((i) => i.identifier === 'ENG-6');
    assert.ok(issue);
    const row = await doc(`issue:${issue.id}`);
    assert.ok(row);
    assert.equal(row.title, `ENG-6: ${issue.title}`);
    assert.equal(row.url, issue.url);
    assert.equal(row.author, issue.creator?.name);
    assert.equal(row.document_type, 'issue');
    const meta = row.metadata as Record<string, unknown>;
    assert.equal(meta.identifier, 'ENG-6');
    assert.equal(meta.state, issue.state.name);
    assert.equal(meta.priority_label, issue.priorityLabel);
    assert.deepEqual(meta.labels, issue.labels.nodes.map((l) => l.name));
    assert.equal(meta.linear_id, issue.id);
    assert.deepEqual(row.acl, { groups: [`linear:team:${issue.team.id}`] });
    const cycle = await doc(`cycle:${d().cycles[0]?.id}`);
    assert.equal(cycle?.url, 'https://linear.app/atrium-test/team/ENG/cycle/1');
  });

  it('an incremental sync asks for updatedAt > cursor, applies edits and removes what was archived', async () => {
    const live = d().issues.filter((i) => eng(i.team.key) && !i.archivedAt);
    const edited = live[3];
    const archived = live[4];
    assert.ok(edited && archived);
    edited.title = 'Renamed after the sync';
    edited.updatedAt = lin.tick();
    archived.archivedAt = lin.tick();
    archived.updatedAt = archived.archivedAt;
    lin.calls.length = 0;
    lin.rateLimitNext(1, 1, 'graphql');
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted, run.rate_limited_waits], [0, 1, 1, 1]);
    const syncCalls = lin.calls.filter((x) => x.operation === 'Sync');
    assert.ok(syncCalls.length >= 7);
    for (const call of syncCalls) {
      assert.ok((call.variables.filter as { updatedAt?: { gt?: string } }).updatedAt?.gt, 'every page carries updatedAt.gt');
      assert.equal(call.variables.includeArchived, true);
    }
    assert.equal((await doc(`issue:${edited.id}`))?.title, `${edited.identifier}: Renamed after the sync`);
    assert.equal(await doc(`issue:${archived.id}`), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('an HTTP 429 with Retry-After is waited out too', async () => {
    lin.rateLimitNext(1, 1, 'http');
    const c = await sync(false);
    assert.equal(c.status, 'idle');
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.equal(c.sync_runs[0].rate_limited_waits, 1);
  });

  describe('webhooks', () => {
    let secret: string;
    let path: string;
    before(async () => {
      const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/webhook`, headers: t.admin });
      assert.equal(r.statusCode, 201, r.body);
      secret = r.json().secret;
      path = new URL(r.json().delivery_url).pathname;
      assert.deepEqual(r.json().events, ['Issue', 'Comment', 'Project', 'Cycle', 'Document', 'ProjectMilestone', 'Attachment']);
    });
    const envelope = (type: string, action: string, data: Record<string, unknown>, at = clock.now().getTime()) => ({
      action,
      type,
      data,
      url: 'https://linear.app/atrium-test',
      createdAt: new Date(at).toISOString(),
      organizationId: d().organization.id,
      webhookTimestamp: at,
      webhookId: 'wh-1',
    });
    const deliver = (payload: unknown, signature?: string) => {
      const body = JSON.stringify(payload);
      return t.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/json', 'linear-event': (payload as { type: string }).type, 'linear-delivery': 'd-1', 'linear-signature': signature ?? linearSignature(secret, body) },
        payload: body,
      });
    };

    it('while the connector is paused a delivery is ignored and named by its Linear type and action', async () => {
      const paused = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/pause`, headers: t.admin });
      assert.equal(paused.json().status, 'paused', paused.body);
      try {
        const r = await deliver(envelope('Comment', 'create', { id: 'paused-comment', body: 'x' }));
        assert.equal(r.statusCode, 202, r.body);
        assert.deepEqual(r.json(), { status: 'ignored', event: 'Comment.create', reason: 'connector is paused' });
      } finally {
        await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/resume`, headers: t.admin });
      }
    });

    it('signs like Linear: the SDK verifies our test signature', () => {
      const body = JSON.stringify(envelope('Issue', 'update', { id: 'x' }, Date.now()));
      assert.equal(new LinearWebhookClient(secret).verify(Buffer.from(body), linearSignature(secret, body)), true);
    });

    it('issue created, comment added and milestone updated are applied; a removal deletes', async () => {
      const base = d().issues.find((i) => i.identifier === 'ENG-1');
      assert.ok(base);
      const now = lin.tick();
      const fresh = { ...base, id: 'webhook-issue-1', identifier: 'ENG-500', title: 'Created in Linear just now', createdAt: now, updatedAt: now, archivedAt: null };
      d().issues.push(fresh);
      const r = await deliver(envelope('Issue', 'create', { id: fresh.id, title: fresh.title, teamId: base.team.id }));
      assert.equal(r.statusCode, 202, r.body);
      assert.deepEqual(r.json(), { status: 'applied', event: 'Issue.create', upserted: 1, deleted: 0 });
      assert.equal((await doc('issue:webhook-issue-1'))?.title, 'ENG-500: Created in Linear just now');

      const comment = { id: 'webhook-comment-1', body: 'Confirmed on prod.', url: `${fresh.url}#c`, user: d().users[1] ?? null, issue: fresh, createdAt: now, updatedAt: now, archivedAt: null };
      d().comments.push(comment);
      const rc = await deliver(envelope('Comment', 'create', { id: comment.id, body: comment.body, issueId: fresh.id }));
      assert.equal(rc.json().status, 'applied', rc.body);
      assert.equal((await doc('comment:webhook-comment-1'))?.content, 'Confirmed on prod.');

      const milestone = d().milestones[0];
      assert.ok(milestone);
      milestone.name = 'GA';
      const rm = await deliver(envelope('ProjectMilestone', 'update', { id: milestone.id, name: 'GA' }));
      assert.equal(rm.json().status, 'applied', rm.body);
      assert.match(String((await doc(`milestone:${milestone.id}`))?.title), /— GA$/);

      const removed = await deliver(envelope('Issue', 'remove', { id: fresh.id }));
      assert.deepEqual(removed.json(), { status: 'applied', event: 'Issue.remove', upserted: 0, deleted: 1 });
      assert.equal(await doc('issue:webhook-issue-1'), undefined);
    });

    it('an update for an object Linear no longer has (Entity not found) deletes it', async () => {
      const i = d().issues.findIndex((x) => x.identifier === 'ENG-9');
      const [gone] = d().issues.splice(i, 1);
      assert.ok(gone && (await doc(`issue:${gone.id}`)));
      const r = await deliver(envelope('Issue', 'update', { id: gone.id }));
      assert.deepEqual(r.json(), { status: 'applied', event: 'Issue.update', upserted: 0, deleted: 1 });
      d().issues.splice(i, 0, gone);
    });

    it('does not store objects of other teams, and drops an issue moved out of the connector teams', async () => {
      const des = d().issues.find((i) => i.team.key === 'DES' && !i.archivedAt);
      assert.ok(des);
      const r = await deliver(envelope('Issue', 'update', { id: des.id }));
      assert.equal(r.json().upserted, 0, r.body);
      assert.equal(await doc(`issue:${des.id}`), undefined);
      const moved = d().issues.find((i) => i.identifier === 'ENG-10');
      const desTeam = d().teams.find((x) => x.key === 'DES');
      assert.ok(moved && desTeam && (await doc(`issue:${moved.id}`)));
      const engTeam = moved.team;
      moved.team = desTeam;
      const m = await deliver(envelope('Issue', 'update', { id: moved.id, teamId: desTeam.id }));
      assert.deepEqual(m.json(), { status: 'applied', event: 'Issue.update', upserted: 0, deleted: 1 });
      moved.team = engTeam;
    });

    it('rejects a wrong signature, a tampered body and a replayed (stale) delivery', async () => {
      const issue = d().issues[0];
      assert.ok(issue);
      const payload = envelope('Issue', 'remove', { id: issue.id });
      const bad = await deliver(payload, linearSignature('not-the-secret', JSON.stringify(payload)));
      assert.equal(bad.statusCode, 401);
      assert.equal(bad.json().error.code, 'invalid_signature');
      const tampered = await deliver(payload, linearSignature(secret, JSON.stringify({ ...payload, action: 'update' })));
      assert.equal(tampered.statusCode, 401);
      const stale = await deliver(envelope('Issue', 'remove', { id: issue.id }, clock.now().getTime() - 120_000));
      assert.equal(stale.statusCode, 401);
      assert.match(stale.json().error.message, /webhookTimestamp/);
      assert.ok(await doc(`issue:${issue.id}`), 'nothing was deleted');
    });
  });

  it('creates an issue and comments on one through execute (rule planner)', async () => {
    const before = d().issues.length;
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: t.admin, payload: { intent: 'create an issue: Payment page times out', context: { team: 'ENG' } } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().calls[0].action, 'create_issue');
    assert.equal(r.json().calls[0].status, 'succeeded', r.body);
    assert.equal(d().issues.length, before + 1);
    const created = d().issues.at(-1);
    assert.equal(created?.title, 'Payment page times out');
    assert.equal(created?.team.key, 'ENG');
    const c = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/execute`, headers: t.admin, payload: { intent: 'comment on ENG-2: Fixed by the retry change', context: { issue: 'ENG-2' } } });
    assert.equal(c.statusCode, 200, c.body);
    assert.equal(c.json().calls[0].action, 'comment_on_issue');
    const comment = d().comments.at(-1);
    assert.equal(comment?.body, 'Fixed by the retry change');
    assert.equal(comment?.issue.identifier, 'ENG-2');
  });

  it('a wrong key ends in error with what Linear said', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'linear', display_name: 'bad', credentials: { api_key: 'lin_api_nope' } } });
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${created.json().connector_id}`, headers: t.admin })).json();
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /Authentication required, not authenticated/);
  });
});
