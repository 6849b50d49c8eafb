import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeIntercom, type ICConversation, seedIntercom, startFakeIntercom } from '../fakes/intercom.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('intercom connector against the fake Intercom REST API', () => {
  let t: TestApp;
  let ic: FakeIntercom;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Search pages of at most 2 conversations: a few documents, many pages.
    ic = await startFakeIntercom(seedIntercom({ conversations: 6 }), { searchPage: 2 });
    ({ t, worker } = await kindHarness('intercom', ic.url, { clock, oauthClient: { client_id: 'ic-client', client_secret: 'ic-secret-0123456789', token_url: `${ic.url}/auth/eagle/token` } }));
  });
  after(async () => {
    await t.close();
    await ic.close();
  });

  const d = () => ic.data;
  const expectedIds = () => [...d().conversations.map((c) => `conversation:${c.id}`), ...d().articles.filter((a) => a.state === 'published').map((a) => `article:${a.id}`)].sort();
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const conversation = (cid: string) => {
    const c = d().conversations.find((x) => x.id === cid);
    assert.ok(c, cid);
    return c;
  };
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'intercom', display_name: 'Intercom', ...payload } });

  it('refuses unknown settings and credential keys and an unknown region (400 naming the field)', async () => {
    const creds = { access_token: ic.token };
    const unknown = await create({ credentials: creds, settings: { inboxes: ['x'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*inboxes/);
    const region = await create({ credentials: creds, settings: { region: 'ca' } });
    assert.equal(region.statusCode, 400);
    assert.match(region.json().error.message, /settings\.region/);
    const key = await create({ credentials: { api_key: 'x' } });
    assert.equal(key.statusCode, 400);
    assert.match(key.json().error.message, /credentials.*api_key/);
  });

  it('a full sync stores conversations and published articles, paging the search with starting_after', async () => {
    const created = await create({ credentials: { access_token: ic.token }, settings: { region: 'eu' } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /ada@acme\.test on Acme Support/);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    assert.equal(await doc('article:7004'), undefined, 'drafts are not indexed by default');
    assert.deepEqual(ic.searches.map((s) => s.query), [0, 1, 2].map(() => ({ field: 'updated_at', operator: '>', value: 0 })));
    assert.deepEqual(ic.searches.map((s) => Boolean(s.starting_after)), [false, true, true]);
    assert.equal(ic.fake.requestsTo(/^\/conversations\/\d+$/).length, 6, 'each conversation read once for its parts');
    assert.ok(ic.versions.length > 0 && ic.versions.every((v) => v === '2.11'), 'Intercom-Version pinned on every request');
    // Names come from the author objects; only the contact whose objects carry no name is looked up.
    const lookups = ic.fake.requestsTo(/^\/contacts\//).map((r) => r.path);
    assert.ok(lookups.length > 0 && lookups.every((p) => p === `/contacts/${d().contacts[2]?.id}`), JSON.stringify(lookups));
  });

  it('maps a conversation: contact and first message in the title, parts in order with author names as text, inbox URL, teammates ACL', async () => {
    const row = await doc('conversation:1000');
    assert.ok(row);
    assert.equal(row.title, 'Conversation with Alan Customer: Hi, my password reset email never arrives. Can you help?');
    assert.equal(row.url, 'https://app.eu.intercom.com/a/inbox/abc12def/inbox/conversation/1000');
    assert.equal(row.document_type, 'conversation');
    assert.equal(row.author, 'alan@customer.test');
    const content = String(row.content);
    assert.ok(!content.includes('<p>'), 'text, not HTML');
    const order = ['Alan Customer (2026-01-05 09:00 UTC):\nHi, my password reset email never arrives.', 'Ada Support (', 'Thanks for reaching out', 'Alan Customer (', 'Sure, attached.', 'Grace Ops [note]', 'Enterprise plan', 'Ada Support [closed]', 'Fixed in release 4.2'];
    let at = -1;
    for (const part of order) {
      const i = content.indexOf(part, at + 1);
      assert.ok(i > at, `${part} after position ${at} in ${content}`);
      at = i;
    }
    assert.equal(new Date(String(row.created_at)).toISOString(), '2026-01-05T09:00:00.000Z');
    assert.deepEqual(row.acl, { groups: ['intercom:teammates'] });
    const meta = row.metadata as Record<string, unknown>;
    assert.deepEqual([meta.state, meta.tags, meta.app_id], ['closed', ['billing'], 'abc12def']);
    const titled = await doc('conversation:1001');
    assert.equal(titled?.title, 'Conversation with Linus Lead: Ticket: invoice shows the wrong VAT');
    const lookedUp = await doc('conversation:1002');
    assert.match(String(lookedUp?.title), /^Conversation with Mary Hidden: /, 'the name from GET /contacts/{id}');
    assert.match(String(lookedUp?.content), /^Mary Hidden \(/);
  });

  it('maps a published article: Help Center URL, HTML body as text, public ACL', async () => {
    const row = await doc('article:7001');
    assert.equal(row?.title, 'Resetting your password');
    assert.equal(row?.url, 'https://help.acme.test/en/articles/7001-resetting-your-password');
    assert.equal(row?.document_type, 'article');
    assert.equal(row?.author, 'intercom:991267401');
    assert.match(String(row?.content), /^How to get a new password\n\n## Steps\n/);
    assert.ok(!String(row?.content).includes('<li>'));
    assert.deepEqual(row?.acl, { public: true });
  });

  it('documents are searchable and filterable by connector_type', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'Enterprise plan customer', mode: 'lexical', filters: { connector_types: ['intercom'] } } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, 'conversation:1000');
    const other = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'Enterprise plan customer', mode: 'lexical', filters: { connector_types: ['jira'] } } });
    assert.equal(other.json().passages.length, 0, other.body);
  });

  it('an incremental sync searches updated_at > the cursor and applies new parts, new and unpublished articles', async () => {
    const cursor = (await t.db.query<{ sync_cursor: { since: number } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.ok(cursor?.since);
    const edited = conversation('1003');
    const now = ic.tick();
    edited.parts.push({ id: '69999', part_type: 'comment', body: '<p>Rolled back the mobile build.</p>', created_at: now, author: d().admins[1] as ICConversation['parts'][number]['author'] });
    edited.updated_at = now;
    const fresh = ic.tick();
    d().articles.push({ id: '7010', title: 'Exporting data to CSV', description: '', body: '<p>Choose Export, then CSV.</p>', author_id: 991267402, state: 'published', created_at: fresh, updated_at: fresh });
    const unpublished = d().articles.find((a) => a.id === '7002');
    assert.ok(unpublished);
    unpublished.state = 'draft';
    unpublished.updated_at = ic.tick();
    ic.searches.length = 0;
    const before = ic.fake.requests.length;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [1, 1, 1]);
    assert.deepEqual(ic.searches.map((s) => s.query), [{ field: 'updated_at', operator: '>', value: cursor.since - 1 }]);
    const reads = ic.fake.requests.slice(before).filter((r) => /^\/conversations\/\d+$/.test(r.path)).map((r) => r.path);
    assert.deepEqual(reads, ['/conversations/1003'], 'only the changed conversation is read');
    assert.match(String((await doc('conversation:1003'))?.content), /Grace Ops \(.*\):\nRolled back the mobile build\.$/);
    assert.equal((await doc('article:7010'))?.title, 'Exporting data to CSV');
    assert.equal(await doc('article:7002'), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry resumes the full sync from its page', async () => {
    const before = await stored();
    ic.searches.length = 0;
    ic.fake.failNext(1, 502, (req) => req.path === '/conversations/search' && Boolean((req.body as { pagination?: { starting_after?: string } } | undefined)?.pagination?.starting_after));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Intercom answered HTTP 502/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
    assert.deepEqual(ic.searches.map((s) => Boolean(s.starting_after)), [false, true, true], 'page one once; the retry resumed at the failed page');
  });

  it('a full sync removes a deleted conversation and a deleted article (an incremental sync cannot see them)', async () => {
    d().conversations.splice(d().conversations.indexOf(conversation('1004')), 1);
    d().articles.splice(d().articles.findIndex((a) => a.id === '7003'), 1);
    await sync(false);
    assert.ok(await doc('conversation:1004'), 'search shows no deleted conversations: still stored after an incremental sync');
    const c = await sync(true);
    assert.equal(c.sync_runs[0].deleted, 2);
    assert.equal(await doc('conversation:1004'), undefined);
    assert.equal(await doc('article:7003'), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a revoked access token puts the connector in error with what Intercom said', async () => {
    ic.fake.revoke(ic.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: Intercom answered 401 .*Access Token Invalid.*access token/);
    } finally {
      ic.fake.allow(ic.token);
    }
  });

  it('connects with OAuth: the Intercom authorize URL, the code exchanged for a token the API then accepts', async () => {
    const created = await create({ settings: { include_conversations: false } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://app.intercom.com/oauth');
    assert.equal(u.searchParams.get('client_id'), 'ic-client');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=intercom-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = ic.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    const api = ic.fake.requests.slice(before).filter((r) => r.path !== '/auth/eagle/token');
    assert.ok(api.length > 0 && api.every((r) => r.token?.startsWith('ic-oauth-')), JSON.stringify(api.slice(0, 3)));
    assert.deepEqual(await stored(oauthId), d().articles.filter((a) => a.state === 'published').map((a) => `article:${a.id}`).sort());
  });
});
