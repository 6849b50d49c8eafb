import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { type FakeFront, seedFront, startFakeFront } from '../fakes/front.ts';
import { type KindHarness, kindHarness } from './support.ts';

describe('front connector against the fake Front Core API', () => {
  let fr: FakeFront;
  let h: KindHarness;
  let id: string;
  before(async () => {
    // Two conversations and two messages a page: a few documents, several pages.
    fr = await startFakeFront(seedFront({ extraConversations: 1 }), { page: 2, messagePage: 2 });
    h = await kindHarness('front', fr.url, {
      clock: fixedClock(new Date()),
      oauthClient: { client_id: 'atrium', client_secret: 'front-secret-0123456789', token_url: `${fr.url}/oauth/token` },
    });
  });
  after(async () => {
    await h.close();
    await fr.close();
  });

  const d = () => fr.data;
  const expectedIds = () => d().conversations.filter((c) => c.status !== 'deleted').map((c) => `conversation:${c.id}`).sort();
  const conv = (cid: string) => {
    const c = d().conversations.find((x) => x.id === cid);
    assert.ok(c, cid);
    return c;
  };

  it('refuses unknown settings keys and an inbox id that is not one (400 naming the field)', async () => {
    const unknown = await h.create({ credentials: { api_token: fr.token }, settings: { channels: ['x'] } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(unknown.json().error.message, /settings.*channels/);
    const bad = await h.create({ credentials: { api_token: fr.token }, settings: { inbox_ids: ['Support'] } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().error.message, /settings\.inbox_ids/);
  });

  it('a full sync lists conversations page by page and reads every message page, comments and inboxes', async () => {
    const created = await h.create({ credentials: { api_token: fr.token } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    await h.worker.drain();
    const connected = await h.get(id);
    assert.equal(connected.status, 'connected', JSON.stringify(connected));
    assert.match(String(connected.status_reason), /Acme Inc \(cmp_acme\)/);
    const c = await h.sync(id, true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await h.stored(id), expectedIds());
    const lists = fr.fake.requestsTo('/conversations');
    assert.ok(lists.length >= 3 && lists.slice(1).every((r) => r.query.page_token), JSON.stringify(lists.map((r) => r.query)));
    const msgs = fr.fake.requestsTo('/conversations/cnv_101/messages');
    assert.equal(msgs.length, 2, 'three messages in pages of two');
    assert.deepEqual([msgs[0]?.query.sort_by, msgs[0]?.query.sort_order], ['created_at', 'asc']);
    assert.equal(await h.doc(id, 'conversation:cnv_103'), undefined, 'a deleted conversation is not stored');
  });

  it('maps a conversation: header, messages and internal comments in order, url, author, dates, inbox ACL and inbox members', async () => {
    const row = await h.doc(id, 'conversation:cnv_101');
    assert.ok(row);
    assert.equal(row.title, 'Cannot log in after password reset');
    assert.equal(row.url, 'https://app.frontapp.com/open/cnv_101');
    assert.equal(row.author, 'carl@customer.test');
    assert.equal(row.document_type, 'conversation');
    const content = String(row.content);
    for (const part of ['Status: assigned', 'Assignee: Grace Agent', 'Tags: login, sso', 'Inboxes: Support', 'Carl Customer — 2026-01-05', 'keeps spinning', '(internal comment)\nCustomer is on the legacy SSO tenant']) {
      assert.ok(content.includes(part), `${part} in ${content}`);
    }
    assert.ok(content.indexOf('keeps spinning') < content.indexOf('clear the browser cookies'), 'messages in order');
    assert.ok(content.indexOf('fixed it') < content.indexOf('legacy SSO tenant'), 'the comment, posted last, comes last');
    const c101 = conv('cnv_101');
    // Front's seconds carry decimals; stored to the second.
    assert.equal(new Date(String(row.created_at)).toISOString().slice(0, 19), new Date(c101.created_at * 1000).toISOString().slice(0, 19));
    assert.deepEqual(row.acl, { groups: ['front:inbox:inb_sup'] });
    const meta = row.metadata as Record<string, unknown>;
    assert.deepEqual([meta.status, meta.comment_count, meta.message_count, meta.inbox_ids], ['assigned', 1, 3, ['inb_sup']]);
    assert.deepEqual((await h.doc(id, 'conversation:cnv_102'))?.acl, { groups: ['front:inbox:inb_bil'] });
    const m = await h.t.db.query<{ group_id: string; member: string }>('SELECT group_id, member FROM identity_memberships WHERE source = $1 ORDER BY 1, 2', [id]);
    assert.deepEqual(
      m.rows.map((r) => `${r.group_id} ${r.member}`),
      ['front:inbox:inb_bil ada@acme.test', 'front:inbox:inb_sup ada@acme.test', 'front:inbox:inb_sup grace@acme.test'],
    );
  });

  it('an incremental sync searches after:<cursor> and reads only what changed; a deleted conversation is removed', async () => {
    const c102 = conv('cnv_102');
    const at = fr.tick();
    c102.messages.push({ id: 'msg_new', created_at: at, from: 'tea_1', text: 'Corrected the VAT rate, a credit note follows.' });
    c102.updated_at = at;
    const c104 = conv('cnv_104');
    c104.status = 'deleted';
    c104.updated_at = fr.tick();
    const before = fr.fake.requests.length;
    const c = await h.sync(id, false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0] as Record<string, number>;
    assert.deepEqual([run.added, run.updated, run.deleted], [0, 1, 1]);
    const calls = fr.fake.requests.slice(before);
    const search = calls.filter((r) => r.path.startsWith('/conversations/search/'));
    assert.ok(search.length >= 1 && /^\/conversations\/search\/after:\d+$/.test(decodeURIComponent(search[0]?.path ?? '')), JSON.stringify(search));
    assert.equal(calls.filter((r) => r.path === '/conversations').length, 0, 'no full listing');
    // The cursor's own second is asked again (the last conversation of the full sync is re-read, unchanged).
    const read = new Set(calls.filter((r) => r.path.endsWith('/messages')).map((r) => r.path));
    assert.ok(read.has('/conversations/cnv_102/messages') && !read.has('/conversations/cnv_101/messages'), JSON.stringify([...read]));
    assert.match(String((await h.doc(id, 'conversation:cnv_102'))?.content), /Ada Admin — .*\(reply\)\nCorrected the VAT rate/);
    assert.equal(await h.doc(id, 'conversation:cnv_104'), undefined);
    assert.deepEqual(await h.stored(id), expectedIds());
  });

  it('a vendor 5xx fails the attempt without losing anything; the retry completes the sync', async () => {
    const before = await h.stored(id);
    fr.fake.failNext(1, 502, (req) => req.path === '/conversations' && req.query.has('page_token'));
    const r = await h.t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: h.t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await h.worker.drain();
    const job = (await h.t.db.query<{ id: string; status: string; last_error: string }>("SELECT id, status, last_error FROM jobs WHERE kind = 'connector.sync' ORDER BY created_at DESC LIMIT 1")).rows[0];
    assert.equal(job?.status, 'queued', 'retried with backoff');
    assert.match(String(job?.last_error), /Front answered HTTP 502/);
    assert.deepEqual(await h.stored(id), before, 'no sweep after a failed page');
    await h.t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job?.id]);
    await h.worker.drain();
    const c = await h.get(id);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.deepEqual(await h.stored(id), expectedIds());
  });

  it('a revoked API token puts the connector in error with what Front said', async () => {
    fr.fake.revoke(fr.token);
    try {
      const c = await h.sync(id, false);
      assert.equal(c.status, 'error', JSON.stringify(c));
      assert.match(String(c.status_reason), /rejected the credentials: Front answered 401 .*Invalid token.*API token/);
    } finally {
      fr.fake.allow(fr.token);
    }
  });

  it('connects with OAuth (app.frontapp.com/oauth/authorize) and syncs with the Bearer token', async () => {
    const created = await h.create({ settings: { inbox_ids: ['inb_bil'], include_comments: false } });
    assert.equal(created.statusCode, 201, created.body);
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://app.frontapp.com/oauth/authorize');
    const cb = await h.t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=front-code` });
    assert.equal(cb.statusCode, 200, cb.body);
    const oauthId = created.json().connector_id;
    const before = fr.fake.requests.length;
    const c = await h.sync(oauthId, true);
    assert.equal(c.sync_runs[0]?.status, 'completed', JSON.stringify(c));
    const calls = fr.fake.requests.slice(before);
    assert.ok(calls.length > 0 && calls.every((r) => r.token?.startsWith('front-oauth-')), JSON.stringify(calls.slice(0, 3)));
    assert.equal(calls.filter((r) => r.path.endsWith('/comments')).length, 0, 'include_comments: false');
    assert.deepEqual(await h.stored(oauthId), ['conversation:cnv_102']);
  });
});
