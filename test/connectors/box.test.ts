import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeBox, STREAM_BASE, startFakeBox } from '../fakes/box.ts';
import type { TestApp } from '../support/app.ts';
import { kindHarness, storedDocument, storedIds, syncConnector } from './support.ts';

describe('box connector against the fake Box API', () => {
  let t: TestApp;
  let box: FakeBox;
  let worker: Worker;
  let id: string;
  const clock = fixedClock(new Date());
  before(async () => {
    box = await startFakeBox();
    // Box's authorize URL as the kind declares it; the token endpoint is the fake's.
    ({ t, worker } = await kindHarness('box', box.url, { clock, oauthClient: { client_id: 'box-client', client_secret: 'box-secret', token_url: `${box.url}/oauth2/token` } }));
  });
  after(async () => {
    await t.close();
    await box.close();
  });

  const create = async (settings: Record<string, unknown> = {}, credentials: Record<string, unknown> = { developer_token: box.token }) => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'box', display_name: 'Box', credentials, settings } });
    assert.equal(r.statusCode, 201, r.body);
    await worker.drain();
    return r.json().connector_id as string;
  };
  const stored = async (cid = id) => storedIds(t.db, cid);
  const doc = async (externalId: string, cid = id) => storedDocument(t.db, cid, externalId);
  const members = async (group: string) =>
    (await t.db.query<{ member: string }>('SELECT member FROM identity_memberships WHERE group_id = $1 ORDER BY 1', [group])).rows.map((r) => r.member);
  const sync = (full: boolean, cid = id) => syncConnector(t, worker, cid, full);
  const calls = (path: string | RegExp) => box.fake.requestsTo(path);

  it('a full sync walks All Files, downloads through the 302 without the token, and maps each file', async () => {
    id = await create();
    box.fake.requests.length = 0;
    const c = await sync(true);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(), ['file:2001', 'file:2002', 'file:2003', 'file:2004', 'file:2005']);
    const atlas = await doc('file:2001');
    assert.ok(atlas);
    assert.equal(atlas.title, 'Atlas design.md');
    assert.equal(atlas.content, '# Atlas design\n\nThe Atlas service stores telemetry in columnar shards.');
    assert.equal(atlas.url, 'https://app.box.com/file/2001');
    assert.equal(atlas.author, 'bob@atrium.test');
    assert.equal(atlas.document_type, 'document');
    const f = box.data.files.find((x) => x.id === '2001');
    assert.equal(new Date(String(atlas.created_at)).getTime(), new Date(String(f?.created_at)).getTime());
    assert.equal(new Date(String(atlas.updated_at)).getTime(), new Date(String(f?.modified_at)).getTime());
    assert.deepEqual(atlas.acl, { users: ['ada@atrium.test'], groups: ['box:folder:1001', 'box:folder:1002'] });
    const meta = atlas.metadata as Record<string, unknown>;
    assert.equal(meta.path, 'All Files/Engineering/Specs');
    assert.deepEqual(meta.path_ids, ['0', '1001', '1002']);
    assert.equal(meta.description, 'Architecture of the Atlas telemetry store');

    const pdf = await doc('file:2002');
    assert.equal(pdf?.document_type, 'pdf');
    assert.match(String(pdf?.content), /Page the on-call engineer for sev1 incidents\./);
    assert.deepEqual(pdf?.acl, { public: true, users: ['ada@atrium.test'], groups: ['box:folder:1001'] });
    const docx = await doc('file:2003');
    assert.match(String(docx?.content), /teal logo on dark backgrounds/);
    assert.deepEqual(docx?.acl, { domain: ['atrium.test'], users: ['ada@atrium.test'], groups: ['box:folder:1003'] });
    const html = await doc('file:2005');
    assert.equal(html?.document_type, 'web_page');
    assert.match(String(html?.content), /Ship the teal logo in March\./);
    assert.doesNotMatch(String(html?.content), /<p>/);
    assert.deepEqual((await doc('file:2004'))?.acl, { users: ['ada@atrium.test'] });

    // Folder collaborations mirrored: accepted user collaborators only (pending invitations and Box groups are not members).
    assert.deepEqual(await members('box:folder:1001'), ['bob@atrium.test']);
    assert.deepEqual(await members('box:folder:1002'), []);

    // Marker pagination, the event position taken first, downloads redirected to a host that never saw the token.
    assert.ok(calls(/\/items$/).every((r) => r.query.usemarker === 'true' && r.query.fields?.includes('path_collection')));
    const now = calls('/2.0/events');
    assert.deepEqual(now.map((r) => [r.query.stream_type, r.query.stream_position]), [['changes', 'now']]);
    const downloads = calls(/^\/d\/1\//);
    assert.equal(downloads.length, 5);
    assert.ok(downloads.every((r) => r.status === 200 && r.token === null));
    assert.deepEqual([...calls(/\/2.0\/files\/(2006|2007|2008)/)], []);
  });

  it('stored documents are searchable', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/search?bypass_acl=true', headers: t.admin, payload: { query: 'columnar shards telemetry', mode: 'lexical' } });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().passages[0]?.external_id, 'file:2001');
  });

  it('an incremental sync reads the changes stream from the stored 64-bit position: uploads, renames, moves, trash, folders, collaborators', async () => {
    box.uploadVersion('2001', Buffer.from('# Atlas design\n\nShards are now compacted nightly.'));
    box.renameFile('2004', 'notes.png');
    box.trashFile('2005');
    box.addFolder({ id: '1004', name: 'RFCs', parentId: '1001' });
    box.addFile({ id: '3001', name: 'rfc-1.md', parentId: '1004', content: Buffer.from('# RFC 1\n\nAdopt columnar compaction.') });
    box.repeatLastEvent();
    box.addCollaborator('1001', { id: '33669923', name: 'Grace Hopper', login: 'grace@partner.test' });
    box.trashFolder('1003');
    box.fake.requests.length = 0;
    const c = await sync(false);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    const run = c.sync_runs[0];
    assert.deepEqual([run.added, run.updated, run.deleted], [1, 1, 3]);
    assert.deepEqual(await stored(), ['file:2001', 'file:2002', 'file:3001']);
    assert.match(String((await doc('file:2001'))?.content), /compacted nightly/);
    assert.deepEqual((await doc('file:3001'))?.acl, { users: ['ada@atrium.test'], groups: ['box:folder:1001', 'box:folder:1004'] });
    assert.deepEqual(await members('box:folder:1001'), ['bob@atrium.test', 'grace@partner.test']);
    // The stored position kept every digit (Box sends it as a bare number beyond 2^53).
    const events = calls('/2.0/events');
    assert.equal(events[0]?.query.stream_position, String(STREAM_BASE));
    assert.equal(events.at(-1)?.query.stream_position, String(STREAM_BASE + BigInt(box.data.events.length)));
    // Only the stream and the changed items were read: no listing of All Files.
    assert.equal(calls('/2.0/folders/0/items').length, 0);
    assert.equal(calls('/2.0/files/3001/content').length, 1, 'a repeated event is read once');
    // Nothing new: one empty chunk.
    box.fake.requests.length = 0;
    await sync(false);
    assert.equal(calls('/2.0/events').length, 1);
    assert.equal(calls(/^\/2.0\/(files|folders)/).length, 0);
  });

  it('a full sync removes files purged without an event; a file Box cannot serve yet is skipped and kept', async () => {
    box.purgeFile('2002');
    const pending = box.data.files.find((x) => x.id === '2001');
    assert.ok(pending);
    pending.notReady = true;
    try {
      const c = await sync(true);
      assert.equal(c.status, 'idle', JSON.stringify(c));
      assert.equal(c.sync_runs[0].deleted, 1);
      assert.deepEqual(await stored(), ['file:2001', 'file:3001']);
      assert.match(String(c.status_reason), /file:2001 \(not_ready\)/);
    } finally {
      pending.notReady = false;
    }
  });

  it('a vendor 5xx fails the attempt, the job retries from its checkpoint, and nothing stored is lost', async () => {
    const before = await stored();
    box.fake.failNext(1, 503, (req) => req.path === '/2.0/files/3001/content');
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

  it('folder_ids and extensions narrow the scope; a file moved out of the folder is removed incrementally', async () => {
    const fid = await create({ folder_ids: ['1001'], extensions: ['md'] });
    const c = await sync(true, fid);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(fid), ['file:2001', 'file:3001']);
    box.moveFile('3001', '0');
    box.addFile({ id: '3002', name: 'elsewhere.md', parentId: '0', content: Buffer.from('Not in the folder.') });
    const inc = await sync(false, fid);
    assert.equal(inc.status, 'idle', JSON.stringify(inc));
    assert.deepEqual(await stored(fid), ['file:2001']);
  });

  it('a folder that does not exist puts the connector in error naming folder_ids', async () => {
    const bad = await create({ folder_ids: ['999999'] });
    const c = await sync(true, bad);
    assert.equal(c.status, 'error');
    assert.match(c.status_reason, /settings are invalid: folder_ids: folder '999999' does not exist/);
  });

  it('unknown settings keys and malformed values are refused with 400 naming the field', async () => {
    const post = (settings: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'box', display_name: 'x', credentials: { developer_token: box.token }, settings } });
    const cases: [Record<string, unknown>, string][] = [
      [{ root_folder: '0' }, 'settings'],
      [{ folder_ids: ['Engineering'] }, 'settings.folder_ids.0'],
      [{ extensions: ['png'] }, 'settings.extensions.0'],
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

  it('OAuth: the authorize URL is Box’s with root_readonly; the callback connects and the sync uses the token', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'box', display_name: 'Box (OAuth)', settings: { folder_ids: ['1002'] } } });
    assert.equal(created.statusCode, 201, created.body);
    const { connector_id: oid, oauth_url: oauthUrl } = created.json();
    const u = new URL(oauthUrl);
    assert.equal(`${u.origin}${u.pathname}`, 'https://account.box.com/api/oauth2/authorize');
    assert.equal(u.searchParams.get('scope'), 'root_readonly');
    assert.equal(u.searchParams.get('response_type'), 'code');
    const cb = await t.app.inject({ method: 'GET', url: `/v1/connectors/oauth/callback?state=${encodeURIComponent(u.searchParams.get('state') ?? '')}&code=box-code` });
    assert.ok(cb.statusCode < 400, cb.body);
    await worker.drain();
    const c = await sync(true, oid);
    assert.equal(c.status, 'idle', JSON.stringify(c));
    assert.deepEqual(await stored(oid), ['file:2001']);
    assert.ok(box.fake.requests.some((r) => r.token === 'box-oauth-1'));
  });

  it('a revoked token puts the connector in error with a sentence naming Box’s answer', async () => {
    box.fake.revoke(box.token);
    try {
      const c = await sync(false);
      assert.equal(c.status, 'error');
      assert.match(c.status_reason, /rejected the credentials: Box answered 401: reconnect the connector with OAuth/);
      assert.ok((await stored()).length > 0, 'stored documents are kept');
    } finally {
      box.fake.allow(box.token);
    }
  });
});
