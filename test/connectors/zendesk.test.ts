import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeZendesk, seedZendesk, startFakeZendesk, type ZTicket } from '../fakes/zendesk.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker, storedDocument, storedIds, syncConnector } from './support.ts';

describe('zendesk connector against the fake Zendesk Support and Help Center APIs', () => {
  let t: TestApp;
  let zd: FakeZendesk;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Two tickets, two comments and two articles a page: a few documents, many pages.
    zd = await startFakeZendesk(seedZendesk({ extraTickets: 2 }), { ticketPage: 2, commentPage: 2, articlePage: 2 });
    t = await createTestApp({
      clock,
      env: {
        ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ zendesk: zd.url }),
        ATRIUM_SYNC_SCHEDULER: 'false',
        ATRIUM_PUBLIC_URL: 'https://atrium.example.com',
        ATRIUM_OAUTH_CLIENTS: JSON.stringify({
          zendesk: { client_id: 'atrium', client_secret: 'zd-secret-0123456789', authorize_url: 'https://acme.zendesk.com/oauth/authorizations/new', token_url: `${zd.url}/oauth/tokens` },
        }),
      },
    });
    worker = connectorWorker(t);
  });
  after(async () => {
    await t.close();
    await zd.close();
  });

  const d = () => zd.data;
  const expectedIds = () =>
    [...d().tickets.filter((x) => x.status !== 'deleted').map((x) => `ticket:${x.id}`), ...d().articles.filter((a) => !a.draft).map((a) => `article:${a.id}`)].sort();
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const ticket = (tid: number) => {
    const x = d().tickets.find((y) => y.id === tid);
    assert.ok(x, String(tid));
    return x;
  };
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'zendesk', display_name: 'Zendesk', ...payload } });
  const exports = () => zd.fake.requestsTo('/api/v2/incremental/tickets/cursor.json');
  const articleExports = () => zd.fake.requestsTo('/api/v2/help_center/incremental/articles.json');

  it('refuses unknown settings keys, a subdomain that is a URL or host, and a token without its email (400 naming the field)', async () => {
    const creds = { email: zd.email, api_token: zd.apiToken };
    const unknown = await create({ credentials: creds, settings: { subdomain: 'acme', views: [1] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*views/);
    for (const subdomain of ['acme.zendesk.com', 'https://acme.zendesk.com', 'ac me', '']) {
      const bad = await create({ credentials: creds, settings: { subdomain } });
      assert.equal(bad.statusCode, 400, subdomain);
      assert.match(bad.json().error.message, /settings\.subdomain/, bad.body);
    }
    const lonely = await create({ credentials: { api_token: zd.apiToken }, settings: { subdomain: 'acme' } });
    assert.equal(lonely.statusCode, 400);
    assert.match(lonely.json().error.message, /credentials\.email/);
  });

  it('a full sync exports tickets from start_time=0 then by cursor, reads every comment page, and exports articles', async () => {
    const created = await create({ credentials: { email: zd.email, api_token: zd.apiToken }, settings: { subdomain: 'ACME' } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /authenticated as ada@acme\.test on acme\.zendesk\.com/i);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    const ex = exports();
    assert.deepEqual(ex[0]?.query, { start_time: '0', include: 'users', per_page: '100' });
    assert.ok(ex.length >= 3 && ex.slice(1).every((r) => r.query.cursor && !r.query.start_time), JSON.stringify(ex.map((r) => r.query)));
    assert.ok(zd.fake.requestsTo('/api/v2/tickets/101/comments.json').length >= 2, 'the 4 comments of #101 read in pages of 2');
    assert.ok(zd.fake.requestsTo('/api/v2/tickets/103/comments.json').length === 0, 'no comments asked of a deleted ticket');
    assert.ok(articleExports().length >= 2);
    // API token as HTTP Basic `{email}/token:{api_token}`.
    assert.ok(zd.fake.requests.every((r) => r.token === zd.basicToken));
  });

  it('maps a ticket: "#id subject", the conversation as text with names and internal notes marked, agent URL, requester, agents ACL', async () => {
    const row = await doc('ticket:101');
    assert.ok(row);
    assert.equal(row.title, '#101 Cannot log in after password reset');
    assert.equal(row.url, 'https://acme.zendesk.com/agent/tickets/101');
    assert.equal(row.document_type, 'ticket');
    assert.equal(row.author, 'carl@customer.test');
    const content = String(row.content);
    assert.ok(!content.includes('{"'), 'text, not JSON');
    for (const part of [
      'Status: solved\nPriority: high\nType: incident\nRequester: Carl Customer\nAssignee: Grace Agent\nTags: login, sso',
      'Carl Customer — 2026-01-05 09:02 UTC\nAfter resetting my password the login page keeps spinning.',
      'Grace Agent — 2026-01-05 09:04 UTC (internal note)\nCustomer is on the legacy SSO tenant, escalate to identity team.',
      'Clearing cookies fixed it, thank you!',
    ]) {
      assert.ok(content.includes(part), `${part} in ${content}`);
    }
    assert.ok(content.indexOf('keeps spinning') < content.indexOf('clear the browser cookies'), 'comments in order');
    assert.equal(new Date(String(row.created_at)).toISOString(), '2026-01-05T09:01:00.000Z');
    assert.deepEqual(row.acl, { groups: ['zendesk:agents'] });
    const meta = row.metadata as Record<string, unknown>;
    assert.deepEqual([meta.status, meta.priority, meta.group_id, meta.internal_note_count, meta.comment_count], ['solved', 'high', 360001, 1, 4]);
    assert.equal(await doc('ticket:103'), undefined, 'a deleted ticket is not stored');
  });

  it('maps Help Center articles: HTML as text, html_url, author email, public or segment ACL; drafts are not synced', async () => {
    const a = await doc('article:3001');
    assert.equal(a?.title, 'How to reset your password');
    assert.match(String(a?.content), /Open Settings and choose Reset password\./);
    assert.ok(!String(a?.content).includes('<p>'));
    assert.equal(a?.url, 'https://acme.zendesk.com/hc/en-us/articles/3001');
    assert.equal(a?.author, 'ada@acme.test');
    assert.equal(a?.document_type, 'article');
    assert.deepEqual(a?.acl, { public: true });
    assert.deepEqual((await doc('article:3002'))?.acl, { groups: ['zendesk:segment:4401'] });
    assert.equal(await doc('article:3003'), undefined);
  });

  it('documents are searchable and filterable by connector_type', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'legacy SSO tenant identity team', mode: 'lexical', filters: { connector_types: ['zendesk'] } } });
    assert.equal(r.statusCode, 200, r.body);
    const ids = r.json().passages.map((p: { external_id: string }) => p.external_id);
    assert.ok(ids.includes('ticket:101'), JSON.stringify(ids));
    const other = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'legacy SSO tenant identity team', mode: 'lexical', filters: { connector_types: ['jira'] } } });
    assert.equal(other.json().passages.length, 0);
  });

  it('an incremental sync resumes the export at the stored after_cursor and the articles at end_time: edits, new comments, deleted tickets, drafts', async () => {
    const cursor = (await t.db.query<{ sync_cursor: { tickets: string; articles_start_time: number } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.ok(cursor?.tickets && cursor.articles_start_time > 0, JSON.stringify(cursor));
    const t102 = ticket(102);
    const at = zd.tick();
    t102.comments.push({ id: 10299, author_id: 9002, body: 'Corrected the VAT rate, a credit note follows.', public: true, created_at: at });
    t102.updated_at = at;
    const t104 = ticket(104);
    t104.status = 'deleted';
    t104.updated_at = zd.tick();
    const art = d().articles.find((a) => a.id === 3001);
    const seg = d().articles.find((a) => a.id === 3002);
    assert.ok(art && seg);
    art.title = 'Reset your password (updated)';
    art.updated_at = zd.tick();
    seg.draft = true;
    seg.updated_at = zd.tick();
    const before = zd.fake.requests.length;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [0, 2, 2]);
    const calls = zd.fake.requests.slice(before);
    const ex = calls.filter((r) => r.path === '/api/v2/incremental/tickets/cursor.json');
    assert.equal(ex[0]?.query.cursor, cursor.tickets, 'resumed at the after_cursor, not a start_time');
    assert.ok(ex.every((r) => !r.query.start_time));
    assert.deepEqual(calls.filter((r) => r.path.endsWith('/comments.json')).map((r) => r.path), ['/api/v2/tickets/102/comments.json'], 'only the changed ticket (its 2 comments: one page)');
    assert.equal(calls.find((r) => r.path === '/api/v2/help_center/incremental/articles.json')?.query.start_time, String(cursor.articles_start_time));
    assert.match(String((await doc('ticket:102'))?.content), /Grace Agent — .*\nCorrected the VAT rate/);
    assert.equal(await doc('ticket:104'), undefined);
    assert.equal((await doc('article:3001'))?.title, 'Reset your password (updated)');
    assert.equal(await doc('article:3002'), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry resumes the full sync at its export page', async () => {
    const before = await stored();
    const from = zd.fake.requests.length;
    zd.fake.failNext(1, 503, (req) => req.path === '/api/v2/incremental/tickets/cursor.json' && req.query.has('cursor'));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Zendesk answered HTTP 503/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
    const ex = zd.fake.requests.slice(from).filter((x) => x.path === '/api/v2/incremental/tickets/cursor.json');
    assert.equal(ex.filter((x) => x.query.start_time === '0').length, 1, 'the first page once: the retry resumed at the failed cursor');
  });

  it('a full sync removes a ticket scrubbed from Zendesk (gone from the export)', async () => {
    const i = d().tickets.findIndex((x) => x.id === 200);
    const [gone] = d().tickets.splice(i, 1) as [ZTicket];
    await sync(false);
    assert.ok(await doc(`ticket:${gone.id}`), 'an incremental export does not list it: still stored');
    const c = await sync(true);
    assert.equal(c.sync_runs[0].deleted, 1);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a Zendesk agent (not an admin) cannot run the ticket export: error naming the role', async () => {
    const token = 'agent-token-42';
    zd.fake.allow(`grace@acme.test/token:${token}`);
    const r = await create({ credentials: { email: 'grace@acme.test', api_token: token }, settings: { subdomain: 'acme' } });
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${r.json().connector_id}`, headers: t.admin })).json();
    assert.equal(c.status, 'error');
    // The email is a credential: masked in the message.
    assert.match(c.status_reason, /on acme\.zendesk\.com is a Zendesk agent: the ticket export needs an admin/);
  });

  it('a revoked API token puts the connector in error with what Zendesk said', async () => {
    zd.fake.revoke(zd.basicToken);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: Zendesk answered 401 .*Couldn't authenticate you.*API token/);
    } finally {
      zd.fake.allow(zd.basicToken);
    }
  });

  it('connects with OAuth at the subdomain configured in ATRIUM_OAUTH_CLIENTS (scope read) and syncs with the Bearer token', async () => {
    const created = await create({ settings: { subdomain: 'acme', include_tickets: false } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://acme.zendesk.com/oauth/authorizations/new');
    assert.equal(u.searchParams.get('scope'), 'read');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=zendesk-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = zd.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    const calls = zd.fake.requests.slice(before);
    assert.ok(calls.length > 0 && calls.every((r) => r.token?.startsWith('zd-oauth-')), JSON.stringify(calls.slice(0, 3)));
    assert.equal(calls.filter((r) => r.path === '/api/v2/incremental/tickets/cursor.json').length, 0, 'include_tickets: false');
    assert.deepEqual(await stored(oauthId), d().articles.filter((a) => !a.draft).map((a) => `article:${a.id}`).sort());
  });
});
