import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createWorker, type Worker } from '../../src/platform/jobs/index.ts';
import { createSyncHandler, SYNC_JOB_KIND } from '../../src/sync/index.ts';
import { makePdf } from '../documents/fixtures.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { silentLog } from '../support/db.ts';
import { syncConnector } from './support.ts';

describe('filesystem connector (the documents module scanner behind the sync engine)', () => {
  let t: TestApp;
  let dir: string;
  let worker: Worker;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-fs-'));
    await fs.mkdir(path.join(dir, 'docs'));
    await fs.writeFile(path.join(dir, 'docs/a.md'), '# Alpha\n\nThe alpha runbook.');
    await fs.writeFile(path.join(dir, 'b.txt'), 'Bravo notes.');
    t = await createTestApp({ env: { ATRIUM_FILESYSTEM_ROOTS: dir, ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = createWorker({ db: t.db, log: silentLog, handlers: new Map([[SYNC_JOB_KIND, createSyncHandler(t.deps)]]), concurrency: 1, pollMs: 50 });
  });
  after(async () => {
    await t.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const ids = async (id: string) => (await t.db.query<{ external_id: string }>('SELECT external_id FROM documents WHERE source_node = $1 ORDER BY 1', [id])).rows.map((r) => r.external_id);
  const sync = (id: string, full: boolean) => syncConnector(t, worker, id, full);

  it('syncs a folder, then only what changed, and removes deleted files', async () => {
    const c = (await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'filesystem', display_name: 'docs', settings: { path: dir } } })).json();
    const first = await sync(c.connector_id, true);
    assert.equal(first.status, 'idle');
    const got = await ids(c.connector_id);
    assert.equal(got.length, 2, got.join(','));
    await fs.writeFile(path.join(dir, 'c.md'), 'Charlie');
    await fs.rm(path.join(dir, 'b.txt'));
    const second = await sync(c.connector_id, false);
    assert.equal(second.sync_runs[0].added, 1);
    assert.equal(second.sync_runs[0].deleted, 1);
    assert.equal((await ids(c.connector_id)).length, 2);
  });

  const create = (name: string, folder: string) =>
    t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'filesystem', display_name: name, settings: { path: folder } } });

  it('refuses folders outside ATRIUM_FILESYSTEM_ROOTS at creation with an actionable 400', async () => {
    const res = await create('etc', path.join(dir, '..', '..', 'etc'));
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, 'invalid_request');
    assert.match(res.json().error.message, /invalid settings: .*outside the allowed folders.*ATRIUM_FILESYSTEM_ROOTS/);
    assert.equal(res.json().error.details.problems[0].path, 'settings');
    const none = await create('gone', path.join(dir, 'no-such-folder'));
    assert.equal(none.statusCode, 400);
    assert.match(none.json().error.message, /does not exist/);
  });

  it('refuses a path inside the roots that is, or passes through, a symlink leading outside them', async () => {
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-outside-'));
    try {
      await fs.writeFile(path.join(outside, 'secret.md'), '# Secret\n\nTOPSECRET_OUTSIDE_ROOT');
      await fs.symlink(outside, path.join(dir, 'evil'));
      await fs.symlink(path.join(outside, 'secret.md'), path.join(dir, 'evil-file.md'));
      for (const target of ['evil', 'evil-file.md', 'evil/secret.md']) {
        const res = await create(target, path.join(dir, target));
        assert.equal(res.statusCode, 400, target);
        assert.match(res.json().error.message, /outside the allowed folders/, target);
      }
      // A symlink met while walking an allowed folder is not followed either.
      const c = (await create('root', dir)).json();
      await sync(c.connector_id, true);
      assert.ok(!(await ids(c.connector_id)).some((id) => id.startsWith('evil')));
    } finally {
      await fs.rm(path.join(dir, 'evil'), { force: true });
      await fs.rm(path.join(dir, 'evil-file.md'), { force: true });
      await fs.rm(outside, { recursive: true, force: true });
    }
  });

  it('checks again at every sync: a folder replaced by a symlink to elsewhere, or removed, is invalid settings', async () => {
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-outside-'));
    const folder = path.join(dir, 'later');
    try {
      await fs.writeFile(path.join(outside, 'secret.md'), '# Secret\n\nTOPSECRET_OUTSIDE_ROOT');
      await fs.mkdir(folder);
      const c = (await create('later', folder)).json();
      await fs.rm(folder, { recursive: true });
      await fs.symlink(outside, folder);
      const after = await sync(c.connector_id, true);
      assert.equal(after.status, 'error');
      assert.match(after.status_reason, /settings are invalid: .*outside the allowed folders.*ATRIUM_FILESYSTEM_ROOTS/);
      assert.doesNotMatch(after.status_reason, /credentials|OAuth/, 'not reported as a credentials problem');
      assert.deepEqual(await ids(c.connector_id), []);
      await fs.rm(folder);
      const gone = await sync(c.connector_id, true);
      assert.match(gone.status_reason, /settings are invalid: .*does not exist/);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
      await fs.rm(outside, { recursive: true, force: true });
    }
  });

  it('a full sync keeps the stored version of a file that now fails to read, and the connector names what it skipped', async () => {
    const d = await fs.mkdtemp(path.join(dir, 'keep-'));
    await fs.writeFile(path.join(d, 'notes.txt'), 'Quokka notes.');
    await fs.writeFile(path.join(d, 'report.pdf'), makePdf(['Numbat figures']));
    const c = (await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'filesystem', display_name: 'keep', settings: { path: d } } })).json();
    await sync(c.connector_id, true);
    assert.deepEqual(await ids(c.connector_id), ['notes.txt', 'report.pdf']);

    // A NUL byte (an editor crash, a binary saved as .txt) and a truncated PDF; a new file arrives meanwhile.
    await fs.writeFile(path.join(d, 'notes.txt'), Buffer.from('Quokka\u0000\u0000 notes.', 'latin1'));
    await fs.writeFile(path.join(d, 'report.pdf'), 'garbage');
    await fs.writeFile(path.join(d, 'new.md'), '# New\n\nBilby.');
    const after = await sync(c.connector_id, true);
    assert.equal(after.sync_runs[0].status, 'completed');
    assert.equal(after.status, 'idle');
    assert.deepEqual(await ids(c.connector_id), ['new.md', 'notes.txt', 'report.pdf'], 'the previous versions are kept, the new file is indexed');
    const content = (await t.db.query<{ content: string }>('SELECT content FROM documents WHERE source_node = $1 AND external_id = $2', [c.connector_id, 'notes.txt'])).rows[0]?.content;
    assert.equal(content, 'Quokka notes.');
    assert.match(after.status_reason, /^2 skipped, stored versions kept: notes\.txt \(binary content, not text\); report\.pdf \(/);

    // Readable again: the next sync stores it and the note goes.
    await fs.writeFile(path.join(d, 'notes.txt'), 'Quokka notes, fixed.');
    await fs.writeFile(path.join(d, 'report.pdf'), makePdf(['Numbat figures']));
    const fixed = await sync(c.connector_id, false);
    assert.equal(fixed.status_reason, null);
    assert.equal(fixed.sync_runs[0].updated, 2);
  });

  it('a full sync keeps what an unreadable folder held', { skip: process.getuid?.() === 0 ? 'root reads folders with mode 000' : false }, async () => {
    const d = await fs.mkdtemp(path.join(dir, 'perm-'));
    await fs.mkdir(path.join(d, 'locked'));
    await fs.writeFile(path.join(d, 'locked/a.md'), '# A\n\nAardvark.');
    await fs.writeFile(path.join(d, 'b.md'), '# B');
    const c = (await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'filesystem', display_name: 'perm', settings: { path: d } } })).json();
    await sync(c.connector_id, true);
    await fs.chmod(path.join(d, 'locked'), 0o000);
    try {
      const after = await sync(c.connector_id, true);
      assert.equal(after.sync_runs[0].status, 'completed');
      assert.deepEqual(await ids(c.connector_id), ['b.md', 'locked/a.md']);
      assert.match(after.status_reason, /locked\/ \(cannot read folder \(EACCES\)\)/);
    } finally {
      await fs.chmod(path.join(d, 'locked'), 0o755);
    }
  });
});
