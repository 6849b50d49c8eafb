import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { ADA, CARL, type FakeServicenow, KB_HR, KB_IT, seedServicenow, startFakeServicenow, sysId } from '../fakes/servicenow.ts';
import { type KindHarness, kindHarness } from './support.ts';

const INSTANCE = 'https://acme.service-now.com';

describe('servicenow connector against the fake ServiceNow Table API', () => {
  let sn: FakeServicenow;
  let h: KindHarness;
  let id: string;
  before(async () => {
    // Two records a page: the Link header's next page is followed in every table.
    sn = await startFakeServicenow(seedServicenow({ extraIncidents: 2 }), { maxLimit: 2 });
    h = await kindHarness('servicenow', sn.url, {
      clock: fixedClock(new Date()),
      oauthClient: { client_id: 'atrium', client_secret: 'sn-oauth-secret-0123456789', authorize_url: `${INSTANCE}/oauth_auth.do`, token_url: `${sn.url}/oauth_token.do` },
    });
  });
  after(async () => {
    await h.close();
    await sn.close();
  });

  const d = () => sn.data;
  const creds = () => ({ username: sn.username, password: sn.password });
  const expectedIds = () => [...d().kb_knowledge.filter((a) => a.workflow_state === 'published').map((a) => `kb_knowledge:${a.sys_id}`), ...d().incident.map((i) => `incident:${i.sys_id}`)].sort();
  const art = (n: number) => sysId(0x1000 + n);
  const inc = (n: number) => sysId(0x2000 + n);
  const row = (table: 'kb_knowledge' | 'incident', sid: string) => {
    const r = d()[table].find((x) => x.sys_id === sid);
    assert.ok(r, sid);
    return r;
  };

  it('refuses unknown settings keys, an instance_url that is not an https URL, a knowledge base that is not a sys_id, a lone password (400 naming the field)', async () => {
    const unknown = await h.create({ credentials: creds(), settings: { instance_url: INSTANCE, tables: ['x'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*tables/);
    for (const instance_url of ['acme', 'http://acme.service-now.com', 'https://acme.service-now.com/?x=1']) {
      const bad = await h.create({ credentials: creds(), settings: { instance_url } });
      assert.equal(bad.statusCode, 400, instance_url);
      assert.match(bad.json().error.message, /settings\.instance_url/, bad.body);
    }
    const kb = await h.create({ credentials: creds(), settings: { instance_url: INSTANCE, knowledge_bases: ['IT'] } });
    assert.equal(kb.statusCode, 400);
    assert.match(kb.json().error.message, /settings\.knowledge_bases/);
    const lonely = await h.create({ credentials: { password: sn.password }, settings: { instance_url: INSTANCE } });
    assert.equal(lonely.statusCode, 400);
    assert.match(lonely.json().error.message, /credentials\.username/);
  });

  it('a full sync reads published articles and incidents with display values, following the Link header, and the journal per page', async () => {
    const created = await h.create({ credentials: creds(), settings: { instance_url: `${INSTANCE}/` } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await h.worker.drain();
    const connected = await h.get(id);
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(String(connected.status_reason), /ada@acme\.test on acme\.service-now\.com/i);
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await h.stored(id), expectedIds());
    const kb = sn.fake.requestsTo('/api/now/table/kb_knowledge');
    assert.equal(kb[0]?.query.sysparm_query, 'workflow_state=published^ORDERBYsys_updated_on');
    assert.equal(kb[0]?.query.sysparm_display_value, 'all');
    assert.ok(kb.length >= 2 && kb[1]?.query.sysparm_offset === '2', JSON.stringify(kb.map((r) => r.query.sysparm_offset)));
    const incidents = sn.fake.requestsTo('/api/now/table/incident');
    const journal = sn.fake.requestsTo('/api/now/table/sys_journal_field');
    assert.equal(journal.filter((r) => r.query.sysparm_offset === '0').length, incidents.length, 'one journal query per incident page');
    assert.match(String(journal[0]?.query.sysparm_query), /^name=incident\^element_idIN[0-9a-f,]+\^elementINcomments,work_notes/);
    assert.equal(sn.fake.requestsTo('/api/now/table/sys_audit_delete').length, 0, 'a full sync sweeps instead');
  });

  it('maps knowledge articles: HTML as text, kb_view url, author, dates, ACL by user criteria or restricted base; drafts are not synced', async () => {
    const a = await h.doc(id, `kb_knowledge:${art(1)}`);
    assert.ok(a);
    assert.equal(a.title, 'How to reset your password');
    assert.match(String(a.content), /Open Settings and choose Reset password\./);
    assert.ok(!String(a.content).includes('<p>'));
    assert.equal(a.url, `${INSTANCE}/kb_view.do?sysparm_article=KB001001`);
    assert.equal(a.author, `servicenow:user:${ADA}`);
    assert.equal(a.document_type, 'knowledge_article');
    assert.equal(new Date(String(a.created_at)).toISOString(), '2026-01-05T09:01:00.000Z');
    assert.deepEqual(a.acl, { public: true });
    assert.equal((a.metadata as Record<string, unknown>).knowledge_base, 'IT');
    assert.deepEqual((await h.doc(id, `kb_knowledge:${art(2)}`))?.acl, { groups: [`servicenow:kb:${KB_HR}`] });
    assert.deepEqual((await h.doc(id, `kb_knowledge:${art(3)}`))?.acl, { groups: [`servicenow:user_criteria:${sysId(0xe2)}`, `servicenow:user_criteria:${sysId(0xe3)}`] });
    assert.deepEqual((await h.doc(id, `kb_knowledge:${art(5)}`))?.acl, { groups: [`servicenow:kb:${KB_IT}`] }, '"Cannot read" criteria: kept to its base');
    assert.equal(await h.doc(id, `kb_knowledge:${art(4)}`), undefined);
  });

  it('maps incidents: header with display values, description, comments and work notes (marked internal) in order, url, caller, ACL', async () => {
    const r = await h.doc(id, `incident:${inc(1)}`);
    assert.ok(r);
    assert.equal(r.title, 'INC001001 Email not syncing on phone');
    assert.equal(r.url, `${INSTANCE}/incident.do?sys_id=${inc(1)}`);
    assert.equal(r.author, `servicenow:user:${CARL}`);
    assert.equal(r.document_type, 'incident');
    const content = String(r.content);
    for (const part of ['Number: INC001001', 'State: In Progress', 'Priority: 3 - Moderate', 'Caller: Carl Caller', 'Assigned to: Grace Agent', 'Since this morning my phone shows no new mail.', 'carl.caller — 2026-01-05', '(comment)\nStill broken', '(work note, internal)\nExchange ActiveSync']) {
      assert.ok(content.includes(part), `${part} in ${content}`);
    }
    assert.ok(content.indexOf('Still broken') < content.indexOf('ActiveSync') && content.indexOf('ActiveSync') < content.indexOf('try again now'), 'journal oldest first');
    assert.deepEqual(r.acl, { groups: ['servicenow:incidents'] });
    const meta = r.metadata as Record<string, unknown>;
    assert.deepEqual([meta.state, meta.comment_count, meta.work_note_count], ['In Progress', 2, 1]);
    assert.match(String((await h.doc(id, `incident:${inc(2)}`))?.content), /State: Closed[\s\S]*Close notes: Cleared the jam\./);
  });

  it('an incremental sync asks sys_updated_on>= the cursor, deletes retired articles and what sys_audit_delete names', async () => {
    const cursor = (await h.t.db.query<{ sync_cursor: Record<string, string> }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.ok(cursor?.knowledge_since && cursor.incidents_since && cursor.deletions_since, JSON.stringify(cursor));
    const a1 = row('kb_knowledge', art(1));
    a1.short_description = 'Reset your password (updated)';
    a1.sys_updated_on = sn.tick();
    const a2 = row('kb_knowledge', art(2));
    a2.workflow_state = 'retired';
    a2.sys_updated_on = sn.tick();
    const i1 = row('incident', inc(1));
    const at = sn.tick();
    d().sys_journal_field.push({ sys_id: sysId(0x3999), name: 'incident', element_id: inc(1), element: 'comments', value: 'Works again, thanks.', sys_created_by: 'carl.caller', sys_created_on: at });
    i1.sys_updated_on = at;
    sn.remove('incident', inc(2));
    const before = sn.fake.requests.length;
    const c = await h.sync(id, false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0] as Record<string, number>;
    assert.deepEqual([run.added, run.deleted], [0, 2]);
    const calls = sn.fake.requests.slice(before);
    assert.equal(calls.find((r) => r.path === '/api/now/table/kb_knowledge')?.query.sysparm_query, `sys_updated_on>=${cursor.knowledge_since}^ORDERBYsys_updated_on`);
    assert.equal(calls.find((r) => r.path === '/api/now/table/incident')?.query.sysparm_query, `sys_updated_on>=${cursor.incidents_since}^ORDERBYsys_updated_on`);
    assert.equal(calls.find((r) => r.path === '/api/now/table/sys_audit_delete')?.query.sysparm_query, `tablenameINincident,kb_knowledge^sys_created_on>=${cursor.deletions_since}^ORDERBYsys_created_on`);
    assert.equal((await h.doc(id, `kb_knowledge:${art(1)}`))?.title, 'Reset your password (updated)');
    assert.equal(await h.doc(id, `kb_knowledge:${art(2)}`), undefined);
    assert.equal(await h.doc(id, `incident:${inc(2)}`), undefined);
    assert.match(String((await h.doc(id, `incident:${inc(1)}`))?.content), /\(comment\)\nWorks again, thanks\./);
    assert.deepEqual(await h.stored(id), expectedIds());
  });

  it('without read access to kb_uc_can_read_mtom or sys_audit_delete: every base is restricted, deletions wait for the full sync', async () => {
    sn.forbidden.add('kb_uc_can_read_mtom');
    sn.forbidden.add('sys_audit_delete');
    try {
      sn.remove('incident', inc(10));
      const c = await h.sync(id, false);
      assert.equal(c.status, 'idle', JSON.stringify(c));
      assert.ok(await h.doc(id, `incident:${inc(10)}`), 'not deleted without the audit');
      const full = await h.sync(id, true);
      assert.equal(full.sync_runs[0]?.status, 'completed');
      assert.equal(await h.doc(id, `incident:${inc(10)}`), undefined, 'swept');
      assert.deepEqual((await h.doc(id, `kb_knowledge:${art(1)}`))?.acl, { groups: [`servicenow:kb:${KB_IT}`] });
    } finally {
      sn.forbidden.clear();
    }
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry completes the sync', async () => {
    const before = await h.stored(id);
    sn.fake.failNext(1, 500, (req) => req.path === '/api/now/table/sys_journal_field');
    const r = await h.t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: h.t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await h.worker.drain();
    const job = (await h.t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /ServiceNow answered HTTP 500/);
    assert.deepEqual(await h.stored(id), before, 'no sweep after a failed page');
    await h.t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await h.worker.drain();
    assert.equal((await h.get(id)).sync_runs[0]?.status, 'completed');
    assert.deepEqual(await h.stored(id), expectedIds());
  });

  it('a changed password puts the connector in error with what ServiceNow said', async () => {
    sn.fake.revoke(sn.basicToken);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /rejected the credentials: ServiceNow answered 401 .*User Not Authenticated.*password/);
    } finally {
      sn.fake.allow(sn.basicToken);
    }
  });

  it('connects with OAuth at the instance configured in ATRIUM_OAUTH_CLIENTS (scope useraccount) and syncs with the Bearer token', async () => {
    const created = await h.create({ settings: { instance_url: INSTANCE, include_incidents: false, knowledge_bases: [KB_IT] } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, `${INSTANCE}/oauth_auth.do`);
    assert.equal(u.searchParams.get('scope'), 'useraccount');
    const cb = await h.t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=servicenow-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = sn.fake.requests.length;
    const c = await h.sync(oauthId, true);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c));
    const calls = sn.fake.requests.slice(before);
    assert.ok(calls.length > 0 && calls.every((r) => r.token?.startsWith('sn-oauth-')), JSON.stringify(calls.slice(0, 3)));
    assert.equal(calls.filter((r) => r.path === '/api/now/table/incident').length, 0, 'include_incidents: false');
    assert.equal(calls.find((r) => r.path === '/api/now/table/kb_knowledge')?.query.sysparm_query, `workflow_state=published^kb_knowledge_baseIN${KB_IT}^ORDERBYsys_updated_on`);
    assert.deepEqual(await h.stored(oauthId), d().kb_knowledge.filter((a) => a.workflow_state === 'published' && a.kb_knowledge_base === KB_IT).map((a) => `kb_knowledge:${a.sys_id}`).sort());
  });
});
