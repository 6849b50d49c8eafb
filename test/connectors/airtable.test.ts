import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { aid, type FakeAirtable, startFakeAirtable } from '../fakes/airtable.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('airtable connector against the fake Airtable Web API', () => {
  let t: TestApp;
  let at: FakeAirtable;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  const roadmap = aid('app', 1);
  const projects = aid('tbl', 1);
  const clients = aid('tbl', 2);
  before(async () => {
    at = await startFakeAirtable(undefined, { basePage: 1 });
    ({ t, worker } = await kindHarness('airtable', at.url, { clock, oauthClient: { client_id: 'at-client', client_secret: 'at-secret-0123456789', token_url: `${at.url}/oauth2/v1/token` } }));
  });
  after(async () => {
    await t.close();
    await at.close();
  });

  const d = () => at.data;
  const expectedIds = (bases = d().bases) =>
    bases.flatMap((b) => [`base:${b.id}`, ...b.tables.flatMap((x) => [`table:${b.id}:${x.id}`, ...x.records.map((r) => `record:${b.id}:${x.id}:${r.id}`)])]).sort();
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'airtable', display_name: 'Airtable', ...payload } });
  const recordCalls = (from: number) => at.fake.requests.slice(from).filter((r) => /^\/v0\/app[^/]+\/tbl/.test(r.path));

  it('refuses unknown settings keys and a malformed base id (400 naming the field)', async () => {
    const unknown = await create({ credentials: { personal_access_token: at.token }, settings: { views: ['Grid'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*views/);
    const bad = await create({ credentials: { personal_access_token: at.token }, settings: { bases: ['https://airtable.com/appX'] } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().error.message, /settings\.bases/);
  });

  it('a full sync lists bases by offset, reads each base schema and every record', async () => {
    const created = await create({ credentials: { personal_access_token: at.token } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /Ada@Acme\.test/);
    const from = at.fake.requests.length;
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    const calls = at.fake.requests.slice(from);
    assert.deepEqual(calls.filter((r) => r.path === '/v0/meta/bases').map((r) => Boolean(r.query.offset)), [false, true], 'second bases page asked with offset');
    assert.ok(recordCalls(from).every((r) => r.query.pageSize === '100' && !r.query.filterByFormula));
    assert.ok(calls.every((r) => r.token === at.token));
  });

  it('maps a record: primary field as title, fields as readable text, record URL, createdBy author, base ACL', async () => {
    const rec = d().bases[0]?.tables[0]?.records[0];
    assert.ok(rec);
    const row = await doc(`record:${roadmap}:${projects}:${rec.id}`);
    assert.ok(row);
    assert.equal(row.title, 'Quantum billing');
    assert.equal(row.url, `https://airtable.com/${roadmap}/${projects}/${rec.id}`);
    assert.equal(row.document_type, 'record');
    assert.equal(row.author, 'ada@acme.test');
    const content = String(row.content);
    assert.ok(!content.includes('{"'), 'text, not JSON');
    for (const part of [
      'Projects record in Product Roadmap',
      'Name: Quantum billing',
      'Notes:\nReplace the invoice engine with usage-based pricing.\nPilot with three customers in March.',
      'Status: Active',
      'Owner: Grace Hopper (grace@acme.test)',
      'Tags: billing, q1',
      'Budget: €125000',
      'Progress: 40%',
      'Brief: billing-brief.pdf',
    ]) {
      assert.ok(content.includes(part), `${part} in ${content}`);
    }
    assert.equal(new Date(String(row.created_at)).toISOString(), rec.createdTime);
    assert.equal(new Date(String(row.updated_at)).toISOString(), rec.modified);
    assert.deepEqual(row.acl, { groups: [`airtable:base:${roadmap}`] });
    const table = await doc(`table:${roadmap}:${projects}`);
    assert.match(String(table?.content), /Fields:\n- Name \(singleLineText\) \[primary\]\n- Notes \(multilineText\): what the project is about/);
    assert.equal((await doc(`base:${roadmap}`))?.title, 'Product Roadmap');
  });

  it('documents are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'usage-based pricing invoice engine', mode: 'lexical', filters: { connector_types: ['airtable'] } } });
    assert.equal(r.statusCode, 200, r.body);
    const ids = r.json().passages.map((p: { external_id: string }) => p.external_id);
    assert.ok(ids.includes(`record:${roadmap}:${projects}:${aid('rec', 101)}`), JSON.stringify(ids));
  });

  it('an incremental sync filters records by LAST_MODIFIED_TIME(), applies edits and additions, and drops tables and bases that are gone', async () => {
    const cursor = (await t.db.query<{ sync_cursor: { modified_after: string } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.ok(cursor?.modified_after, JSON.stringify(cursor));
    const edited = at.table(roadmap, projects).records[1];
    assert.ok(edited);
    edited.fields = { ...edited.fields, Status: 'Active', Notes: 'Sync queue for offline edits.' };
    edited.modified = at.tick();
    const added = at.add(roadmap, projects, { Name: 'Data residency', Status: 'Planned' });
    const hiring = d().bases.splice(1, 1)[0];
    const gone = at.base(roadmap).tables.splice(1, 1)[0];
    assert.ok(hiring && gone);
    const from = at.fake.requests.length;
    const c = await sync(false).finally(() => {
      d().bases.push(hiring);
      at.base(roadmap).tables.push(gone);
    });
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    // The edited record, and the Roadmap base whose table list lost Clients.
    assert.deepEqual([run.added, run.updated], [1, 2]);
    // The Hiring base (its base, table and 2 records) and the Clients table (table and 3 records).
    assert.equal(run.deleted, 4 + 4);
    const calls = recordCalls(from);
    assert.deepEqual(calls.map((r) => r.path), [`/v0/${roadmap}/${projects}`]);
    const since = /^IS_AFTER\(LAST_MODIFIED_TIME\(\), '(.+)'\)$/.exec(calls[0]?.query.filterByFormula ?? '')?.[1];
    assert.ok(since && Date.parse(since) < Date.parse(cursor.modified_after), `${since} starts before the cursor (overlap)`);
    assert.match(String((await doc(`record:${roadmap}:${projects}:${edited.id}`))?.content), /Notes: Sync queue for offline edits\./);
    assert.ok(await doc(`record:${roadmap}:${projects}:${added.id}`));
    const now = await stored();
    assert.deepEqual(now, expectedIds().filter((x) => !x.includes(hiring.id) && !x.includes(gone.id)));
  });

  it('a full sync removes a record deleted in Airtable', async () => {
    await sync(true);
    const rec = at.table(roadmap, clients).records.pop();
    assert.ok(rec);
    const c = await sync(true);
    assert.equal(c.sync_runs[0].deleted, 1);
    assert.equal(await doc(`record:${roadmap}:${clients}:${rec.id}`), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry completes the full sync', async () => {
    const before = await stored();
    at.fake.failNext(1, 503, (req) => req.path === `/v0/${roadmap}/${clients}`);
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Airtable answered HTTP 503/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a revoked token puts the connector in error with what Airtable said', async () => {
    at.fake.revoke(at.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: Airtable answered 401 .*Authentication required.*personal access token/);
    } finally {
      at.fake.allow(at.token);
    }
  });

  it('connects with OAuth (authorize URL, scopes, PKCE) and syncs only the configured bases with the OAuth token', async () => {
    const created = await create({ settings: { bases: [roadmap] } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://airtable.com/oauth2/v1/authorize');
    assert.equal(u.searchParams.get('scope'), 'data.records:read schema.bases:read');
    assert.equal(u.searchParams.get('code_challenge_method'), 'S256');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=airtable-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = at.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    assert.ok(at.fake.requests.slice(before).every((r) => r.token?.startsWith('oaa-')));
    assert.deepEqual(await stored(oauthId), expectedIds(d().bases.filter((b) => b.id === roadmap)));
  });
});
