import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeTrello, startFakeTrello } from '../fakes/trello.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('trello connector against the fake Trello REST API', () => {
  let t: TestApp;
  let ft: FakeTrello;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Two actions a page: the board's action list is read over several pages (before=<oldest id>).
    ft = await startFakeTrello(undefined, { maxActions: 2 });
    ({ t, worker } = await kindHarness('trello', ft.url, { clock, oauthClient: { client_id: 'trello-client', client_secret: 'trello-secret-0123456789', token_url: `${ft.url}/oauth/token` } }));
  });
  after(async () => {
    await t.close();
    await ft.close();
  });

  const d = () => ft.data;
  const board = (name: string) => {
    const b = d().boards.find((x) => x.name === name);
    assert.ok(b, name);
    return b;
  };
  const card = (name: string) => {
    const c = d().cards.find((x) => x.name === name);
    assert.ok(c, name);
    return c;
  };
  const member = (username: string) => d().members.find((m) => m.username === username)?.id ?? '';
  const expectedIds = () => {
    const open = d().boards.filter((b) => !b.closed);
    return [...open.map((b) => `board:${b.id}`), ...d().cards.filter((c) => open.some((b) => b.id === c.idBoard)).map((c) => `card:${c.id}`)].sort();
  };
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'trello', display_name: 'Trello', ...payload } });
  const creds = () => ({ api_key: ft.apiKey, token: ft.token });

  it('is in the catalogue as work management / productivity with OAuth and a key + token', async () => {
    const cat = (await t.app.inject({ method: 'GET', url: '/v1/connectors/catalog', headers: t.admin })).json();
    const e = cat.connectors.find((c: { connector_type: string }) => c.connector_type === 'trello');
    assert.deepEqual([e.category, e.group, e.auth_types], ['work_management', 'productivity', ['oauth2', 'api_key']]);
  });

  it('refuses unknown settings keys, board ids that are not ids and a token without its key (400 naming the field)', async () => {
    const unknown = await create({ credentials: creds(), settings: { lists: ['x'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*lists/);
    const bad = await create({ credentials: creds(), settings: { boards: ['https://trello.com/b/abc'] } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().error.message, /settings\.boards/);
    const noKey = await create({ credentials: { token: ft.token } });
    assert.equal(noKey.statusCode, 400, noKey.body);
    assert.match(noKey.json().error.message, /credentials\.api_key/);
  });

  it('validates with /1/members/me, then a full sync reads open boards, lists, cards and paged actions', async () => {
    const created = await create({ credentials: creds() });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await worker.drain();
    const connected = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(connected.status_reason, /Ada Lovelace \(@ada\)/);
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    assert.ok(!(await stored()).includes(`board:${board('Old board').id}`), 'closed boards left out');
    assert.ok(ft.fake.requestsTo(`/1/boards/${board('Product roadmap').id}/actions`).some((r) => r.query.before), 'actions paged with before');
    assert.ok(ft.fake.requestsTo(/\/cards$/).every((r) => r.query.checklists === 'all' && r.query.fields?.includes('dateLastActivity')));
    assert.ok(
      ft.fake.requests.every((r) => r.token === ft.token && !r.query.key && !r.query.token),
      'key and token in the Authorization: OAuth header, never in the URL',
    );
  });

  it('maps cards: list, labels, members, due, description, checklists and comments as text; creator; board ACL', async () => {
    const sso = card('SAML single sign-on');
    const comment = d().actions.find((a) => a.idCard === sso.id && a.type === 'commentCard');
    const doc1 = await doc(`card:${sso.id}`);
    assert.equal(doc1?.title, 'SAML single sign-on');
    assert.equal(doc1?.document_type, 'card');
    assert.equal(doc1?.author, `trello:${member('grace')}`);
    assert.match(String(doc1?.url), /^https:\/\/trello\.com\/c\/\w{8}\/\d+-saml-single-sign-on$/);
    assert.equal(
      doc1?.content,
      [
        'Board: Product roadmap\nList: In progress\nLabels: Security\nMembers: Ada Lovelace, Grace Hopper\nDue: 2026-03-01 17:00 UTC',
        'Support Okta and Entra ID as identity providers.',
        'Checklist: Rollout\n[x] Metadata upload\n[ ] Just-in-time provisioning',
        `Ada Lovelace — ${comment?.date.slice(0, 16).replace('T', ' ')} UTC\nEntra ID needs the group claim configured first.`,
      ].join('\n\n'),
    );
    assert.equal(new Date(String(doc1?.created_at)).getTime(), Number.parseInt(sso.id.slice(0, 8), 16) * 1000, 'created from the ObjectId');
    assert.equal(new Date(String(doc1?.updated_at)).toISOString(), sso.dateLastActivity);
    const roadmap = board('Product roadmap');
    assert.deepEqual(doc1?.acl, { groups: [`trello:board:${roadmap.id}`, `trello:org:${roadmap.idOrganization}`] });
    const b = await doc(`board:${roadmap.id}`);
    assert.equal(b?.content, 'Board: Product roadmap\nVisibility: org\n\nWhat ships this quarter.\n\nLists:\n- Next up (2 cards)\n- In progress (1 card)');
    assert.equal(b?.document_type, 'board');
    const personal = board('Ada personal');
    assert.deepEqual((await doc(`board:${personal.id}`))?.acl, { groups: [`trello:board:${personal.id}`] });
    assert.match(String((await doc(`card:${card('Dark mode').id}`))?.content), /Labels: purple/, 'an unnamed label shows its colour');
  });

  it('mirrors board memberships and the members it saw (names) into the identity directory', async () => {
    const roadmap = board('Product roadmap');
    const rows = await t.db.query<{ member: string }>('SELECT member FROM identity_memberships WHERE group_id = $1 ORDER BY 1', [`trello:board:${roadmap.id}`]);
    assert.deepEqual(rows.rows.map((r) => r.member).sort(), [`trello:${member('ada')}`, `trello:${member('grace')}`].sort());
    const acct = await t.db.query<{ display_name: string }>('SELECT display_name FROM identity_accounts WHERE account_id = $1', [`trello:${member('grace')}`]);
    assert.equal(acct.rows[0]?.display_name, 'Grace Hopper');
  });

  it('documents are searchable (restricted ones with the audited bypass)', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'Entra group claim', mode: 'lexical', filters: { connector_types: ['trello'] } } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, `card:${card('SAML single sign-on').id}`);
    const plain = await t.app.inject({ method: 'POST', url: '/v1/search', headers: t.admin, payload: { query: 'Entra group claim', mode: 'lexical', filters: { connector_types: ['trello'] } } });
    assert.deepEqual(plain.json().passages, [], 'board-restricted without the bypass');
  });

  it('an incremental sync reads only active boards and cards, re-renders commented cards whole and deletes cards gone from a re-read board', async () => {
    const sso = card('SAML single sign-on');
    ft.comment(sso.id, 'Okta part is done.', member('grace'));
    const added = ft.addCard({ idBoard: sso.idBoard, idList: sso.idList, name: 'Audit log export', desc: 'CSV and JSON.' });
    const billing = d().cards.findIndex((c) => c.name === 'Usage-based billing');
    const [gone] = d().cards.splice(billing, 1);
    const before = ft.fake.requests.length;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual([c.sync_runs[0].added, c.sync_runs[0].updated, c.sync_runs[0].deleted], [1, 2, 1], 'the board document counts as updated');
    const calls = ft.fake.requests.slice(before);
    assert.equal(calls.filter((r) => r.path === `/1/boards/${board('Ada personal').id}/cards`).length, 0, 'a quiet board is not re-read');
    assert.deepEqual(calls.filter((r) => /^\/1\/cards\/\w+\/actions$/.test(r.path)).map((r) => r.path).sort(), [`/1/cards/${added.id}/actions`, `/1/cards/${sso.id}/actions`].sort());
    const text = String((await doc(`card:${sso.id}`))?.content);
    assert.match(text, /Entra ID needs the group claim configured first\.[\s\S]*Okta part is done\./, 'earlier comments kept');
    assert.equal((await doc(`card:${sso.id}`))?.author, `trello:${member('grace')}`, 'creator found again');
    assert.equal((await doc(`card:${added.id}`))?.author, `trello:${member('ada')}`);
    assert.equal(await doc(`card:${gone?.id}`), undefined);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry completes the full sync', async () => {
    const before = await stored();
    ft.fake.failNext(1, 500, (req) => /\/cards$/.test(req.path));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    const job = (await t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Trello answered HTTP 500/);
    assert.deepEqual(await stored(), before, 'no sweep after a failed page');
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a revoked token puts the connector in error with what Trello said', async () => {
    ft.fake.revoke(ft.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(c.status_reason, /rejected the credentials: Trello answered 401 \(invalid token\).*user token/);
    } finally {
      ft.fake.allow(ft.token);
    }
  });

  it('OAuth: the authorize URL is Trello’s; with an OAuth 2.0 token endpoint configured the code exchange completes and calls carry the bearer token', async () => {
    const created = await create({ settings: { boards: [board('Ada personal').id] } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://trello.com/1/authorize');
    assert.deepEqual([u.searchParams.get('scope'), u.searchParams.get('expiration'), u.searchParams.get('name')], ['read', 'never', 'Atrium']);
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=trello-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = ft.fake.requests.length;
    const c = await sync(true, oauthId);
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c));
    assert.ok(ft.fake.requests.slice(before).every((r) => r.token?.startsWith('trello-oauth-')));
    const personal = board('Ada personal');
    assert.deepEqual(await stored(oauthId), [`board:${personal.id}`, ...d().cards.filter((x) => x.idBoard === personal.id).map((x) => `card:${x.id}`)].sort());
  });
});
