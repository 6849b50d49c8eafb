import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeOutlook, PEOPLE, startFakeOutlook } from '../fakes/outlook.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('outlook connector against the fake Microsoft Graph', () => {
  let t: TestApp;
  let graph: FakeOutlook;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    // Delta pages of 2 messages: nextLink paging is exercised in every folder with more than two.
    graph = await startFakeOutlook({ pageSize: 2 });
    ({ t, worker } = await kindHarness('outlook', `${graph.url}/v1.0`, { clock, oauthClient: { client_id: 'outlook-client', client_secret: 'outlook-client-secret', token_url: `${graph.url}/organizations/oauth2/v2.0/token` } }));
  });
  after(async () => {
    await t.close();
    await graph.close();
  });

  const excluded = () => new Set([graph.folder('deleteditems').id, graph.folder('junkemail').id]);
  const expectedIds = () =>
    graph.messages
      .filter((m) => !excluded().has(m.folderId))
      .map((m) => `message:${m.folderId}:${m.id}`)
      .sort();
  const storedOf = async (cid: string) => storedIds(t.db, cid);
  const stored = () => storedOf(id);
  const doc = async (externalId: string) => storedDocument(t.db, id, externalId);
  const sync = (full: boolean) => syncConnector(t, worker, id, full);
  const bySubject = (s: string) => {
    const m = graph.messages.find((x) => x.subject === s);
    assert.ok(m, s);
    return m;
  };
  const extId = (m: { folderId: string; id: string }) => `message:${m.folderId}:${m.id}`;
  const folderOf = async (externalId: string) => ((await doc(externalId))?.metadata as Record<string, unknown> | undefined)?.folder;

  it('connects through the Microsoft identity platform (authorization code) with Mail.Read and names the mailbox', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'outlook', display_name: 'Mail' } });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().connector_id;
    const u = new URL(created.json().oauth_url);
    assert.equal(`${u.origin}${u.pathname}`, 'https://login.microsoftonline.com/organizations/oauth2/v2.0/authorize');
    assert.equal(u.searchParams.get('scope'), 'Mail.Read offline_access User.Read');
    const done = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=ms-auth-code` });
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(done.json(), { status: 'connected', connector_id: id, created: false });
  });

  it('a full sync reads every folder (child folders too, not Deleted Items or Junk Email) by delta, as readable emails', async () => {
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), expectedIds());
    assert.equal(c.sync_runs[0].added, expectedIds().length);
    const deltas = graph.requestsTo(/\/messages\/delta$/);
    assert.ok(deltas.some((r) => r.query.$skiptoken), 'paged with @odata.nextLink');
    const first = deltas.filter((r) => !r.query.$skiptoken && !r.query.$deltatoken);
    assert.ok(first.length >= 5 && first.every((r) => r.query.$select === 'subject,body,from,toRecipients,ccRecipients,receivedDateTime,lastModifiedDateTime,webLink,conversationId'));
    assert.ok(graph.prefers.every((p) => p.includes('outlook.body-content-type="text"') && p.includes('odata.maxpagesize=50')), graph.prefers.join(' | '));
    assert.equal(graph.requestsTo(`/v1.0/me/mailFolders/${encodeURIComponent(graph.folder('junkemail').id)}/messages/delta`).length, 0);

    const q3 = bySubject('Q3 planning: budget review');
    const row = await doc(extId(q3));
    assert.ok(row);
    assert.equal(row.title, 'Q3 planning: budget review');
    assert.equal(
      row.content,
      `From: Adele Vance <AdeleV@contoso.com>\nTo: Megan Bowen <MeganB@contoso.com>\nCc: Alex Wilber <alexw@contoso.com>\nDate: ${q3.received}\n\nHi Megan,\n\nThe Q3 budget review moved to Thursday. Please bring the campaign spend forecast.\n\nAdele`,
    );
    assert.equal(row.url, `https://outlook.office365.com/owa/?ItemID=${encodeURIComponent(q3.id)}&exvsurl=1&viewmodel=ReadMessageItem`);
    assert.equal(row.author, 'adelev@contoso.com');
    assert.equal(row.document_type, 'email');
    assert.equal(new Date(String(row.created_at)).toISOString(), new Date(q3.received).toISOString());
    assert.deepEqual(row.acl, { users: ['meganb@contoso.com', 'adelev@contoso.com', 'alexw@contoso.com'] });
    const meta = row.metadata as Record<string, unknown>;
    assert.equal(meta.folder, 'Inbox');
    assert.equal(meta.conversation_id, q3.conversationId);
    assert.equal(await folderOf(extId(bySubject('Apollo launch checklist'))), 'Inbox/Projects/Apollo');
  });

  it('emails are searchable', async () => {
    const found = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'invoice INV-2291 due', mode: 'lexical' } });
    assert.equal(found.statusCode, 200, found.body);
    assert.equal(found.json().passages[0]?.external_id, extId(bySubject('Invoice INV-2291 is due')));
  });

  it('an incremental sync follows each folder deltaLink: new, edited, deleted and moved messages', async () => {
    const fresh = graph.mail('inbox', PEOPLE.diego, [PEOPLE.megan], 'Venue booked', '<p>Porto it is.</p>', 'Porto it is.');
    const edited = bySubject('Offsite venue shortlist');
    edited.subject = 'Offsite venue shortlist (final)';
    graph.touch(edited);
    const invoice = bySubject('Invoice INV-2291 is due');
    const invoiceId = extId(invoice);
    graph.remove(invoice);
    const kickoff = bySubject('Project kickoff notes');
    const kickoffBefore = extId(kickoff);
    graph.move(kickoff, 'archive');
    graph.requests.length = 0;

    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [2, 1, 2]);
    assert.ok(graph.requests.some((r) => r.path.endsWith('/messages/delta') && r.query.$deltatoken));
    assert.equal(graph.requests.filter((r) => r.path.endsWith('/messages/delta') && r.query.$select).length, 0, 'no new rounds');
    assert.equal((await doc(extId(edited)))?.title, 'Offsite venue shortlist (final)');
    assert.ok(await doc(extId(fresh)));
    assert.equal(await doc(invoiceId), undefined);
    assert.equal(await doc(kickoffBefore), undefined);
    assert.equal(await folderOf(extId(kickoff)), 'Archive');
    assert.deepEqual(await stored(), expectedIds());
  });

  it('an expired delta state (410 SyncStateNotFound) restarts that folder', async () => {
    graph.expireDeltaTokens();
    const late = graph.mail('inbox', PEOPLE.adele, [PEOPLE.megan], 'Written while the sync state was lost', '<p>Hello</p>', 'Hello');
    graph.requests.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.ok(graph.requests.some((r) => r.status === 410));
    assert.ok(graph.requests.some((r) => r.path.endsWith('/messages/delta') && r.query.$select));
    assert.ok(await doc(extId(late)));
    assert.deepEqual(await stored(), expectedIds());
    graph.requests.length = 0;
    await sync(false);
    assert.equal(graph.requests.filter((r) => r.status === 410).length, 0, 'the new rounds left working deltaLinks');
  });

  it('a folder deleted at the source takes its messages along on the next incremental sync', async () => {
    const archive = graph.folder('archive');
    const gone = (await stored()).filter((e) => e.startsWith(`message:${archive.id}:`));
    assert.ok(gone.length >= 2);
    for (const m of graph.inFolder(archive.id)) graph.messages.splice(graph.messages.indexOf(m), 1);
    graph.folders.splice(graph.folders.indexOf(archive), 1);
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.equal(c.sync_runs[0].deleted, gone.length);
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a Graph 5xx is retried by the job and loses nothing already stored', async () => {
    const before = await stored();
    graph.failNext(1, 500, (r) => r.path.endsWith('/messages/delta'));
    const r = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=false`, headers: t.admin });
    assert.equal(r.statusCode, 202, r.body);
    await worker.drain();
    assert.deepEqual(await stored(), before);
    const job = await t.db.query<{ id: string; last_error: string }>("SELECT id, last_error FROM jobs WHERE kind = 'connector.sync' AND payload->>'connectorId' = $1 AND status = 'queued'", [id]);
    assert.equal(job.rows.length, 1, 'queued for a retry');
    assert.match(String(job.rows[0]?.last_error), /Microsoft Graph answered HTTP 500/);
    await t.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job.rows[0]?.id]);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.status, 'idle');
    assert.equal(c.sync_runs[0].status, 'completed');
    assert.deepEqual(await stored(), expectedIds());
  });

  it('a throttling 503 with Retry-After is waited out like a 429', async () => {
    graph.failNext(1, 503, (r) => r.path.endsWith('/messages/delta'));
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.ok(c.sync_runs[0].rate_limited_waits >= 1);
  });

  it('settings: unknown keys and a non-https graph_url are refused naming the field; folders narrow the sync; an unknown folder is a settings error', async () => {
    const create = (settings: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'outlook', display_name: 'x', credentials: { access_token: graph.token }, settings } });
    const unknown = await create({ folder: ['inbox'] });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().error.message, /settings: Unrecognized key: "folder"/);
    const badUrl = await create({ graph_url: 'http://graph.example.com' });
    assert.equal(badUrl.statusCode, 400);
    assert.equal(badUrl.json().error.details.problems[0].path, 'settings.graph_url');

    const inbox = graph.folder('inbox');
    const inboxIds = () => graph.inFolder('inbox').map((m) => `message:${inbox.id}:${m.id}`).sort();
    const only = await create({ folders: ['Inbox'], include_child_folders: false });
    assert.equal(only.statusCode, 201, only.body);
    await worker.drain();
    const s = await syncConnector(t, worker, only.json().connector_id, true);
    assert.equal(s.status, 'idle', JSON.stringify(s));
    assert.deepEqual(await storedOf(only.json().connector_id), inboxIds());

    // A lookback window: only mail received in the last day (the seed is twenty days old).
    graph.requests.length = 0;
    const recent = await create({ folders: ['inbox'], include_child_folders: false, lookback_days: 1 });
    await worker.drain();
    await syncConnector(t, worker, recent.json().connector_id, true);
    const since = Date.parse(new Date(clock.now().getTime() - 86_400_000).toISOString());
    assert.deepEqual(await storedOf(recent.json().connector_id), graph.inFolder('inbox').filter((m) => Date.parse(m.received) >= since).map((m) => `message:${inbox.id}:${m.id}`).sort());
    assert.ok(graph.requests.some((r) => r.query.$filter?.startsWith('receivedDateTime ge ')));

    const wrong = await create({ folders: ['inbox', 'nosuchfolder'] });
    await worker.drain();
    const w = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${wrong.json().connector_id}`, headers: t.admin })).json();
    assert.equal(w.status, 'error');
    assert.match(w.status_reason, /folders: the mailbox has no folder 'nosuchfolder'/);
  });

  it('a revoked token puts the connector in error with what Graph said', async () => {
    graph.revoke(`${graph.token}.1`);
    const c = await sync(false);
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /the vendor rejected the credentials: Microsoft Graph answered 401 .*InvalidAuthenticationToken.*reconnect with OAuth/);
    assert.ok(await doc(extId(bySubject('Q3 planning: budget review'))), 'stored documents are kept');
  });
});
