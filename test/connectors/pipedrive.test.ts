import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakePipedrive, startFakePipedrive } from '../fakes/pipedrive.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('pipedrive connector against the fake Pipedrive API (v2, v1 notes)', () => {
  let t: TestApp;
  let pd: FakePipedrive;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // One item a page: every list is read over several pages (v2 cursors, v1 start offsets).
    pd = await startFakePipedrive(undefined, { maxPage: 1 });
    ({ t, worker } = await kindHarness('pipedrive', pd.url, { clock, oauthClient: { client_id: 'pd-client', client_secret: 'pd-secret-0123456789', token_url: `${pd.url}/oauth/token` } }));
  });
  after(async () => {
    await t.close();
    await pd.close();
  });

  const d = () => pd.data;
  const expectedIds = () =>
    [
      ...d().organizations.map((o) => `organization:${o.id}`),
      ...d().persons.map((p) => `person:${p.id}`),
      ...d().deals.filter((x) => !x.deleted).map((x) => `deal:${x.id}`),
      ...d().activities.map((a) => `activity:${a.id}`),
      ...d().notes.map((x) => `note:${x.id}`),
    ].sort();
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'pipedrive', display_name: 'Pipedrive', ...payload } });

  it('refuses unknown settings keys, a company domain that is not a subdomain and unknown entities (400 naming the field)', async () => {
    const creds = { api_token: pd.apiToken };
    const unknown = await create({ credentials: creds, settings: { pipelines: [1] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*pipelines/);
    for (const company_domain of ['acme.pipedrive.com', 'https://acme.pipedrive.com', 'acme/evil']) {
      const bad = await create({ credentials: creds, settings: { company_domain } });
      assert.equal(bad.statusCode, 400, company_domain);
      assert.match(bad.json().error.message, /settings\.company_domain/);
    }
    const entities = await create({ credentials: creds, settings: { entities: ['leads'] } });
    assert.equal(entities.statusCode, 400);
    assert.match(entities.json().error.message, /settings\.entities/);
  });

  it('validates with /users/me (company domain kept as a setting), then a full sync pages every entity', async () => {
    const created = await create({ credentials: { api_token: pd.apiToken } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /ada@acme\.test at Acme GmbH/);
    assert.equal(connected.settings.company_domain, 'acme');
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    assert.ok(pd.fake.requestsTo('/api/v2/deals').some((r) => r.query.cursor), 'v2 pages followed with next_cursor');
    assert.ok(pd.fake.requestsTo('/api/v1/notes').some((r) => r.query.start === '1'), 'v1 notes paged with start');
    assert.ok(pd.fake.requests.every((r) => r.token === pd.apiToken && !r.query.api_token), 'the API token in the x-api-token header, never in the URL');
  });

  it('maps deals, persons and organizations: readable text with linked names, record URLs, owner, visibility ACL', async () => {
    const deal = await doc('deal:201');
    assert.equal(deal?.title, 'Acme expansion');
    assert.equal(deal?.document_type, 'deal');
    assert.equal(deal?.url, 'https://acme.pipedrive.com/deal/201');
    assert.equal(deal?.author, 'pipedrive:11');
    assert.equal(deal?.content, 'Deal: Acme expansion\nValue: 50000 EUR\nStatus: open\nPipeline: 1\nStage: 3\n\nPerson: Jane Doe\nOrganization: Acme Corp');
    assert.equal(new Date(String(deal?.created_at)).toISOString(), new Date(d().deals[0]?.add_time ?? '').toISOString());
    assert.deepEqual(deal?.acl, { public: true }, 'visible_to 3: the entire company');
    assert.deepEqual((await doc('deal:202'))?.acl, { users: ['pipedrive:12'] }, 'visible_to 1: owner (and followers)');
    const jane = await doc('person:101');
    assert.equal(jane?.content, 'Person: Jane Doe\nEmail: Jane@acme.test\nPhone: +49 30 1234\nJob title: CTO\n\nOrganization: Acme Corp');
    assert.equal(jane?.url, 'https://acme.pipedrive.com/person/101');
    assert.deepEqual((jane?.metadata as Record<string, unknown> | undefined)?.emails, ['jane@acme.test']);
    const org = await doc('organization:1');
    assert.equal(org?.content, 'Organization: Acme Corp\nAddress: Torstraße 1, 10119 Berlin');
    assert.equal(org?.url, 'https://acme.pipedrive.com/organization/1');
  });

  it('maps activities and notes: HTML as text, linked to and inheriting the visibility of their deal or person', async () => {
    const call = await doc('activity:301');
    assert.equal(call?.title, 'Discovery call');
    assert.equal(call?.document_type, 'activity');
    assert.equal(call?.url, 'https://acme.pipedrive.com/deal/201');
    assert.equal(call?.content, 'Activity: Discovery call\nType: call\nDue: 2026-02-01 10:00\nDone: no\n\nDeal: Acme expansion\nPerson: Jane Doe\nOrganization: Acme Corp\n\nAsk about SSO requirements and the data residency clause.');
    assert.deepEqual(call?.acl, { public: true });
    assert.deepEqual((await doc('activity:302'))?.acl, { users: ['pipedrive:12'] }, 'follows deal 202');
    const note = await doc('note:401');
    assert.equal(note?.title, 'Note on Acme expansion');
    assert.equal(note?.document_type, 'note');
    assert.equal(note?.author, 'pipedrive:11');
    const text = String(note?.content);
    assert.ok(!/<[a-z]/i.test(text), text);
    assert.match(text, /^Jane confirmed the budget for the second quarter\.[\s\S]*Procurement via reseller[\s\S]*Deal: Acme expansion/);
    assert.equal(new Date(String(note?.updated_at)).toISOString(), new Date(d().notes[0]?.update_time ?? '').toISOString(), 'v1 "YYYY-MM-DD HH:MM:SS" read as UTC');
    const bob = await doc('note:402');
    assert.equal(bob?.title, 'Note on Bob Smith');
    assert.equal(bob?.url, 'https://acme.pipedrive.com/person/102');
    assert.deepEqual(bob?.acl, { users: ['pipedrive:12'] }, 'follows person 102');
  });

  it('documents are searchable and filterable by connector_type and document_type', async () => {
    const search = (query: string, filters: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query, mode: 'lexical', filters } });
    const r = await search('data residency clause', { connector_types: ['pipedrive'] });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, 'activity:301');
    assert.deepEqual((await search('data residency clause', { connector_types: ['hubspot'] })).json().passages, []);
    const notes = (await search('budget procurement reseller', { connector_types: ['pipedrive'], document_types: ['note'] })).json().passages;
    assert.deepEqual([...new Set(notes.map((p: { external_id: string }) => p.external_id))], ['note:401']);
  });

  it('an incremental sync reads updated_since (RFC 3339) sorted by update_time and applies edits, new items and deleted deals', async () => {
    const edited = d().deals.find((x) => x.id === 201);
    assert.ok(edited);
    edited.title = 'Acme expansion (EU)';
    edited.update_time = pd.tick();
    const at = pd.tick();
    d().notes.push({ id: 403, user_id: 11, content: '<p>Security review <i>passed</i>.</p>', deal_id: null, person_id: null, org_id: 1, add_time: at, update_time: at });
    const gone = d().deals.find((x) => x.id === 202);
    assert.ok(gone);
    gone.deleted = true;
    const before = pd.fake.requests.length;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [1, 1, 1]);
    const calls = pd.fake.requests.slice(before);
    const lists = calls.filter((r) => /^\/api\/v2\/(organizations|persons|deals|activities)$/.test(r.path) && !r.query.ids && !r.query.status);
    assert.ok(lists.length >= 4 && lists.every((r) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(r.query.updated_since ?? '') && r.query.sort_by === 'update_time'), JSON.stringify(lists[0]));
    assert.ok(calls.some((r) => r.path === '/api/v1/notes' && r.query.updated_since && r.query.sort === 'update_time ASC'));
    assert.ok(calls.some((r) => r.path === '/api/v2/deals' && r.query.status === 'deleted'), 'deleted deals listed');
    assert.equal((await doc('deal:201'))?.title, 'Acme expansion (EU)');
    assert.equal((await doc('note:403'))?.title, 'Note on Acme Corp');
    assert.equal(await doc('deal:202'), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a quiet incremental sync re-reads nothing it holds (no linked-record lookups)', async () => {
    const before = pd.fake.requests.length;
    const c = await sync(false);
    assert.deepEqual([c.sync_runs[0].added, c.sync_runs[0].updated], [0, 0]);
    assert.equal(pd.fake.requests.slice(before).filter((r) => r.query.ids).length, 0);
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry completes the full sync', async () => {
    const before = await stored();
    pd.fake.failNext(1, 503, (req) => req.path === '/api/v2/persons' && Boolean(req.query.get('cursor')));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Pipedrive answered HTTP 503/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a revoked API token puts the connector in error with what Pipedrive said', async () => {
    pd.fake.revoke(pd.apiToken);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: Pipedrive answered 401 .*unauthorized access.*API token/);
    } finally {
      pd.fake.allow(pd.apiToken);
    }
  });

  it('connects with OAuth: the api_domain of the token answer is kept with the tokens, calls carry the bearer token', async () => {
    const created = await create({ settings: { entities: ['organizations'] } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://oauth.pipedrive.com/oauth/authorize');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=pipedrive-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const row = (await t.db.query<{ oauth_tokens_enc: string }>('SELECT oauth_tokens_enc FROM connectors WHERE id = $1', [oauthId])).rows[0];
    assert.equal((JSON.parse(t.deps.secrets.open(row?.oauth_tokens_enc ?? '')) as { fields?: Record<string, string> }).fields?.api_domain, pd.url);
    const before = pd.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    assert.ok(pd.fake.requests.slice(before).every((r) => r.token?.startsWith('v1u:oauth-')));
    assert.deepEqual(await stored(oauthId), ['organization:1', 'organization:2']);
  });
});
