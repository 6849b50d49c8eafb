import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { type FakeHelpscout, seedHelpscout, startFakeHelpscout } from '../fakes/helpscout.ts';
import { type KindHarness, kindHarness } from './support.ts';

describe('helpscout connector against the fake Help Scout Mailbox API 2.0 and Docs API v1', () => {
  let hs: FakeHelpscout;
  let h: KindHarness;
  let id: string;
  before(async () => {
    // Two conversations and one article a page: a few documents, several pages.
    hs = await startFakeHelpscout(seedHelpscout({ extraConversations: 1 }), { page: 2, articlePage: 1 });
    h = await kindHarness('helpscout', hs.url, {
      clock: fixedClock(new Date()),
      oauthClient: { client_id: 'atrium', client_secret: 'hs-oauth-secret-0123456789', token_url: `${hs.url}/v2/oauth2/token` },
    });
  });
  after(async () => {
    await h.close();
    await hs.close();
  });

  const d = () => hs.data;
  const creds = () => ({ client_id: hs.clientId, client_secret: hs.clientSecret, docs_api_key: hs.docsKey });
  const expectedIds = () =>
    [
      ...d().conversations.filter((c) => c.status !== 'spam' && c.state === 'published').map((c) => `conversation:${c.id}`),
      ...d().articles.filter((a) => a.status === 'published').map((a) => `article:${a.id}`),
    ].sort();
  const conv = (cid: number) => {
    const c = d().conversations.find((x) => x.id === cid);
    assert.ok(c, String(cid));
    return c;
  };

  it('refuses unknown settings keys, mailbox ids that are not numbers, and an App ID without its secret (400 naming the field)', async () => {
    const unknown = await h.create({ credentials: creds(), settings: { folders: [1] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*folders/);
    const bad = await h.create({ credentials: creds(), settings: { mailbox_ids: ['Support'] } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().error.message, /settings\.mailbox_ids/);
    const lonely = await h.create({ credentials: { client_id: hs.clientId } });
    assert.equal(lonely.statusCode, 400, lonely.body);
    assert.match(lonely.json().error.message, /credentials\.client_secret/);
  });

  it('a full sync asks a client-credentials token once, pages conversations (status=all, embed=threads) and reads Docs', async () => {
    const created = await h.create({ credentials: creds() });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await h.worker.drain();
    const connected = await h.get(id);
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(String(connected.status_reason), /ada@acme\.test \+ Docs/i);
    const tokensBefore = hs.fake.requestsTo('/v2/oauth2/token').length;
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await h.stored(id), expectedIds());
    assert.equal(hs.fake.requestsTo('/v2/oauth2/token').length, tokensBefore, 'the validation token is reused');
    const list = hs.fake.requestsTo('/v2/conversations');
    assert.ok(list.length >= 3, JSON.stringify(list.map((r) => r.query)));
    assert.deepEqual({ ...list[0]?.query }, { status: 'all', embed: 'threads', sortField: 'modifiedAt', sortOrder: 'asc', page: '1' });
    assert.ok(list.every((r) => !r.query.modifiedSince));
    const docs = hs.fake.requestsTo('/v1/collections/col_public/articles');
    assert.ok(docs.length >= 1 && docs.every((r) => r.query.status === 'published'), JSON.stringify(docs));
  });

  it('maps a conversation: header, threads in order with the note marked and line items left out, url, author, dates, mailbox ACL and members', async () => {
    const row = await h.doc(id, 'conversation:1101');
    assert.ok(row);
    assert.equal(row.title, '#101 Cannot log in after password reset');
    assert.equal(row.url, 'https://secure.helpscout.net/conversation/1101/101');
    assert.equal(row.author, 'carl@customer.test');
    assert.equal(row.document_type, 'conversation');
    const content = String(row.content);
    for (const part of ['Status: closed', 'Mailbox: Support', 'Assignee: Grace Agent', 'Customer: Carl Customer', 'Tags: login, sso', 'Carl Customer — 2026-01-05', 'Grace Agent — 2026-01-05 09:04 UTC (internal note)\nCustomer is on the legacy SSO tenant']) {
      assert.ok(content.includes(part), `${part} in ${content}`);
    }
    assert.ok(content.indexOf('keeps spinning') < content.indexOf('clear the browser cookies') && content.indexOf('legacy SSO') < content.indexOf('fixed it'), 'threads oldest first');
    assert.ok(!content.includes('marked as Closed'), 'line items are not text');
    assert.equal(new Date(String(row.created_at)).toISOString(), '2026-01-05T09:01:00.000Z');
    assert.deepEqual(row.acl, { groups: ['helpscout:mailbox:501'] });
    const meta = row.metadata as Record<string, unknown>;
    assert.deepEqual([meta.status, meta.note_count, meta.thread_count, meta.mailbox_id], ['closed', 1, 4, 501]);
    assert.equal(await h.doc(id, 'conversation:1103'), undefined, 'spam is not stored');
    const m = await h.t.db.query<{ group_id: string; member: string }>('SELECT group_id, member FROM identity_memberships WHERE source = $1 ORDER BY 1, 2', [id]);
    assert.deepEqual(m.rows.map((r) => `${r.group_id} ${r.member}`), ['helpscout:mailbox:501 ada@acme.test', 'helpscout:mailbox:501 grace@acme.test', 'helpscout:mailbox:502 ada@acme.test']);
  });

  it('maps Docs articles: HTML as text, public url, public or users-only ACL by collection; unpublished are not synced', async () => {
    const a = await h.doc(id, 'article:art1');
    assert.equal(a?.title, 'How to reset your password');
    assert.match(String(a?.content), /Open Settings and choose Reset password\./);
    assert.equal(a?.url, 'https://acme.helpscoutdocs.com/article/101');
    assert.deepEqual(a?.acl, { public: true });
    assert.deepEqual((await h.doc(id, 'article:art2'))?.acl, { groups: ['helpscout:users'] });
    assert.equal(await h.doc(id, 'article:art3'), undefined);
  });

  it('an incremental sync asks modifiedSince (ISO, to the second) and articles newest first: edits, spam, a new article', async () => {
    const c1102 = conv(1102);
    const at = hs.tick();
    c1102.threads.push({ id: 99_001, type: 'reply', by: 11, body: '<p>Corrected the VAT rate, a credit note follows.</p>', createdAt: at });
    c1102.userUpdatedAt = at;
    const c1104 = conv(1104);
    c1104.status = 'spam';
    c1104.userUpdatedAt = hs.tick();
    const art = d().articles.find((a) => a.id === 'art1');
    assert.ok(art);
    art.name = 'Reset your password (updated)';
    art.updatedAt = hs.tick();
    const before = hs.fake.requests.length;
    const c = await h.sync(id, false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0] as Record<string, number>;
    assert.deepEqual([run.added, run.deleted], [0, 1]);
    const calls = hs.fake.requests.slice(before);
    const since = calls.find((r) => r.path === '/v2/conversations')?.query.modifiedSince;
    assert.match(String(since), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.deepEqual(calls.filter((r) => r.path.startsWith('/v1/articles/')).map((r) => r.path), ['/v1/articles/art1'], 'only the article updated since the cursor');
    assert.match(String((await h.doc(id, 'conversation:1102'))?.content), /Ada Admin — .*\nCorrected the VAT rate/);
    assert.equal(await h.doc(id, 'conversation:1104'), undefined);
    assert.equal((await h.doc(id, 'article:art1'))?.title, 'Reset your password (updated)');
    assert.deepEqual(await h.stored(id), expectedIds());
  });

  it('an app token Help Scout refuses is renewed once with the client credentials', async () => {
    for (const token of hs.issued) hs.fake.revoke(token);
    const issued = hs.issued.length;
    const c = await h.sync(id, false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.equal(hs.issued.length, issued + 1);
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry completes the sync', async () => {
    const before = await h.stored(id);
    hs.fake.failNext(1, 503, (req) => req.path === '/v2/conversations' && req.query.get('page') === '2');
    const r = await h.t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: h.t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await h.worker.drain();
    const job = (await h.t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Help Scout answered HTTP 503/);
    assert.deepEqual(await h.stored(id), before, 'no sweep after a failed page');
    await h.t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await h.worker.drain();
    assert.equal((await h.get(id)).sync_runs[0]?.status, 'completed');
    assert.deepEqual(await h.stored(id), expectedIds());
  });

  it('a revoked Docs API key puts the connector in error naming the key', async () => {
    hs.fake.revoke(hs.docsKey);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /rejected the credentials: Help Scout Docs answered 401 .*docs_api_key/);
    } finally {
      hs.fake.allow(hs.docsKey);
    }
  });

  it('connects with OAuth (authorizeClientApplication) and syncs conversations with the Bearer token', async () => {
    const created = await h.create({ settings: { mailbox_ids: [502], include_articles: false } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://secure.helpscout.net/authentication/authorizeClientApplication');
    const cb = await h.t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=helpscout-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = hs.fake.requests.length;
    const c = await h.sync(oauthId, true);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c));
    const calls = hs.fake.requests.slice(before);
    assert.ok(calls.length > 0 && calls.every((r) => r.path.startsWith('/v2/') && r.path !== '/v2/oauth2/token'), JSON.stringify(calls.slice(0, 3)));
    assert.equal(calls.find((r) => r.path === '/v2/conversations')?.query.mailbox, '502');
    assert.deepEqual(await h.stored(oauthId), ['conversation:1102']);
  });
});
