import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { MIGRATIONS_DIR, openPglite } from '../../src/platform/db/index.ts';
import { connectorWorker } from '../connectors/support.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/atrium');

describe('a folder source made by `atrium ingest`, synced by the server', () => {
  let dir: string;
  let folder: string;
  let t: TestApp;
  let source = '';
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-cli-sync-'));
    folder = path.join(dir, 'handbook');
    await fs.mkdir(folder);
    await fs.writeFile(path.join(folder, 'leave.md'), '# Leave\n\nEmployees get twenty-five days of paid leave.');
    const env = { ...process.env, ATRIUM_DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'silent', ATRIUM_SECRET_KEY: 'cli-test' };
    const out = await run(BIN, ['ingest', folder, '--no-embed', '--json'], { env });
    source = JSON.parse(out.stdout).source;
    // The service opens the folder afterwards (the CLI has exited).
    t = await createTestApp({ db: await openPglite(path.join(dir, 'data')), env: { ATRIUM_FILESYSTEM_ROOTS: dir, ATRIUM_SYNC_SCHEDULER: 'false' } });
  });
  after(async () => {
    await t.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const row = async () =>
    (await t.db.query<{ settings: Record<string, unknown>; sync_cursor: unknown }>('SELECT settings, sync_cursor FROM connectors WHERE id = $1', [source])).rows[0];

  it('keeps the scan state in the sync cursor, not in the user settings', async () => {
    const r = await row();
    assert.ok(r);
    assert.deepEqual(Object.keys(r.settings), ['path']);
    assert.ok(r.sync_cursor && typeof r.sync_cursor === 'object', 'the scan state is the cursor');
  });

  it("a full sync on the server completes (the CLI's settings are valid ones)", async () => {
    await fs.writeFile(path.join(folder, 'travel.txt'), 'Book trains for trips under four hours.');
    const sync = await t.app.inject({ method: 'POST', url: `/v1/connectors/${source}/sync?full=true`, headers: t.admin });
    assert.equal(sync.statusCode, 202, sync.body);
    await connectorWorker(t).drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${source}`, headers: t.admin })).json();
    assert.equal(c.sync_runs[0].status, 'completed', JSON.stringify(c.sync_runs[0]));
    assert.equal(c.last_error, null);
    assert.equal(c.sync_runs[0].added, 1);
  });

  it('moves an older CLI’s settings.scan_state into the cursor (migration 056)', async () => {
    const before = await row();
    await t.db.query(`UPDATE connectors SET settings = settings || jsonb_build_object('scan_state', sync_cursor), sync_cursor = NULL WHERE id = $1`, [source]);
    await t.db.exec(await fs.readFile(path.join(MIGRATIONS_DIR, '056_folder_scan_state.sql'), 'utf8'));
    assert.deepEqual(await row(), before);
  });

  it('settings the kind refuses fail the sync once, with a sentence naming them (not zod JSON, not 8 retries)', async () => {
    await t.db.query(`UPDATE connectors SET settings = settings || '{"scan_state": {"files": {}}}'::jsonb WHERE id = $1`, [source]);
    const sync = await t.app.inject({ method: 'POST', url: `/v1/connectors/${source}/sync?full=true`, headers: t.admin });
    assert.equal(sync.statusCode, 202, sync.body);
    await connectorWorker(t).drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${source}`, headers: t.admin })).json();
    assert.equal(c.status, 'error');
    assert.match(c.last_error, /^the connector's settings are invalid: settings: Unrecognized key: "scan_state"\. Fix the settings and sync again\.$/);
    assert.equal(c.sync_runs[0].status, 'failed');
    const job = await t.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM jobs WHERE id = $1', [sync.json().job_id]);
    assert.deepEqual(job.rows[0], { status: 'failed', attempts: 1 });
  });
});
