import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeSalesforce, type SfRow, seedSalesforce, startFakeSalesforce } from '../fakes/salesforce.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker, storedDocument, storedIds, syncConnector } from './support.ts';

const INSTANCE = 'https://acme.my.salesforce.com';

describe('salesforce connector against the fake Salesforce REST API', () => {
  let t: TestApp;
  let sf: FakeSalesforce;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Batches of 2 records: every object needs queryMore (nextRecordsUrl).
    sf = await startFakeSalesforce(seedSalesforce(), { batchSize: 2 });
    t = await createTestApp({ clock, env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ salesforce: sf.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await sf.close();
  });

  const d = () => sf.data;
  const expectedIds = () =>
    [
      ...d().rows.Account.map((r) => `account:${r.Id}`),
      ...d().rows.Contact.map((r) => `contact:${r.Id}`),
      ...d().rows.Opportunity.map((r) => `opportunity:${r.Id}`),
      ...d().rows.Case.map((r) => `case:${r.Id}`),
      ...d().rows.KnowledgeArticleVersion.filter((r) => r.PublishStatus === 'Online').map((r) => `knowledge_article:${String(r.KnowledgeArticleId)}:en_US`),
    ].sort();
  const stored = async () => storedIds(t.db, id);
  const doc = async (externalId: string) => storedDocument(t.db, id, externalId);
  const sync = (full: boolean) => syncConnector(t, worker, id, full);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'salesforce', display_name: 'Salesforce', ...payload } });
  const row = (type: keyof ReturnType<typeof seedSalesforce>['rows'], i: number) => {
    const r = d().rows[type][i];
    assert.ok(r, `${type}[${i}]`);
    return r as SfRow;
  };

  it('refuses unknown settings keys, a bad API version and a bad instance URL (400 naming the field)', async () => {
    const creds = { access_token: sf.token, instance_url: INSTANCE };
    const unknown = await create({ credentials: creds, settings: { soql: 'SELECT Id FROM Lead' } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*soql/);
    const version = await create({ credentials: creds, settings: { api_version: 'v62' } });
    assert.match(version.json().error.message, /settings\.api_version/);
    for (const instance_url of ['acme.my.salesforce.com', 'http://acme.my.salesforce.com', 'https://acme.my.salesforce.com/?x=1']) {
      const bad = await create({ credentials: { access_token: sf.token, instance_url } });
      assert.equal(bad.statusCode, 400, instance_url);
      assert.match(bad.json().error.message, /credentials\.instance_url/, bad.body);
    }
  });

  it('a full sync stores every account, contact, opportunity, case and online article, following nextRecordsUrl', async () => {
    const created = await create({ credentials: { access_token: sf.token, instance_url: INSTANCE } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /authenticated as ada@acme\.test \(org 00DDn00000AcmeQAA\)/);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    // Contacts and cases (3 each) take a second batch through their query locator.
    assert.equal(sf.fake.requestsTo(/^\/services\/data\/v62\.0\/query\/01g/).length, 2, 'query locators followed');
    assert.ok(sf.queries.includes(`SELECT Id, Name, Type, Industry, Website, Phone, BillingCity, BillingCountry, AnnualRevenue, NumberOfEmployees, Description, OwnerId, Owner.Name, Owner.Email, CreatedDate, LastModifiedDate, SystemModstamp FROM Account ORDER BY SystemModstamp ASC`));
    assert.ok(sf.queries.some((q) => /FROM KnowledgeArticleVersion WHERE PublishStatus = 'Online' ORDER BY/.test(q)));
  });

  it('maps records to readable text with Lightning URLs, owner authors, dates, types and owner ACLs', async () => {
    const acme = row('Account', 0);
    const a = await doc(`account:${acme.Id}`);
    assert.ok(a);
    assert.equal(a.title, 'Acme Corp');
    assert.equal(a.content, 'Account: Acme Corp\nType: Customer\nIndustry: Manufacturing\nWebsite: https://acme.test\nPhone: +1 555 0100\nCity: Springfield\nCountry: USA\nAnnual revenue: 5000000\nEmployees: 250\nOwner: Ada Lovelace\n\nDescription: Makes anvils and rocket skates; renewal due in March.');
    assert.equal(a.url, `${INSTANCE}/lightning/r/Account/${acme.Id}/view`);
    assert.equal(a.author, 'ada@acme.test');
    assert.equal(a.document_type, 'account');
    assert.equal(new Date(String(a.created_at)).toISOString(), new Date(String(acme.CreatedDate).replace('+0000', 'Z')).toISOString());
    assert.deepEqual(a.acl, { users: ['ada@acme.test', 'salesforce:005Dn000001AdaAAA'] });
    const opp = await doc(`opportunity:${row('Opportunity', 0).Id}`);
    assert.match(String(opp?.content), /^Opportunity: Acme — 2026 renewal\nAccount: Acme Corp\nStage: Negotiation\/Review\nAmount: 120000\nClose date: 2026-03-31/);
    assert.equal(opp?.document_type, 'opportunity');
    const contact = await doc(`contact:${row('Contact', 0).Id}`);
    assert.match(String(contact?.content), /^Contact: Wile E\. Coyote\nTitle: Head of Procurement\nAccount: Acme Corp/);
    const kase = await doc(`case:${row('Case', 0).Id}`);
    assert.equal(kase?.title, 'Case 00001026: Anvil delivery arrived dented');
    assert.ok(String(kase?.content).includes('Comments:\n- Grace Hopper (2026-01-05): Photos received; the horn is bent by 3 mm.\n- Ada Lovelace (2026-01-05) [internal]: Replacement approved by the warehouse.'), String(kase?.content));
    assert.equal(kase?.document_type, 'case');
    const queued = await doc(`case:${row('Case', 1).Id}`);
    assert.deepEqual(queued?.acl, { groups: ['salesforce:00GDn000000SupQAAS'] });
    const article = row('KnowledgeArticleVersion', 0);
    const k = await doc(`knowledge_article:${String(article.KnowledgeArticleId)}:en_US`);
    assert.equal(k?.title, 'How to return a damaged anvil');
    assert.equal(k?.document_type, 'knowledge_article');
    assert.deepEqual(k?.acl, { public: true });
    assert.equal(k?.url, `${INSTANCE}/lightning/r/KnowledgeArticleVersion/${article.Id}/view`);
  });

  it('documents are searchable and filterable by connector_type', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'horn bent replacement warehouse', mode: 'lexical', filters: { connector_types: ['salesforce'] } } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, `case:${row('Case', 0).Id}`);
    const none = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'horn bent replacement warehouse', mode: 'lexical', filters: { connector_types: ['jira'] } } });
    assert.equal(none.json().passages.length, 0);
  });

  it('an incremental sync reads SystemModstamp > the last sync\'s server time, applies getDeleted, re-reads cases with new comments and drops archived articles', async () => {
    const cursor = (await t.db.query<{ sync_cursor: { since: string } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.ok(cursor?.since);
    const acme = row('Account', 0);
    acme.Description = 'Renewal signed for three years.';
    acme.LastModifiedDate = acme.SystemModstamp = sf.tick();
    const gone = row('Opportunity', 1);
    sf.remove('Opportunity', gone.Id);
    // A new comment does not move its case's SystemModstamp.
    const kase = row('Case', 2);
    sf.add('CaseComment', { ParentId: kase.Id, CommentBody: 'Customer confirms the speed limiter works.', IsPublished: true, CreatedById: d().users[1]?.Id });
    const archived = row('KnowledgeArticleVersion', 1);
    archived.PublishStatus = 'Archived';
    archived.SystemModstamp = sf.tick();
    sf.queries.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [0, 2, 2]);
    const since = `${cursor.since.slice(0, 19)}Z`;
    assert.ok(sf.queries.some((q) => q.endsWith(`FROM Account WHERE SystemModstamp > ${since} ORDER BY SystemModstamp ASC`)), sf.queries.join('\n'));
    assert.ok(sf.queries.includes(`SELECT ParentId FROM CaseComment WHERE SystemModstamp > ${since}`));
    const deletedCalls = sf.fake.requestsTo(/\/sobjects\/\w+\/deleted\/?$/).map((r) => r.path.split('/')[5]);
    assert.deepEqual([...new Set(deletedCalls)].sort(), ['Account', 'Case', 'CaseComment', 'Contact', 'Opportunity']);
    assert.match(String((await doc(`account:${acme.Id}`))?.content), /Description: Renewal signed for three years\.$/);
    assert.match(String((await doc(`case:${kase.Id}`))?.content), /Customer confirms the speed limiter works\.$/);
    assert.equal(await doc(`opportunity:${gone.Id}`), undefined);
    assert.equal(await doc(`knowledge_article:${String(archived.KnowledgeArticleId)}:en_US`), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a deleted case comment re-reads its case (getDeleted on CaseComment, matched through the stored comment ids)', async () => {
    const kase = row('Case', 0);
    const comment = d().rows.CaseComment.find((x) => x.ParentId === kase.Id);
    assert.ok(comment);
    sf.remove('CaseComment', comment.Id);
    const c = await sync(false);
    assert.equal(c.sync_runs[0].updated, 1, JSON.stringify(c.sync_runs[0]));
    assert.ok(!String((await doc(`case:${kase.Id}`))?.content).includes(String(comment.CommentBody)));
  });

  it('a vendor 5xx on a queryMore fails the attempt without losing anything; the retry completes', async () => {
    const before = await stored();
    sf.fake.failNext(1, 500, (req) => /\/query\/01g/.test(req.path));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Salesforce answered HTTP 500: UNKNOWN_EXCEPTION/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
  });

  it('an org without Knowledge (INVALID_TYPE) syncs everything else; its articles go with the full sync', async () => {
    d().knowledgeEnabled = false;
    try {
      const c = await sync(true);
      assert.equal(c.status, 'idle', JSON.stringify(c));
      assert.deepEqual(
        await stored(),
        expectedIds().filter((x) => !x.startsWith('knowledge_article:')),
      );
    } finally {
      d().knowledgeEnabled = true;
    }
  });

  it('the spent daily allocation (403 REQUEST_LIMIT_EXCEEDED) is a rate limit waited out for an hour, not bad credentials', async () => {
    sf.dailyLimitNext(1);
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=false`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.status, 'rate_limited', JSON.stringify(c));
    const job = (await t.db.query<{ id: string; status: string; run_at: Date }>("SELECT id, status, run_at FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued');
    assert.ok(new Date(String(job?.run_at)).getTime() - Date.now() > 50 * 60_000, 'handed back for about an hour');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    // The hour is over: the connector's shared bucket no longer blocks.
    await t.db.query('UPDATE connector_rate_buckets SET blocked_until_ms = 0 WHERE connector_id = $1', [id]);
    await worker.drain();
    const done = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(done.sync_runs[0].status, 'completed', JSON.stringify(done.sync_runs[0]));
  });

  it('a revoked token puts the connector in error with what Salesforce said', async () => {
    sf.fake.revoke(sf.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: Salesforce answered 401 \(INVALID_SESSION_ID: Session expired or invalid\): reconnect with OAuth/);
    } finally {
      sf.fake.allow(sf.token);
    }
  });
});

describe('salesforce OAuth: the instance URL comes from the token answer', () => {
  it('connects with api refresh_token scopes and syncs against the instance_url the token endpoint named', async () => {
    const sf = await startFakeSalesforce();
    const t = await createTestApp({
      env: {
        ATRIUM_SYNC_SCHEDULER: 'false',
        ATRIUM_PUBLIC_URL: 'https://atrium.example.com',
        ATRIUM_OAUTH_CLIENTS: JSON.stringify({ salesforce: { client_id: 'sf-consumer-key', client_secret: 'sf-consumer-secret-0123', token_url: `${sf.url}/services/oauth2/token` } }),
      },
    });
    try {
      const worker = connectorWorker(t);
      const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'salesforce', display_name: 'SF', settings: { objects: ['account', 'knowledge_article'] } } });
      assert.equal(created.statusCode, 201, created.body);
      const u = new URL(created.json().oauth_url);
      assert.equal(`${u.origin}${u.pathname}`, 'https://login.salesforce.com/services/oauth2/authorize');
      assert.equal(u.searchParams.get('scope'), 'api refresh_token');
      const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=salesforce-code` });
      assert.equal(cb.statusCode, 200, cb.body);
      const cid = created.json().connector_id;
      const c = await syncConnector(t, worker, cid, true);
      assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
      const rows = (await t.db.query<{ external_id: string; url: string }>('SELECT external_id, url FROM documents WHERE source_node = $1 ORDER BY 1', [cid])).rows;
      assert.equal(rows.length, sf.data.rows.Account.length + sf.data.rows.KnowledgeArticleVersion.length);
      assert.ok(rows.every((r) => r.url.startsWith(`${sf.url}/lightning/r/`)), JSON.stringify(rows[0]));
      assert.ok(sf.fake.requests.some((r) => r.token?.startsWith('00DDn00000AcmeQAA!oauth-')));
    } finally {
      await t.close();
      await sf.close();
    }
  });
});
