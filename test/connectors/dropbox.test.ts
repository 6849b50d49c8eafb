import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeDropbox, startFakeDropbox } from '../fakes/dropbox.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('dropbox connector against the fake Dropbox API v2', () => {
  let t: TestApp;
  let dbx: FakeDropbox;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    dbx = await startFakeDropbox();
    // Dropbox's authorize URL as the kind declares it; the token endpoint is the fake's.
    ({ t, worker } = await kindHarness('dropbox', dbx.url, { clock, oauthClient: { client_id: 'dbx-app-key', client_secret: 'dbx-app-secret', token_url: `${dbx.url}/oauth2/token` } }));
  });
  after(async () => {
    await t.close();
    await dbx.close();
  });

  const create = async (settings: Record<string, unknown> = {}, credentials: Record<string, unknown> = { access_token: dbx.token }) => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'dropbox', display_name: 'Dropbox', credentials, settings } });
    assert.equal(r.statusCode, 201, r.body);
    await worker.drain();
    return r.json().connector_id as string;
  };
  const idOf = (path: string) => {
    const i = dbx.data.items.find((x) => x.path_display === path);
    if (!i) throw new Error(`no ${path} in the fake`);
    return `file:${i.id.replace(/^id:/, '')}`;
  };
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const calls = (path: string) => dbx.fake.requestsTo(path);
  const sorted = (paths: string[]) => paths.map(idOf).sort();

  it('a full sync stores Markdown, PDF, DOCX, text, HTML and CSV files, mapped, and reads nothing else', async () => {
    id = await create();
    dbx.fake.requests.length = 0;
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(
      await stored(),
      sorted(['/Projects/Atlas design.md', '/Projects/Specs/requirements.docx', '/Onboarding.pdf', '/notes.txt', '/Team Wiki/runbook.html', '/Team Wiki/budget.csv']),
    );
    const atlas = await doc(idOf('/Projects/Atlas design.md'));
    assert.ok(atlas);
    assert.equal(atlas.title, 'Atlas design.md');
    assert.equal(atlas.content, '# Atlas design\n\nThe Atlas service stores telemetry in columnar shards.');
    assert.equal(atlas.url, 'https://www.dropbox.com/home/Projects/Atlas%20design.md');
    assert.equal(atlas.author, 'ada@atrium.test');
    assert.equal(atlas.document_type, 'document');
    const item = dbx.data.items.find((x) => x.path_display === '/Projects/Atlas design.md');
    assert.equal(new Date(String(atlas.created_at)).toISOString(), new Date(String(item?.client_modified)).toISOString());
    assert.equal(new Date(String(atlas.updated_at)).toISOString(), new Date(String(item?.server_modified)).toISOString());
    assert.deepEqual(atlas.acl, { users: ['ada@atrium.test'] });
    const meta = atlas.metadata as Record<string, unknown>;
    assert.equal(meta.path_lower, '/projects/atlas design.md');
    assert.equal(meta.rev, item?.rev);
    assert.match(String(meta.content_hash), /^[0-9a-f]{64}$/);

    // Inside the shared folder: its members as a group; HTML read as text, never markup.
    const runbook = await doc(idOf('/Team Wiki/runbook.html'));
    assert.deepEqual(runbook?.acl, { users: ['ada@atrium.test'], groups: ['dropbox:shared_folder:84528192421'] });
    assert.equal(runbook?.document_type, 'web_page');
    assert.match(String(runbook?.content), /Page the on-call engineer for sev1 incidents\./);
    assert.doesNotMatch(String(runbook?.content), /<p>|<html>/);
    assert.equal((runbook?.metadata as Record<string, unknown> | undefined)?.modified_by, 'dbid:AAGraceHopper');
    const pdf = await doc(idOf('/Onboarding.pdf'));
    assert.equal(pdf?.document_type, 'pdf');
    assert.match(String(pdf?.content), /Badges are issued on day one\./);
    assert.match(String((await doc(idOf('/Projects/Specs/requirements.docx')))?.content), /batch writes every five seconds/);
    assert.equal((await doc(idOf('/Team Wiki/budget.csv')))?.document_type, 'spreadsheet');

    // One listing (recursive from the root), one download per stored file: not the image, the 50 MB scan or the Paper doc.
    assert.equal(calls('/2/files/list_folder').length, 1);
    assert.equal(calls('/2/files/download').length, 6);
    assert.equal(calls('/2/users/get_current_account').length, 2, 'validation, then the sync’s account');
  });

  it('stored documents are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'columnar shards telemetry', mode: 'lexical' } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, idOf('/Projects/Atlas design.md'));
  });

  it('an incremental sync reads list_folder/continue from the stored cursor: edits, a move, a deleted folder, unreadable and unwanted files', async () => {
    const wiki = [idOf('/Team Wiki/runbook.html'), idOf('/Team Wiki/budget.csv')];
    const notes = idOf('/notes.txt');
    dbx.updateFile('/Projects/Atlas design.md', '# Atlas design\n\nShards are now compacted nightly.');
    dbx.move('/notes.txt', '/Projects/notes.txt');
    dbx.remove('/Team Wiki');
    dbx.addFile('/Projects/legal-hold.txt', 'Held.', { restricted: true });
    dbx.addFile('/Projects/photo2.png', Buffer.from([1, 2, 3]));
    dbx.fake.requests.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [0, 2, 2]);
    assert.match(String(c.status_reason), /legal-hold|restricted_content/);
    assert.match(String((await doc(idOf('/Projects/Atlas design.md')))?.content), /compacted nightly/);
    // Moved: the same document (Dropbox ids survive moves) at its new place.
    const moved = await doc(notes);
    assert.equal(moved?.url, 'https://www.dropbox.com/home/Projects/notes.txt');
    assert.equal((moved?.metadata as Record<string, unknown> | undefined)?.path_lower, '/projects/notes.txt');
    // The folder's one deleted entry removed both files under it.
    const now = await stored();
    for (const w of wiki) assert.equal(now.includes(w), false);
    assert.equal(calls('/2/files/list_folder').length, 0, 'no listing: only the changes');
    assert.equal(calls('/2/files/list_folder/continue').length, 1);
    assert.equal(calls('/2/files/download').length, 3, 'the edited, the moved and the restricted file');
    dbx.remove('/Projects/legal-hold.txt');
  });

  it('a reset cursor (409 reset) lists everything again and removes what vanished meanwhile', async () => {
    dbx.resetCursors();
    dbx.remove('/Onboarding.pdf');
    dbx.addFile('/Projects/after-reset.md', '# After reset\n\nListed again.');
    dbx.fake.requests.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(calls('/2/files/list_folder/continue').map((r) => r.status), [409]);
    assert.equal(calls('/2/files/list_folder').length, 1);
    assert.deepEqual(await stored(), sorted(['/Projects/Atlas design.md', '/Projects/Specs/requirements.docx', '/Projects/notes.txt', '/Projects/after-reset.md']));
    assert.equal(c.sync_runs[0].deleted, 1);
    // The relisting's last cursor is stored: the next incremental reads changes only.
    dbx.fake.requests.length = 0;
    await sync(false);
    assert.equal(calls('/2/files/list_folder').length, 0);
    assert.deepEqual(calls('/2/files/list_folder/continue').map((r) => r.status), [200]);
  });

  it('a vendor 5xx fails the attempt, the job retries from its checkpoint, and nothing stored is lost', async () => {
    const before = await stored();
    dbx.fake.failNext(1, 503, (req) => req.path === '/2/files/download');
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

  it('path and file_extensions narrow the scope; a listing of many pages follows has_more', async () => {
    for (let i = 0; i < 105; i++) dbx.addFile(`/Bulk/note-${String(i).padStart(3, '0')}.txt`, `Bulk note ${i}.`);
    dbx.addFile('/Bulk/readme.md', '# Bulk');
    const pid = await create({ path: '/Bulk/', file_extensions: ['txt'] });
    dbx.fake.requests.length = 0;
    const c = await sync(true, pid);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.equal((await stored(pid)).length, 105);
    assert.equal(calls('/2/files/list_folder').length, 1);
    assert.equal(calls('/2/files/list_folder/continue').length, 1);
    dbx.remove('/Bulk/note-000.txt');
    dbx.addFile('/Projects/outside.txt', 'Not under /Bulk.');
    const inc = await sync(false, pid);
    assert.deepEqual([inc.sync_runs[0].added, inc.sync_runs[0].deleted], [0, 1]);
    assert.equal((await stored(pid)).length, 104);
  });

  it('a path that does not exist puts the connector in error naming path', async () => {
    const bad = await create({ path: '/No such folder' });
    const c = await sync(true, bad);
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /settings are invalid: path: '\/No such folder' is not a folder .*not_found/);
  });

  it('unknown settings keys and malformed values are refused with 400 naming the field', async () => {
    const post = (settings: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'dropbox', display_name: 'x', credentials: { access_token: dbx.token }, settings } });
    const cases: [Record<string, unknown>, string][] = [
      [{ root_folder: '/x' }, 'settings'],
      [{ path: 'Projects' }, 'settings.path'],
      [{ file_extensions: ['.exe'] }, 'settings.file_extensions.0'],
      [{ max_file_size_mb: 0 }, 'settings.max_file_size_mb'],
    ];
    for (const [settings, path] of cases) {
      const r = await post(settings);
      assert.equal(r.statusCode, 400, r.body);
      assert.ok(
        r.json().error.details.problems.some((p: { path: string; message: string }) => p.path === path || (path === 'settings' && /root_folder/.test(p.message))),
        `${JSON.stringify(settings)} → ${r.body}`,
      );
    }
  });

  it('OAuth: the authorize URL asks Dropbox for offline access and the scopes; the callback connects and the sync uses the token', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'dropbox', display_name: 'Dropbox (OAuth)', settings: { path: '/Projects/Specs' } } });
    assert.equal(created.statusCode, 201, created.body);
    const { connector_id: oid, oauth_url: oauthUrl } = created.json();
    const u = new URL(oauthUrl);
    assert.equal(`${u.origin}${u.pathname}`, 'https://www.dropbox.com/oauth2/authorize');
    assert.equal(u.searchParams.get('token_access_type'), 'offline');
    assert.equal(u.searchParams.get('scope'), 'account_info.read files.metadata.read files.content.read');
    assert.equal(u.searchParams.get('code_challenge_method'), 'S256');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=dropbox-code` });
    assert.ok(cb.statusCode < 400, cb.body);
    await worker.drain();
    const c = await sync(true, oid);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(oid), sorted(['/Projects/Specs/requirements.docx']));
    assert.ok(dbx.fake.requests.some((r) => r.token === 'sl.oauth-1'));
  });

  it('an expired token puts the connector in error with a sentence naming Dropbox’s answer; stored documents are kept', async () => {
    dbx.expire(dbx.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error');
      assert.match(c.status_reason, /rejected the credentials: Dropbox answered 401 expired_access_token: reconnect with OAuth/);
      assert.ok((await stored()).length > 0, 'stored documents are kept');
    } finally {
      dbx.fake.allow(dbx.token);
    }
  });
});
