import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeMonday, startFakeMonday } from '../fakes/monday.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('monday connector against the fake monday.com GraphQL API', () => {
  let t: TestApp;
  let m: FakeMonday;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Two items a page: boards are read with items_page, then next_items_page.
    m = await startFakeMonday(undefined, { itemsPerPage: 2 });
    ({ t, worker } = await kindHarness('monday', m.url, { clock, oauthClient: { client_id: 'monday-client', client_secret: 'monday-secret-0123456789', token_url: `${m.url}/oauth2/token` } }));
  });
  after(async () => {
    await t.close();
    await m.close();
  });

  const d = () => m.data;
  const boards = () => d().boards.filter((b) => (b.type ?? 'board') === 'board');
  const expectedIds = () =>
    [...boards().map((b) => `board:${b.id}`), ...d().items.filter((i) => boards().some((b) => b.id === i.boardId)).flatMap((i) => [`item:${i.id}`, ...i.updates.map((u) => `update:${i.id}:${u.id}`)])].sort();
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'monday', display_name: 'Monday', ...payload } });
  const item = (itemId: string) => {
    const i = d().items.find((x) => x.id === itemId);
    assert.ok(i, itemId);
    return i;
  };

  it('refuses unknown settings keys, non-numeric board ids and a token too short to be one (400 naming the field)', async () => {
    const unknown = await create({ credentials: { api_token: m.token }, settings: { boards: ['1001'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*boards/);
    const bad = await create({ credentials: { api_token: m.token }, settings: { board_ids: ['roadmap'] } });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error.message, /settings\.board_ids/);
    const short = await create({ credentials: { api_token: 'abc' } });
    assert.equal(short.statusCode, 400);
    assert.match(short.json().error.message, /credentials\.api_token/);
  });

  it('validates with me { account }, then a full sync pages boards and items (items_page, next_items_page) with the API-Version header', async () => {
    const created = await create({ credentials: { api_token: m.token } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /ada@acme\.test on Acme/);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    assert.ok(m.calls.some((x) => x.query.includes('next_items_page')), 'later pages with next_items_page');
    assert.ok(m.calls.every((x) => x.apiVersion === '2025-04'));
    assert.ok(m.fake.requests.every((r) => r.token === m.token), 'the token in Authorization');
    assert.equal(await doc('board:1003'), undefined, 'subitem boards are not synced as boards');
  });

  it('maps boards, items and updates: column values as text, links, authors, dates, board ACLs', async () => {
    const sso = await doc('item:2001');
    assert.equal(sso?.title, 'SSO for enterprise plans');
    assert.equal(sso?.document_type, 'item');
    assert.equal(sso?.content, 'Board: Roadmap / Q1\n\nStatus: Working on it\nOwner: Grace Hopper\nDue date: 2026-03-31\nNotes: SAML first, then OIDC.');
    assert.equal(sso?.url, 'https://acme.monday.com/boards/1001/pulses/2001');
    assert.equal(sso?.author, 'ada@acme.test');
    assert.equal(new Date(String(sso?.updated_at)).toISOString(), item('2001').updated_at);
    assert.deepEqual(sso?.acl, { public: true }, 'a public board: everyone in the account');
    const upd = await doc('update:2001:3001');
    assert.equal(upd?.title, 'Update on SSO for enterprise plans');
    assert.equal(upd?.content, 'Security review booked for February.\n\nReplies:\nAda Lovelace: Thanks, I will prepare the threat model.');
    assert.equal(upd?.url, 'https://acme.monday.com/boards/1001/pulses/2001/posts/3001');
    assert.equal(upd?.author, 'grace@acme.test');
    const board = await doc('board:1001');
    assert.equal(board?.content, 'Product roadmap for 2026.\n\nWorkspace: Product\nKind: public');
    assert.equal(board?.url, 'https://acme.monday.com/boards/1001');
    assert.deepEqual((await doc('item:2004'))?.acl, { groups: ['monday:board:1002'] }, 'a private board: its members');
    const members = await t.db.query<{ group_id: string; member: string }>('SELECT group_id, member FROM identity_memberships WHERE source = $1 ORDER BY 1, 2', [id]);
    assert.deepEqual(members.rows.map((r) => `${r.group_id}=${r.member}`), ['monday:board:1002=grace@acme.test']);
  });

  it('documents are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'threat model security review', mode: 'lexical', filters: { connector_types: ['monday'] } } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, 'update:2001:3001');
  });

  it('an incremental sync filters on __last_updated__ from the day before the cursor and applies edits, new and deleted updates, a removed board', async () => {
    const cursor = (await t.db.query<{ sync_cursor: { since: string } }>('SELECT sync_cursor FROM connectors WHERE id = $1', [id])).rows[0]?.sync_cursor;
    assert.ok(cursor?.since);
    const sso = item('2001');
    sso.name = 'SSO and SCIM for enterprise plans';
    sso.updated_at = m.tick();
    sso.updates = sso.updates.filter((u) => u.id !== '3002');
    sso.updates.unshift({ id: '3004', text: 'SCIM scoped for Q2.', creator: d().me, created_at: sso.updated_at, replies: [] });
    d().boards.splice(d().boards.findIndex((b) => b.id === '1002'), 1);
    m.calls.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    // Added: update 3004; updated: item 2001 and its update 3001 (titled by the item's new name); deleted: update 3002,
    // board 1002 with its item 2004 and update 3003. Items of the same day that did not change are not rewritten.
    assert.deepEqual([run.added, run.updated, run.deleted], [1, 2, 4]);
    assert.equal((await doc('update:2001:3001'))?.title, 'Update on SSO and SCIM for enterprise plans');
    const day = new Date(Date.parse(cursor.since) - 86_400_000).toISOString().slice(0, 10);
    const first = m.calls.filter((x) => x.query.includes('items_page(limit'));
    assert.ok(first.length > 0);
    for (const x of first) {
      assert.deepEqual(x.variables.qp, { rules: [{ column_id: '__last_updated__', compare_value: ['EXACT', day], operator: 'greater_than', compare_attribute: 'UPDATED_AT' }] });
    }
    assert.equal((await doc('item:2001'))?.title, 'SSO and SCIM for enterprise plans');
    assert.equal((await doc('update:2001:3004'))?.content, 'SCIM scoped for Q2.');
    assert.equal(await doc('update:2001:3002'), undefined);
    assert.equal(await doc('item:2004'), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry completes the full sync', async () => {
    const before = await stored();
    m.fake.failNext(1, 502, (req) => typeof (req.body as { query?: string } | undefined)?.query === 'string' && String((req.body as { query: string }).query).includes('next_items_page'));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /monday\.com answered HTTP 502/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a full sync removes a deleted item (items_page lists no deletions)', async () => {
    d().items.splice(d().items.findIndex((x) => x.id === '2003'), 1);
    await sync(false);
    assert.ok(await doc('item:2003'), 'still stored after an incremental sync');
    const c = await sync(true);
    assert.equal(c.sync_runs[0].deleted, 1);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('the complexity budget error is waited out for retry_in_seconds, as HTTP 429 or inside an HTTP 200 answer', async () => {
    for (const style of ['http', 'graphql'] as const) {
      m.rateLimitNext(1, 1, style);
      const c = await sync(false);
      assert.equal(c.sync_runs[0].status, 'completed', `${style}: ${JSON.stringify(c.sync_runs[0])}`);
      assert.ok(c.sync_runs[0].rate_limited_waits >= 1, style);
    }
  });

  it('a revoked token puts the connector in error with what monday.com said', async () => {
    m.fake.revoke(m.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: monday\.com answered 401 \(Not Authenticated, UNAUTHENTICATED\): check the personal API token/);
    } finally {
      m.fake.allow(m.token);
    }
  });

  it('connects with OAuth: monday authorize URL and scopes, the OAuth token in Authorization, a board filter', async () => {
    const created = await create({ settings: { board_ids: ['1001'], include_updates: false } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://auth.monday.com/oauth2/authorize');
    assert.equal(u.searchParams.get('scope'), 'me:read boards:read updates:read users:read workspaces:read account:read');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=monday-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = m.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    assert.ok(m.fake.requests.slice(before).every((r) => r.token?.startsWith('monday-oauth-')));
    assert.deepEqual(await stored(oauthId), ['board:1001', ...d().items.filter((i) => i.boardId === '1001').map((i) => `item:${i.id}`)].sort());
  });
});
