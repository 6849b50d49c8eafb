import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeHubSpot, startFakeHubSpot } from '../fakes/hubspot.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

const SINGULAR = { companies: 'company', contacts: 'contact', deals: 'deal', tickets: 'ticket', notes: 'note' } as const;

describe('hubspot connector against the fake HubSpot CRM v3 API', () => {
  let t: TestApp;
  let hs: FakeHubSpot;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    hs = await startFakeHubSpot();
    ({ t, worker } = await kindHarness('hubspot', hs.url, { clock, oauthClient: { client_id: 'hs-client', client_secret: 'hs-secret-0123456789', token_url: `${hs.url}/oauth/v1/token` } }));
  });
  after(async () => {
    await t.close();
    await hs.close();
  });

  const expectedIds = () =>
    hs.data.records
      .filter((r) => !r.archivedAt)
      .map((r) => `${SINGULAR[r.type]}:${r.id}`)
      .sort();
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'hubspot', display_name: 'HubSpot', ...payload } });

  it('refuses unknown settings keys, an unknown object type and a foreign app domain (400 naming the field)', async () => {
    const creds = { private_app_token: hs.token };
    const unknown = await create({ credentials: creds, settings: { pipelines: ['default'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*pipelines/);
    const type = await create({ credentials: creds, settings: { object_types: ['leads'] } });
    assert.equal(type.statusCode, 400);
    assert.match(type.json().error.message, /settings\.object_types/);
    const domain = await create({ credentials: creds, settings: { ui_domain: 'evil.example.com' } });
    assert.equal(domain.statusCode, 400);
    assert.match(domain.json().error.message, /settings\.ui_domain/);
    const extra = await create({ credentials: { ...creds, api_key: 'x' } });
    assert.equal(extra.statusCode, 400);
    assert.match(extra.json().error.message, /credentials/);
  });

  it('validates with the account details (portal id and app domain kept as settings), then a full sync stores every record', async () => {
    const created = await create({ credentials: { private_app_token: hs.token } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /HubSpot account 4455667/);
    assert.deepEqual([connected.settings.portal_id, connected.settings.ui_domain], ['4455667', 'app-eu1.hubspot.com']);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    const lists = hs.fake.requestsTo(/^\/crm\/v3\/objects\/\w+$/);
    assert.ok(lists.every((r) => r.query.limit === '100' && r.query.associations && r.query.properties), JSON.stringify(lists[0]));
    assert.equal(hs.searches.length, 0, 'a full sync lists, it does not search');
    assert.ok(hs.fake.requests.every((r) => r.token === hs.token), 'the private app token as a bearer token');
  });

  it('maps a company: readable fields and named associations, record URL on the account domain, owner as author and ACL', async () => {
    const acme = await doc('company:9001');
    assert.ok(acme);
    assert.equal(acme.title, 'Acme Corp');
    assert.equal(acme.document_type, 'company');
    assert.equal(acme.url, 'https://app-eu1.hubspot.com/contacts/4455667/record/0-2/9001');
    assert.equal(acme.author, 'hubspot:101');
    const content = String(acme.content);
    assert.ok(content.startsWith('Company: Acme Corp\nDomain: acme.com\nIndustry: COMPUTER_SOFTWARE'), content);
    for (const part of ['Employees: 250', 'Description:\nBuilds rocket-powered roller skates', 'Contacts: Jane Doe', 'Deals: Acme renewal 2026', 'Tickets: Login fails with SSO']) assert.ok(content.includes(part), `${part} in ${content}`);
    assert.ok(!content.includes('{'), 'text, not JSON');
    assert.equal(new Date(String(acme.created_at)).toISOString(), hs.record('companies', '9001').createdAt);
    assert.deepEqual(acme.acl, { users: ['hubspot:101'] });
    assert.deepEqual((await doc('company:9002'))?.acl, { users: ['hubspot:102'], groups: ['hubspot:team:7'] });
    assert.deepEqual((await doc('company:9003'))?.acl, { public: true }, 'no owner, no team: everyone in the account');
  });

  it('maps contacts, deals, tickets and notes (note HTML as text, titled and linked by what it is attached to)', async () => {
    const jane = await doc('contact:501');
    assert.equal(jane?.title, 'Jane Doe');
    assert.match(String(jane?.content), /^Contact: Jane Doe\nEmail: Jane\.Doe@acme\.com\n/);
    assert.match(String(jane?.content), /Companies: Acme Corp/);
    assert.equal((jane?.metadata as Record<string, unknown> | undefined)?.email, 'jane.doe@acme.com');
    assert.equal((await doc('contact:503'))?.title, 'ceo@initech.test', 'a contact without a name is titled by email');
    const deal = await doc('deal:7001');
    assert.equal(deal?.url, 'https://app-eu1.hubspot.com/contacts/4455667/record/0-3/7001');
    assert.match(String(deal?.content), /^Deal: Acme renewal 2026\nAmount: 12000 EUR\nPipeline: default\nStage: contractsent/);
    assert.match(String(deal?.content), /Companies: Acme Corp\nContacts: Jane Doe/);
    const ticket = await doc('ticket:3001');
    assert.equal(ticket?.document_type, 'ticket');
    assert.match(String(ticket?.content), /Priority: HIGH[\s\S]*Description:\nCustomer reports an SSO redirect loop/);
    const note = await doc('note:8001');
    assert.equal(note?.title, 'Note on Acme renewal 2026');
    assert.equal(note?.document_type, 'note');
    assert.equal(note?.url, 'https://app-eu1.hubspot.com/contacts/4455667/record/0-3/7001', 'a note links to the deal it is on');
    const text = String(note?.content);
    assert.ok(!/<[a-z]/i.test(text), text);
    for (const part of ['Call with Jane', 'SSO', 'Budget approved', 'Legal review pending', 'Deals: Acme renewal 2026', 'Companies: Acme Corp', 'Contacts: Jane Doe']) assert.ok(text.includes(part), `${part} in ${text}`);
  });

  it('documents are searchable and filterable by connector_type', async () => {
    const search = (query: string, filters: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query, mode: 'lexical', filters } });
    const r = await search('rocket-powered roller skates', { connector_types: ['hubspot'] });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, 'company:9001');
    assert.deepEqual((await search('rocket-powered roller skates', { connector_types: ['jira'] })).json().passages, []);
    const notes = (await search('budget approved legal review', { connector_types: ['hubspot'], document_types: ['note'] })).json().passages;
    assert.deepEqual([...new Set(notes.map((p: { external_id: string }) => p.external_id))], ['note:8001']);
  });

  it('an incremental sync searches each type by its last-modified property (GTE, ascending) and applies edits, new records and archivals', async () => {
    hs.touch(hs.record('companies', '9002'), { name: 'Globex Corporation' });
    const ticket = hs.add('tickets', '3002', { subject: 'Invoice PDF is blank', content: '<p>The <b>March</b> invoice renders empty.</p>', hs_ticket_priority: 'LOW', hubspot_owner_id: '102' }, { contacts: ['501'] });
    hs.archive(hs.record('contacts', '503'));
    hs.searches.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [1, 1, 1]);
    assert.deepEqual(
      hs.searches.map((s) => [s.type, (s.body.filterGroups as { filters: { propertyName: string; operator: string }[] }[] | undefined)?.[0]?.filters[0]?.propertyName, (s.body.sorts as { direction: string }[] | undefined)?.[0]?.direction]),
      [
        ['companies', 'hs_lastmodifieddate', 'ASCENDING'],
        ['contacts', 'lastmodifieddate', 'ASCENDING'],
        ['deals', 'hs_lastmodifieddate', 'ASCENDING'],
        ['tickets', 'hs_lastmodifieddate', 'ASCENDING'],
        ['notes', 'hs_lastmodifieddate', 'ASCENDING'],
      ],
    );
    assert.equal((await doc('company:9002'))?.title, 'Globex Corporation');
    const added = await doc(`ticket:${ticket.id}`);
    assert.match(String(added?.content), /The March invoice renders empty\.[\s\S]*Contacts: Jane Doe/, 'associations read through the v4 batch endpoint');
    assert.ok(hs.fake.requestsTo('/crm/v4/associations/tickets/contacts/batch/read').length >= 1);
    assert.equal(await doc('contact:503'), undefined, 'an archived record is deleted');
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a quiet incremental sync re-reads nothing it holds (no association or name reads)', async () => {
    const before = hs.fake.requests.length;
    const c = await sync(false);
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [0, 0, 0]);
    const calls = hs.fake.requests.slice(before).map((r) => r.path);
    assert.ok(calls.every((p) => !p.includes('/batch/read')), calls.join(' '));
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry completes the full sync', async () => {
    const before = await stored();
    hs.fake.failNext(1, 502, (req) => req.path === '/crm/v3/objects/deals');
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /HubSpot answered HTTP 502/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a revoked private app token puts the connector in error with what HubSpot said', async () => {
    hs.fake.revoke(hs.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: HubSpot answered 401 .*Authentication credentials not found.*private app token/);
    } finally {
      hs.fake.allow(hs.token);
    }
  });

  it('connects with OAuth (authorize URL and scopes as HubSpot documents them) and syncs with the OAuth token', async () => {
    const created = await create({ settings: { object_types: ['deals'] } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://app.hubspot.com/oauth/authorize');
    assert.equal(u.searchParams.get('scope'), 'crm.objects.contacts.read crm.objects.companies.read crm.objects.deals.read tickets oauth');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=hubspot-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = hs.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    assert.ok(hs.fake.requests.slice(before).every((r) => r.token?.startsWith('CJT-oauth-')));
    assert.deepEqual(await stored(oauthId), ['deal:7001', 'deal:7002']);
  });
});
