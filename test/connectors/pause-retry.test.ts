import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createWorker, type Worker } from '../../src/platform/jobs/index.ts';
import { createSyncHandler, createValidateHandler, SYNC_JOB_KIND, VALIDATE_JOB_KIND } from '../../src/sync/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { silentLog } from '../support/db.ts';

/** GitHub's REST wire format: `GET /user` accepts the token, every other request is a 502 (retried by the sync job). */
async function startFailingVendor() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(req.url === '/user' ? 200 : 502, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url === '/user' ? { login: 'octo', id: 1 } : { message: 'Server Error' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('pausing a connector while its sync job waits between retries', () => {
  let t: TestApp;
  let vendor: Awaited<ReturnType<typeof startFailingVendor>>;
  let worker: Worker;
  before(async () => {
    vendor = await startFailingVendor();
    t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: vendor.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = createWorker({
      db: t.db,
      log: silentLog,
      handlers: new Map([
        [SYNC_JOB_KIND, createSyncHandler(t.deps)],
        [VALIDATE_JOB_KIND, createValidateHandler(t.deps)],
      ]),
      concurrency: 1,
      pollMs: 20,
    });
  });
  after(async () => {
    await t.close();
    await vendor.close();
  });

  it('ends the run cancelled (not running forever), with the job cancelled', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'gh', credentials: { access_token: 'ghp_token_for_retry_test' } } });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().connector_id;
    await worker.drain();
    const sync = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(sync.statusCode, 202, sync.body);
    await worker.drain();
    // The sync failed (502) and its job waits for its retry (at least 500 ms away: not yet).
    const runs = async () => (await t.db.query<{ id: string; status: string; job_id: string }>('SELECT id, status, job_id FROM connector_sync_runs WHERE connector_id = $1', [id])).rows;
    const [run] = await runs();
    assert.ok(run, 'a sync run was started');
    assert.equal(run.status, 'running');
    const job = await t.db.query<{ status: string; last_error: string | null }>('SELECT status, last_error FROM jobs WHERE id = $1', [run.job_id]);
    assert.equal(job.rows[0]?.status, 'queued', 'waiting between retries');
    assert.ok(job.rows[0]?.last_error);

    const paused = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/pause`, headers: t.admin });
    assert.equal(paused.statusCode, 200, paused.body);
    const [after] = await runs();
    assert.equal(after?.status, 'cancelled');
    assert.equal((await t.db.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [run.job_id])).rows[0]?.status, 'cancelled');
    const shown = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(shown.status, 'paused');
    assert.equal(shown.sync_runs[0].status, 'cancelled');
    assert.ok(shown.sync_runs[0].finished_at, 'finished');
  });
});
