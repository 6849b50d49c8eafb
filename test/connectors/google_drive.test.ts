import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { DOC, type FakeDrive, FOLDER, startFakeDrive } from '../fakes/google-drive.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('google_drive connector against the fake Drive v3 API', () => {
  let t: TestApp;
  let drive: FakeDrive;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    drive = await startFakeDrive();
    // Google's authorize URL as the kind declares it; the token endpoint is the fake's.
    ({ t, worker } = await kindHarness('google_drive', drive.url, { clock, oauthClient: { client_id: 'drive-client.apps.googleusercontent.com', client_secret: 'drive-secret', token_url: `${drive.url}/token` } }));
  });
  after(async () => {
    await t.close();
    await drive.close();
  });

  const create = async (settings: Record<string, unknown> = {}, credentials: Record<string, unknown> = { access_token: drive.token }) => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'google_drive', display_name: 'Drive', credentials, settings } });
    assert.equal(r.statusCode, 201, r.body);
    await worker.drain();
    return r.json().connector_id as string;
  };
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const calls = (path: string | RegExp) => drive.fake.requestsTo(path);

  it('a full sync stores Docs, Sheets, Slides, PDF, DOCX and text from My Drive and both shared drives, mapped', async () => {
    id = await create();
    drive.fake.requests.length = 0;
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), [
      'file:doc-atlas',
      'file:doc-contract',
      'file:doc-runbook',
      'file:docx-brand',
      'file:md-notes',
      'file:pdf-onboarding',
      'file:sheet-budget',
      'file:slides-review',
      'file:txt-oncall',
    ]);
    const atlas = await doc('file:doc-atlas');
    assert.ok(atlas);
    assert.equal(atlas.title, 'Atlas design');
    assert.equal(atlas.content, 'Atlas design\n\nThe Atlas service stores telemetry in columnar shards.');
    assert.equal(atlas.url, 'https://docs.google.com/document/d/doc-atlas/edit?usp=drivesdk');
    assert.equal(atlas.author, 'ada@atrium.test');
    assert.equal(atlas.document_type, 'document');
    const f = drive.data.files.find((x) => x.id === 'doc-atlas');
    assert.equal(new Date(String(atlas.created_at)).toISOString(), f?.createdTime);
    assert.equal(new Date(String(atlas.updated_at)).toISOString(), f?.modifiedTime);
    assert.deepEqual(atlas.acl, { domain: ['atrium.test'], users: ['ada@atrium.test'], groups: ['google_drive:eng@atrium.test'] });
    const meta = atlas.metadata as Record<string, unknown>;
    assert.equal(meta.mime_type, DOC);
    assert.deepEqual(meta.parents, ['fld-atlas']);
    assert.equal(meta.drive_id, null);

    const sheet = await doc('file:sheet-budget');
    assert.equal(sheet?.document_type, 'spreadsheet');
    assert.equal(sheet?.content, 'Quarter,Amount\nQ1,1200\nQ2,1350');
    assert.deepEqual(sheet?.acl, { public: true, users: ['ada@atrium.test'] });
    assert.equal((await doc('file:slides-review'))?.document_type, 'presentation');
    const pdf = await doc('file:pdf-onboarding');
    assert.equal(pdf?.document_type, 'pdf');
    assert.match(String(pdf?.content), /Badges are issued on day one\./);
    const docx = await doc('file:docx-brand');
    assert.equal(docx?.document_type, 'document');
    assert.match(String(docx?.content), /teal logo on dark backgrounds/);
    assert.deepEqual(docx?.acl, { groups: ['google_drive:0ADrvMarketing'] });
    assert.equal((docx?.metadata as Record<string, unknown> | undefined)?.drive_id, '0ADrvMarketing');
    assert.equal((await doc('file:md-notes'))?.content, '# Notes\n\nKickoff moved to Thursday.');
    // Shared with Ada by an outsider: Drive hides its permissions, so the readers known for sure are kept.
    const contract = await doc('file:doc-contract');
    assert.equal(contract?.author, 'bob@partner.test');
    assert.deepEqual(contract?.acl, { users: ['ada@atrium.test', 'bob@partner.test'] });

    // Shared drives listed one by one (corpora=drive), Google types exported, others downloaded; nothing read for
    // the image, the trashed doc or the 50 MB scan.
    const lists = calls('/drive/v3/files');
    assert.deepEqual(lists.map((r) => r.query.corpora).sort(), ['drive', 'drive', 'user']);
    assert.ok(lists.filter((r) => r.query.corpora === 'drive').every((r) => r.query.includeItemsFromAllDrives === 'true' && r.query.supportsAllDrives === 'true'));
    assert.equal(calls('/drive/v3/files/doc-atlas/export')[0]?.query.mimeType, 'text/plain');
    assert.equal(calls('/drive/v3/files/sheet-budget/export')[0]?.query.mimeType, 'text/csv');
    assert.equal(calls('/drive/v3/files/pdf-onboarding')[0]?.query.alt, 'media');
    assert.deepEqual([...calls(/png-logo|doc-old|pdf-huge/)], []);
    assert.equal(calls('/drive/v3/changes/startPageToken').length, 1);
  });

  it('stored documents are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'columnar shards telemetry', mode: 'lexical' } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, 'file:doc-atlas');
  });

  it('an incremental sync reads changes.list from the stored token: edits, trash, deletion, out-of-scope, unreadable files; a 403 quota is waited out', async () => {
    drive.updateFile('doc-atlas', { exports: { 'text/plain': 'Atlas design\n\nShards are now compacted nightly.' } });
    drive.updateFile('slides-review', { trashed: true });
    drive.deleteFile('txt-oncall');
    drive.addFile({ id: 'png-new', name: 'photo.png', mimeType: 'image/png', content: Buffer.from([1, 2, 3]) });
    drive.addFile({ id: 'doc-giant', name: 'Giant export', mimeType: DOC, exportError: 'exportSizeLimitExceeded' });
    drive.fake.requests.length = 0;
    drive.quotaNext(1, (req) => req.path === '/drive/v3/changes');
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [0, 1, 2]);
    assert.ok(run.rate_limited_waits >= 1, 'the 403 userRateLimitExceeded was a rate limit');
    assert.match(String(c.status_reason), /file:doc-giant \(exportSizeLimitExceeded\)/);
    assert.match(String((await doc('file:doc-atlas'))?.content), /compacted nightly/);
    assert.equal(await doc('file:slides-review'), undefined);
    assert.equal(await doc('file:txt-oncall'), undefined);
    // Only the change log and the changed files were read: no listing.
    assert.equal(calls('/drive/v3/files').length, 0);
    const changeCalls = calls('/drive/v3/changes').filter((r) => r.status === 200);
    assert.equal(changeCalls.length, 1);
    assert.equal(changeCalls[0]?.query.pageToken, '1000');
    assert.equal(changeCalls[0]?.query.includeItemsFromAllDrives, 'true');
    drive.deleteFile('doc-giant');
  });

  it('follows nextPageToken through a long change log, reading a file changed many times once per page', async () => {
    for (let i = 0; i < 120; i++) drive.updateFile('md-notes', { content: Buffer.from(`# Notes\n\nRevision ${i}.`) });
    drive.fake.requests.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const changeCalls = calls('/drive/v3/changes');
    assert.equal(changeCalls.length, 2);
    assert.equal(changeCalls[1]?.query.pageToken, String(Number(changeCalls[0]?.query.pageToken) + 100));
    assert.equal(calls('/drive/v3/files/md-notes').length, 2);
    assert.equal((await doc('file:md-notes'))?.content, '# Notes\n\nRevision 119.');
    // The next incremental starts from newStartPageToken: nothing new to read.
    drive.fake.requests.length = 0;
    await sync(false);
    assert.equal(calls('/drive/v3/changes').length, 1);
    // (Shared drives' members, `/files/{drive id}/permissions`, are re-read on every sync: not file reads.)
    assert.equal(calls(/^\/drive\/v3\/files(?!\/[^/]+\/permissions$)/).length, 0);
  });

  it('a vendor 5xx fails the attempt, the job retries from its checkpoint, and nothing stored is lost', async () => {
    const before = await stored();
    drive.fake.failNext(1, 503, (req) => req.path === '/drive/v3/files/doc-runbook/export');
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

  it('folder_ids scope: the folder tree only; changes add new subfolders, and a file moved out is removed', async () => {
    const fid = await create({ folder_ids: ['fld-projects'] });
    const c = await sync(true, fid);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(fid), ['file:doc-atlas', 'file:sheet-budget']);
    drive.addFile({ id: 'fld-sub', name: 'Specs', mimeType: FOLDER, parents: ['fld-atlas'] });
    drive.addFile({ id: 'doc-spec', name: 'Spec', mimeType: DOC, parents: ['fld-sub'], exports: { 'text/plain': 'Spec body.' } });
    drive.addFile({ id: 'doc-elsewhere', name: 'Elsewhere', mimeType: DOC, exports: { 'text/plain': 'Not in the folder.' } });
    drive.updateFile('sheet-budget', { parents: [drive.data.rootId] });
    const inc = await sync(false, fid);
    assert.equal(inc.status, 'idle', JSON.stringify(inc));
    assert.deepEqual(await stored(fid), ['file:doc-atlas', 'file:doc-spec']);
    drive.updateFile('sheet-budget', { parents: ['fld-projects'] });
  });

  it('drive_ids and include_my_drive narrow the scope to one shared drive', async () => {
    const did = await create({ include_my_drive: false, drive_ids: ['0ADrvEngineering'] });
    drive.fake.requests.length = 0;
    const c = await sync(true, did);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(did), ['file:doc-runbook']);
    assert.equal(calls('/drive/v3/drives').length, 0);
    drive.updateFile('docx-brand', { name: 'Brand guide v2.docx' });
    await sync(false, did);
    assert.deepEqual(await stored(did), ['file:doc-runbook']);
  });

  it('a folder that does not exist puts the connector in error naming folder_ids', async () => {
    const bad = await create({ folder_ids: ['no-such-folder'] });
    const c = await sync(true, bad);
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /settings are invalid: folder_ids: folder 'no-such-folder' does not exist/);
  });

  it('unknown settings keys and malformed values are refused with 400 naming the field', async () => {
    const post = (settings: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'google_drive', display_name: 'x', credentials: { access_token: drive.token }, settings } });
    const cases: [Record<string, unknown>, string][] = [
      [{ shared_drives: true }, 'settings'],
      [{ folder_ids: ['../etc'] }, 'settings.folder_ids.0'],
      [{ mime_types: ['image/png'] }, 'settings.mime_types.0'],
      [{ include_shared_drives: false, drive_ids: ['0ADrvEngineering'] }, 'settings.drive_ids'],
    ];
    for (const [settings, path] of cases) {
      const r = await post(settings);
      assert.equal(r.statusCode, 400, r.body);
      assert.ok(
        r.json().error.details.problems.some((p: { path: string; message: string }) => p.path === path || (path === 'settings' && /shared_drives/.test(p.message))),
        `${JSON.stringify(settings)} → ${r.body}`,
      );
    }
  });

  it('OAuth: the authorize URL asks Google for offline access with consent; the callback connects and the sync uses the token', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'google_drive', display_name: 'Drive (OAuth)', settings: { drive_ids: ['0ADrvEngineering'], include_my_drive: false } } });
    assert.equal(created.statusCode, 201, created.body);
    const { connector_id: oid, oauth_url: oauthUrl } = created.json();
    const u = new URL(oauthUrl);
    assert.equal(`${u.origin}${u.pathname}`, 'https://accounts.google.com/o/oauth2/v2/auth');
    assert.equal(u.searchParams.get('scope'), 'https://www.googleapis.com/auth/drive.readonly https://www.googleapis.com/auth/admin.directory.group.readonly');
    assert.equal(u.searchParams.get('access_type'), 'offline');
    assert.equal(u.searchParams.get('prompt'), 'consent');
    assert.equal(u.searchParams.get('code_challenge_method'), 'S256');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=google-code` });
    assert.ok(cb.statusCode < 400, cb.body);
    await worker.drain();
    const c = await sync(true, oid);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(oid), ['file:doc-runbook']);
    assert.ok(drive.fake.requests.some((r) => r.token === 'ya29.oauth-1'));
  });

  it('a revoked token puts the connector in error with a sentence naming Google’s answer', async () => {
    drive.fake.revoke(drive.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error');
      assert.match(c.status_reason, /rejected the credentials: Google Drive answered 401 authError \(Invalid Credentials\)/);
      assert.ok((await stored()).length > 0, 'stored documents are kept');
    } finally {
      drive.fake.allow(drive.token);
    }
  });
});
