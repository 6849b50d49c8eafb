import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeFreshdesk, seedFreshdesk, startFakeFreshdesk } from '../fakes/freshdesk.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker, storedDocument, storedIds, syncConnector } from './support.ts';

describe('freshdesk connector against the fake Freshdesk API v2', () => {
  let t: TestApp;
  let fd: FakeFreshdesk;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Two items a page: a few documents, many pages (tickets, conversations, articles).
    fd = await startFakeFreshdesk(seedFreshdesk({ extraTickets: 2 }), { perPageCap: 2 });
    t = await createTestApp({
      clock,
      env: {
        ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ freshdesk: fd.url }),
        ATRIUM_SYNC_SCHEDULER: 'false',
        ATRIUM_PUBLIC_URL: 'https://atrium.example.com',
        ATRIUM_OAUTH_CLIENTS: JSON.stringify({
          freshdesk: { client_id: 'fw_ext_1', client_secret: 'fw-secret-0123456789', authorize_url: 'https://acme.myfreshworks.com/org/oauth/v2/authorize', token_url: `${fd.url}/org/oauth/v2/token` },
        }),
      },
    });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await fd.close();
  });

  const d = () => fd.data;
  const articles = () => d().categories.flatMap((c) => c.folders.flatMap((f) => f.articles));
  const expectedIds = () => [...d().tickets.filter((x) => !x.deleted).map((x) => `ticket:${x.id}`), ...articles().filter((a) => a.status === 2).map((a) => `article:${a.id}`)].sort();
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const ticket = (tid: number) => {
    const x = d().tickets.find((y) => y.id === tid);
    assert.ok(x, String(tid));
    return x;
  };
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'freshdesk', display_name: 'Freshdesk', ...payload } });

  it('refuses unknown settings keys and a domain that is a URL (400 naming the field)', async () => {
    const unknown = await create({ credentials: { api_key: fd.apiKey }, settings: { domain: fd.domain, portal: 1 } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*portal/);
    for (const domain of ['https://acme.freshdesk.com', 'acme.freshdesk.com/a', 'acme', 'acme.freshdesk.com:443']) {
      const bad = await create({ credentials: { api_key: fd.apiKey }, settings: { domain } });
      assert.equal(bad.statusCode, 400, domain);
      assert.match(bad.json().error.message, /settings\.domain/, bad.body);
    }
  });

  it('a full sync lists every ticket (updated_since epoch, ascending), their conversations and the published articles', async () => {
    const created = await create({ credentials: { api_key: fd.apiKey }, settings: { domain: 'Acme.Freshdesk.com' } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /authenticated as ada@acme\.test on acme\.freshdesk\.com/i);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    assert.deepEqual(fd.listings[0], { updated_since: '1970-01-01T00:00:00Z', order_by: 'updated_at', order_type: 'asc', per_page: '100', page: '1', include: 'requester,description' });
    assert.ok(fd.listings.some((l) => l.page === '3'), 'followed the Link header over three pages');
    assert.equal(fd.listings.filter((l) => l.filter === 'deleted').length, 0, 'a full sync sweeps instead');
    assert.equal(fd.fake.requestsTo('/api/v2/tickets/11/conversations').length, 2, '3 conversations in pages of 2');
    // The API key as HTTP Basic `<key>:X`.
    assert.ok(fd.fake.requests.every((r) => r.token === fd.apiKey));
  });

  it('maps a ticket: "#id subject", description and conversation as text with names, private notes marked, agent URL, requester, agents ACL', async () => {
    const row = await doc('ticket:11');
    assert.ok(row);
    assert.equal(row.title, '#11 Two-factor codes never arrive');
    assert.equal(row.url, 'https://acme.freshdesk.com/a/tickets/11');
    assert.equal(row.document_type, 'ticket');
    assert.equal(row.author, 'carl@customer.test');
    const content = String(row.content);
    for (const part of [
      'Status: Resolved\nPriority: High\nType: Incident\nSource: Email\nRequester: Carl Customer\nAgent: Grace Agent\nTags: 2fa, sms',
      'Carl Customer — 2026-01-05 09:01 UTC\nI enabled two-factor authentication but the SMS codes never arrive.',
      'Grace Agent — 2026-01-05 09:02 UTC\nCould you confirm the phone number on your profile?',
      'Grace Agent — 2026-01-05 09:03 UTC (private note)\nCarrier blocks short codes in this region',
      'Carl Customer — 2026-01-05 09:04 UTC\nThe number is correct',
    ]) {
      assert.ok(content.includes(part), `${part} in ${content}`);
    }
    assert.equal(new Date(String(row.created_at)).toISOString(), '2026-01-05T09:01:00.000Z');
    assert.deepEqual(row.acl, { groups: ['freshdesk:agents'] });
    const meta = row.metadata as Record<string, unknown>;
    assert.deepEqual([meta.status, meta.priority, meta.private_note_count, meta.conversation_count], ['Resolved', 'High', 1, 3]);
    assert.equal(await doc('ticket:13'), undefined, 'a deleted ticket is not listed');
  });

  it('maps solution articles: HTML as text, portal URL, agent email, folder visibility as ACL; drafts are not synced', async () => {
    const a = await doc('article:7001');
    assert.equal(a?.title, 'Set up two-factor authentication');
    assert.match(String(a?.content), /Open Profile and choose Security\./);
    assert.equal(a?.url, 'https://acme.freshdesk.com/support/solutions/articles/7001');
    assert.equal(a?.author, 'ada@acme.test');
    assert.equal(a?.document_type, 'article');
    assert.deepEqual(a?.acl, { public: true });
    assert.deepEqual((await doc('article:7002'))?.acl, { groups: ['freshdesk:agents'] });
    assert.equal(await doc('article:7003'), undefined);
  });

  it('documents are searchable and filterable by connector_type', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'carrier blocks short codes fallback provider', mode: 'lexical', filters: { connector_types: ['freshdesk'] } } });
    assert.equal(r.statusCode, 200, r.body);
    const ids = r.json().passages.map((p: { external_id: string }) => p.external_id);
    assert.ok(ids.includes('ticket:11'), JSON.stringify(ids));
    const other = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'carrier blocks short codes fallback provider', mode: 'lexical', filters: { connector_types: ['zendesk'] } } });
    assert.equal(other.json().passages.length, 0);
  });

  it('an incremental sync lists tickets updated since the cursor, deletes trashed tickets (filter=deleted) and unpublished articles', async () => {
    const cursor = (await t.db.query<{ sync_cursor: { updated_since: string } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.ok(cursor?.updated_since);
    const t12 = ticket(12);
    const at = fd.tick();
    t12.conversations.push({ id: 1299, user_id: 1002, body_text: 'Refunded the duplicate charge.', incoming: false, private: false, created_at: at });
    t12.updated_at = at;
    const t15 = ticket(15);
    t15.deleted = true;
    t15.updated_at = fd.tick();
    const draft = articles().find((a) => a.id === 7002);
    assert.ok(draft);
    draft.status = 1;
    fd.listings.length = 0;
    const before = fd.fake.requests.length;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [0, 1, 2]);
    assert.equal(fd.listings[0]?.updated_since, cursor.updated_since);
    assert.ok(fd.listings.some((l) => l.filter === 'deleted'));
    const convs = fd.fake.requests.slice(before).filter((r) => r.path.endsWith('/conversations'));
    // The changed ticket, and the one at the cursor itself (updated_since is inclusive: re-read, stored unchanged).
    const boundary = d().tickets.filter((x) => Date.parse(x.updated_at) === Date.parse(cursor.updated_since)).map((x) => `/api/v2/tickets/${x.id}/conversations`);
    assert.deepEqual([...new Set(convs.map((r) => r.path))].sort(), [...boundary, '/api/v2/tickets/12/conversations'].sort());
    assert.match(String((await doc('ticket:12'))?.content), /Grace Agent — .*\nRefunded the duplicate charge\./);
    assert.equal(await doc('ticket:15'), undefined);
    assert.equal(await doc('article:7002'), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry resumes the full sync at its page', async () => {
    const before = await stored();
    fd.listings.length = 0;
    fd.fake.failNext(1, 502, (req) => req.path === '/api/v2/tickets' && req.query.get('page') === '2');
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Freshdesk answered HTTP 502/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
    assert.equal(fd.listings.filter((l) => l.page === '1' && !l.filter).length, 1, 'page one once: the retry resumed at page 2');
  });

  it('a full sync removes a ticket gone for good (emptied from the trash)', async () => {
    const i = d().tickets.findIndex((x) => x.id === 100);
    d().tickets.splice(i, 1);
    await sync(false);
    assert.ok(await doc('ticket:100'), 'in no listing: still stored after an incremental sync');
    const c = await sync(true);
    assert.equal(c.sync_runs[0].deleted, 1);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a revoked API key puts the connector in error with what Freshdesk said', async () => {
    fd.fake.revoke(fd.apiKey);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: Freshdesk answered 401 .*You have to be logged in.*API key/);
    } finally {
      fd.fake.allow(fd.apiKey);
    }
  });

  it('connects with Freshworks OAuth at the org configured in ATRIUM_OAUTH_CLIENTS and syncs with the Bearer token', async () => {
    const created = await create({ settings: { domain: fd.domain, include_tickets: false } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://acme.myfreshworks.com/org/oauth/v2/authorize');
    assert.equal(u.searchParams.get('scope'), 'freshdesk.tickets.view freshdesk.solutions.view freshdesk.agents.view');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=freshworks-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = fd.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    const calls = fd.fake.requests.slice(before);
    assert.ok(calls.length > 0 && calls.every((r) => r.token?.startsWith('fw-oauth-')), JSON.stringify(calls.slice(0, 3)));
    assert.equal(calls.filter((r) => r.path === '/api/v2/tickets').length, 0, 'include_tickets: false');
    assert.deepEqual(await stored(oauthId), articles().filter((a) => a.status === 2).map((a) => `article:${a.id}`).sort());
  });
});
