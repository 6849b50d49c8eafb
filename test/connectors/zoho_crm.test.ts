import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeZoho, seedZoho, startFakeZoho, type ZModule, type ZRecord } from '../fakes/zoho-crm.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker, storedDocument, storedIds, syncConnector } from './support.ts';

const TYPE: Record<ZModule, string> = { Leads: 'lead', Contacts: 'contact', Accounts: 'account', Deals: 'deal', Notes: 'note' };

describe('zoho_crm connector against the fake Zoho CRM API v2', () => {
  let t: TestApp;
  let z: FakeZoho;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // One record a page: every module with more than one record pages with info.more_records.
    z = await startFakeZoho(seedZoho(), { perPageMax: 1 });
    t = await createTestApp({ clock, env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ zoho_crm: z.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await z.close();
  });

  const d = () => z.data;
  const expectedIds = () =>
    (Object.entries(d().records) as [ZModule, ZRecord[]][])
      .flatMap(([m, rows]) => rows.map((r) => `${TYPE[m]}:${r.id}`))
      .sort();
  const stored = async () => storedIds(t.db, id);
  const doc = async (externalId: string) => storedDocument(t.db, id, externalId);
  const sync = (full: boolean) => syncConnector(t, worker, id, full);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'zoho_crm', display_name: 'Zoho', ...payload } });
  const first = (m: ZModule) => {
    const r = d().records[m][0];
    assert.ok(r, m);
    return r;
  };

  it('refuses unknown settings keys, unknown modules and a bad api_domain / crm_url (400 naming the field)', async () => {
    const creds = { access_token: z.token, api_domain: 'https://www.zohoapis.eu' };
    const unknown = await create({ credentials: creds, settings: { cvid: '123' } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*cvid/);
    const mod = await create({ credentials: creds, settings: { modules: ['Campaigns'] } });
    assert.match(mod.json().error.message, /settings\.modules/);
    const crm = await create({ credentials: creds, settings: { crm_url: 'crm.zoho.eu' } });
    assert.match(crm.json().error.message, /settings\.crm_url/);
    const domain = await create({ credentials: { access_token: z.token, api_domain: 'http://www.zohoapis.eu' } });
    assert.match(domain.json().error.message, /credentials\.api_domain/);
  });

  it('a full sync stores every lead, contact, account, deal and note, paging with info.more_records', async () => {
    const created = await create({ credentials: { access_token: z.token, api_domain: 'https://www.zohoapis.eu' } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /authenticated as Patricia\.Boyle@Zylker\.test on 127\.0\.0\.1/);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    assert.deepEqual(
      z.lists.filter((l) => l.module === 'Leads').map((l) => [l.page, l.ifModifiedSince]),
      [
        [1, null],
        [2, null],
      ],
    );
    assert.ok(z.fake.requests.every((r) => r.token === z.token), 'Zoho-oauthtoken header');
  });

  it('maps records to readable text with CRM links of the data centre, owner authors, dates, types and owner ACLs', async () => {
    const acct = first('Accounts');
    const a = await doc(`account:${acct.id}`);
    assert.ok(a);
    assert.equal(a.title, 'Zylker Inc');
    assert.equal(a.content, 'Account: Zylker Inc\nType: Customer\nIndustry: Technology\nWebsite: https://zylker.test\nPhone: +49 30 1234\nCity: Berlin\nCountry: Germany\nAnnual revenue: 2400000\nEmployees: 120\nOwner: Patricia Boyle\n\nDescription: Buys our analytics suite; champion is the CFO.');
    assert.equal(a.url, `https://crm.zoho.eu/crm/tab/Accounts/${acct.id}`);
    assert.equal(a.author, 'patricia.boyle@zylker.test');
    assert.equal(a.document_type, 'account');
    assert.equal(new Date(String(a.updated_at)).toISOString(), new Date(String(acct.Modified_Time)).toISOString());
    assert.deepEqual(a.acl, { users: ['patricia.boyle@zylker.test', 'zoho_crm:4876876000000225013'] });
    const lead = await doc(`lead:${first('Leads').id}`);
    assert.match(String(lead?.content), /^Lead: Tom Becker\nCompany: Becker Bikes\nTitle: Owner\n/);
    assert.equal(lead?.document_type, 'lead');
    const note = first('Notes');
    const n = await doc(`note:${note.id}`);
    assert.equal(n?.title, 'Pricing call');
    assert.equal(n?.content, 'Note: Pricing call\nOn: Deals Zylker renewal 2026\nOwner: Patricia Boyle\n\nLena asked for a 10% discount on a three-year term.');
    assert.equal(n?.url, `https://crm.zoho.eu/crm/tab/Deals/${first('Deals').id}`);
    assert.equal((await doc(`deal:${first('Deals').id}`))?.document_type, 'deal');
    assert.equal((await doc(`contact:${first('Contacts').id}`))?.document_type, 'contact');
  });

  it('documents are searchable and filterable by connector_type', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'discount three-year term', mode: 'lexical', filters: { connector_types: ['zoho_crm'] } } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, `note:${first('Notes').id}`);
  });

  it('an incremental sync sends If-Modified-Since (Zoho\'s clock at the last sync) and applies edits and the deleted lists', async () => {
    const cursor = (await t.db.query<{ sync_cursor: { since: string } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.ok(cursor?.since);
    const deal = first('Deals');
    deal.Stage = 'Closed Won';
    deal.Modified_Time = z.tick();
    const lead = d().records.Leads[1] as ZRecord;
    z.remove('Leads', lead.id);
    const note = z.add('Notes', { Note_Title: 'Signed', Note_Content: 'Contract countersigned on Friday.', Parent_Id: { name: 'Zylker renewal 2026', id: deal.id }, $se_module: 'Deals' });
    z.lists.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [1, 1, 1]);
    const header = `${cursor.since.slice(0, 19)}+00:00`;
    assert.ok(z.lists.every((l) => l.ifModifiedSince === header), JSON.stringify(z.lists));
    assert.deepEqual(
      z.lists.filter((l) => l.deleted).map((l) => l.module),
      ['Leads', 'Contacts', 'Accounts', 'Deals', 'Notes'],
    );
    assert.match(String((await doc(`deal:${deal.id}`))?.content), /Stage: Closed Won/);
    assert.equal((await doc(`note:${note.id}`))?.content, `Note: Signed\nOn: Deals Zylker renewal 2026\nOwner: Patricia Boyle\n\nContract countersigned on Friday.`);
    assert.equal(await doc(`lead:${lead.id}`), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry resumes from its page', async () => {
    const before = await stored();
    z.fake.failNext(1, 500, (req) => req.path === '/crm/v2/Accounts' && req.query.get('page') === '2');
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Zoho CRM answered HTTP 500: INTERNAL_ERROR/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    z.lists.length = 0;
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(z.lists.filter((l) => !l.deleted).map((l) => `${l.module}:${l.page}`)[0], 'Accounts:2', 'resumed at the failed page');
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a 429 TOO_MANY_REQUESTS is waited out', async () => {
    z.fake.rateLimitNext(1, 1);
    const c = await sync(false);
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.ok(c.sync_runs[0].rate_limited_waits >= 1);
  });

  it('a revoked token puts the connector in error with what Zoho said', async () => {
    z.fake.revoke(z.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: Zoho CRM answered 401 \(INVALID_TOKEN: invalid oauth token\): reconnect with OAuth/);
    } finally {
      z.fake.allow(z.token);
    }
  });
});

describe('zoho_crm OAuth: the data centre comes from the token answer', () => {
  it('asks for offline access with comma-separated scopes and calls the api_domain the token endpoint named', async () => {
    const z = await startFakeZoho();
    const t = await createTestApp({
      env: {
        ATRIUM_SYNC_SCHEDULER: 'false',
        ATRIUM_PUBLIC_URL: 'https://atrium.example.com',
        ATRIUM_OAUTH_CLIENTS: JSON.stringify({ zoho_crm: { client_id: '1000.ZOHOCLIENT', client_secret: 'zoho-client-secret-0123', token_url: `${z.url}/oauth/v2/token` } }),
      },
    });
    try {
      const worker = connectorWorker(t);
      const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'zoho_crm', display_name: 'Zoho', settings: { modules: ['Deals'] } } });
      assert.equal(created.statusCode, 201, created.body);
      const u = new URL(created.json().oauth_url);
      assert.equal(`${u.origin}${u.pathname}`, 'https://accounts.zoho.com/oauth/v2/auth');
      assert.deepEqual([u.searchParams.get('scope'), u.searchParams.get('access_type'), u.searchParams.get('prompt')], ['ZohoCRM.modules.READ,ZohoCRM.users.READ,ZohoCRM.org.READ', 'offline', 'consent']);
      const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=zoho-grant-code` });
      assert.equal(cb.statusCode, 200, cb.body);
      const cid = created.json().connector_id;
      const c = await syncConnector(t, worker, cid, true);
      assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
      const rows = (await t.db.query<{ external_id: string; url: string }>('SELECT external_id, url FROM documents WHERE source_node = $1', [cid])).rows;
      assert.deepEqual(rows.map((r) => r.external_id), z.data.records.Deals.map((r) => `deal:${r.id}`));
      // The fake's api_domain is a loopback host: links fall back to the US CRM host.
      assert.ok(rows.every((r) => r.url.startsWith('https://crm.zoho.com/crm/tab/Deals/')));
      assert.ok(z.fake.requests.some((r) => r.token?.startsWith('1000.oauth-')));
    } finally {
      await t.close();
      await z.close();
    }
  });
});
