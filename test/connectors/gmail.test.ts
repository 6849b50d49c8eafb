import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeGmail, startFakeGmail } from '../fakes/gmail.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

const M1 = 'message:18c1a0000000a001';
const M2 = 'message:18c1a0000000a002';
const M3 = 'message:18c1a0000000a003';
const M4 = 'message:18c1a0000000a004';

describe('gmail connector against the fake Gmail API v1', () => {
  let t: TestApp;
  let gmail: FakeGmail;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    gmail = await startFakeGmail();
    ({ t, worker } = await kindHarness('gmail', gmail.url, { clock, oauthClient: { client_id: 'gmail-client.apps.googleusercontent.com', client_secret: 'gmail-secret', token_url: `${gmail.url}/token` } }));
  });
  after(async () => {
    await t.close();
    await gmail.close();
  });

  const create = async (settings: Record<string, unknown> = {}, credentials: Record<string, unknown> = { access_token: gmail.token }) => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'gmail', display_name: 'Mail', credentials, settings } });
    assert.equal(r.statusCode, 201, r.body);
    await worker.drain();
    return r.json().connector_id as string;
  };
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const calls = (path: string | RegExp) => gmail.fake.requestsTo(path);

  it('a full sync stores every message but drafts, spam and trash, mapped to readable text', async () => {
    id = await create();
    const c0 = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c0.status, 'connected', JSON.stringify(c0));
    gmail.fake.requests.length = 0;
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), [M1, M2, M3, M4]);
    const m1 = await doc(M1);
    assert.ok(m1);
    assert.equal(m1.title, 'Atlas shard layout');
    assert.equal(
      m1.content,
      [
        'From: "Lovelace, Ada" <Ada@Atrium.test>',
        'To: Grace Hopper <grace@atrium.test>, linus@partner.test',
        'Cc: Eng Team: Charles@Atrium.test, dora@atrium.test;',
        'Date: Mon, 03 Feb 2025 09:00:00 +0000',
        '',
        'Hi Grace,',
        '',
        'The Atlas service stores telemetry in columnar shards.',
        '',
        'Ada',
      ].join('\n'),
    );
    assert.equal(m1.url, 'https://mail.google.com/mail/u/0/#all/18c1a0000000a001');
    assert.equal(m1.author, 'ada@atrium.test');
    assert.equal(m1.document_type, 'email');
    assert.equal(new Date(String(m1.created_at)).toISOString(), '2025-02-03T09:00:00.000Z');
    assert.deepEqual(m1.acl, { users: ['ada@atrium.test', 'charles@atrium.test', 'dora@atrium.test', 'grace@atrium.test', 'linus@partner.test'] });
    const meta = m1.metadata as Record<string, unknown>;
    assert.deepEqual(meta.label_ids, ['INBOX', 'Label_7']);
    assert.equal(meta.thread_id, '18c1a0000000a001');

    // HTML-only: through the HTML parser (no tags, no style); the reply shares the thread's url.
    const m2 = await doc(M2);
    assert.match(String(m2?.content), /\n\nSounds good\. Let us compact the shards nightly\.$/);
    assert.doesNotMatch(String(m2?.content).split('\n\n')[1] ?? '', /<|color:red|x/);
    assert.equal(m2?.url, 'https://mail.google.com/mail/u/0/#all/18c1a0000000a001');
    // Encoded-word subject, attachment named but not read.
    const m3 = await doc(M3);
    assert.equal(m3?.title, 'Receipt – February');
    assert.match(String(m3?.content), /Attachments: receipt-feb\.pdf\n\nYour receipt for February is attached\. Total: 42 EUR\./);
    // A Latin-1 body decoded by its charset.
    assert.match(String((await doc(M4))?.content), /Le café ouvre à huit heures\./);

    assert.equal(calls('/gmail/v1/users/me/profile').length, 2, 'validation + the sync');
    const lists = calls('/gmail/v1/users/me/messages');
    assert.deepEqual(
      lists.map((r) => r.query.maxResults),
      ['50'],
    );
    // Spam and trash are not listed; the draft is read and left out.
    assert.equal(calls(/\/messages\/18c1a0000000a00[67]$/).length, 0);
    assert.ok(calls(/\/messages\/18c1a/).every((r) => r.query.format === 'full'));
  });

  it('stored messages are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'columnar shards telemetry', mode: 'lexical' } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, M1);
  });

  it('an incremental sync reads history.list from the profile historyId: new, deleted and trashed messages; a 403 quota is waited out', async () => {
    const from = gmail.currentHistoryId();
    gmail.addMessage({ id: '18c1a0000000b001', threadId: '18c1a0000000a001', from: 'linus@partner.test', to: 'ada@atrium.test', subject: 'Re: Atlas shard layout', text: 'Kernel of the idea: shard by tenant.' });
    gmail.deleteMessage('18c1a0000000a004');
    gmail.addLabels('18c1a0000000a003', ['TRASH']);
    gmail.addLabels('18c1a0000000a002', ['STARRED']);
    gmail.fake.requests.length = 0;
    gmail.quotaNext(1, (req) => req.path === '/gmail/v1/users/me/history');
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.deleted], [1, 2]);
    assert.ok(run.rate_limited_waits >= 1, 'the 403 userRateLimitExceeded was a rate limit');
    assert.deepEqual(await stored(), [M1, M2, 'message:18c1a0000000b001']);
    assert.deepEqual(((await doc(M2))?.metadata as Record<string, unknown> | undefined)?.label_ids, ['INBOX', 'Label_7', 'STARRED', 'UNREAD']);
    assert.match(String((await doc('message:18c1a0000000b001'))?.content), /shard by tenant/);
    // No listing: the history, then the changed messages (not the deleted one).
    assert.equal(calls('/gmail/v1/users/me/messages').length, 0);
    const hist = calls('/gmail/v1/users/me/history').filter((r) => r.status === 200);
    assert.equal(hist.length, 1);
    assert.equal(hist[0]?.query.startHistoryId, from);
    assert.equal(calls(/\/messages\/18c1a0000000a004$/).length, 0);
    // The next incremental starts from the history's historyId: nothing to read.
    gmail.fake.requests.length = 0;
    const again = await sync(false);
    assert.deepEqual([again.sync_runs[0].added, again.sync_runs[0].updated, again.sync_runs[0].deleted], [0, 0, 0]);
    assert.equal(calls(/\/messages/).length, 0);
  });

  it('an expired history id (404) falls back to listing the mailbox', async () => {
    gmail.removeLabels('18c1a0000000a003', ['TRASH']);
    gmail.expireHistory();
    gmail.fake.requests.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.equal(calls('/gmail/v1/users/me/history')[0]?.status, 404);
    assert.equal(calls('/gmail/v1/users/me/messages').length, 1);
    assert.deepEqual(await stored(), [M1, M2, M3, 'message:18c1a0000000b001']);
    // The listing's cursor works: the next incremental reads history again.
    gmail.addMessage({ id: '18c1a0000000b002', from: 'grace@atrium.test', to: 'ada@atrium.test', subject: 'Lunch', text: 'Noodles at noon?' });
    gmail.fake.requests.length = 0;
    await sync(false);
    assert.equal(calls('/gmail/v1/users/me/history')[0]?.status, 200);
    assert.ok((await stored()).includes('message:18c1a0000000b002'));
  });

  it('a vendor 5xx fails the attempt, the job retries from its checkpoint, and nothing stored is lost', async () => {
    const before = await stored();
    gmail.fake.failNext(1, 503, (req) => req.path === '/gmail/v1/users/me/messages/18c1a0000000a002');
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    const jobId = r.json().job_id as string;
    await worker.drain();
    assert.deepEqual(await stored(), before, 'nothing deleted by the failed attempt');
    const job = await t.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM jobs WHERE id = $1', [jobId]);
    assert.deepEqual(job.rows.map((x) => [x.status, Number(x.attempts)]), [['queued', 1]]);
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [jobId]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.deepEqual(await stored(), before);
  });

  it('labels (by name or id): only messages with one of them; label changes bring messages in and take them out', async () => {
    const lid = await create({ labels: ['projects/atlas', 'Label_9'] });
    gmail.fake.requests.length = 0;
    const c = await sync(true, lid);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(lid), [M1, M2, M3]);
    assert.deepEqual(calls('/gmail/v1/users/me/messages').map((r) => r.query.labelIds), ['Label_7', 'Label_9']);
    gmail.addLabels('18c1a0000000b002', ['Label_7']);
    gmail.removeLabels('18c1a0000000a001', ['Label_7']);
    const inc = await sync(false, lid);
    assert.equal(inc.status, 'idle', JSON.stringify(inc));
    assert.deepEqual(await stored(lid), [M2, M3, 'message:18c1a0000000b002']);
    gmail.addLabels('18c1a0000000a001', ['Label_7']);
  });

  it('query: a full sync lists what Gmail search matches; an incremental one asks Gmail whether a changed message still matches', async () => {
    const qid = await create({ query: 'from:grace' });
    const c = await sync(true, qid);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(qid), [M2, 'message:18c1a0000000b002']);
    gmail.addMessage({ id: '18c1a0000000b003', from: 'Grace Hopper <grace@atrium.test>', to: 'ada@atrium.test', subject: 'Compiler notes', text: 'Bugs are moths.' });
    gmail.addMessage({ id: '18c1a0000000b004', from: 'linus@partner.test', to: 'ada@atrium.test', subject: 'Kernel notes', text: 'Not from Grace.' });
    gmail.fake.requests.length = 0;
    await sync(false, qid);
    assert.deepEqual(await stored(qid), [M2, 'message:18c1a0000000b002', 'message:18c1a0000000b003']);
    const checks = calls('/gmail/v1/users/me/messages').map((r) => r.query.q);
    assert.deepEqual(checks, ['(from:grace) rfc822msgid:18c1a0000000b003@mail.atrium.test', '(from:grace) rfc822msgid:18c1a0000000b004@mail.atrium.test']);
  });

  it('a label the mailbox does not have puts the connector in error naming labels', async () => {
    const bad = await create({ labels: ['No such label'] });
    const c = await sync(true, bad);
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /labels: the mailbox has no label 'No such label'/);
  });

  it('unknown settings keys and malformed values are refused with 400 naming the field', async () => {
    const post = (settings: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'gmail', display_name: 'x', credentials: { access_token: gmail.token }, settings } });
    const cases: [Record<string, unknown>, string][] = [
      [{ label_ids: ['INBOX'] }, 'settings'],
      [{ site_url: 'https://mail.example.com' }, 'settings'],
      [{ labels: [] }, 'settings.labels'],
      [{ labels: ['ok', ''] }, 'settings.labels.1'],
      [{ query: '   ' }, 'settings.query'],
    ];
    for (const [settings, path] of cases) {
      const r = await post(settings);
      assert.equal(r.statusCode, 400, r.body);
      const keys = Object.keys(settings);
      assert.ok(
        r.json().error.details.problems.some((p: { path: string; message: string }) => p.path === path && (path !== 'settings' || keys.some((k) => p.message.includes(k)))),
        `${JSON.stringify(settings)} → ${r.body}`,
      );
    }
  });

  it('OAuth: the authorize URL asks Google for gmail.readonly with offline access and consent; the callback connects', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'gmail', display_name: 'Mail (OAuth)', settings: { labels: ['Receipts'] } } });
    assert.equal(created.statusCode, 201, created.body);
    const { connector_id: oid, oauth_url: oauthUrl } = created.json();
    const u = new URL(oauthUrl);
    assert.equal(`${u.origin}${u.pathname}`, 'https://accounts.google.com/o/oauth2/v2/auth');
    assert.equal(u.searchParams.get('scope'), 'https://www.googleapis.com/auth/gmail.readonly');
    assert.equal(u.searchParams.get('access_type'), 'offline');
    assert.equal(u.searchParams.get('prompt'), 'consent');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=google-code` });
    assert.ok(cb.statusCode < 400, cb.body);
    await worker.drain();
    const c = await sync(true, oid);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(oid), [M3]);
    assert.ok(gmail.fake.requests.some((r) => r.token === 'ya29.oauth-1'));
  });

  it('a revoked token puts the connector in error with a sentence naming Google’s answer, keeping what is stored', async () => {
    gmail.fake.revoke(gmail.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error');
      assert.match(c.status_reason, /rejected the credentials: Gmail answered 401 authError \(Invalid Credentials\)/);
      assert.ok((await stored()).length > 0, 'stored documents are kept');
    } finally {
      gmail.fake.allow(gmail.token);
    }
  });
});
