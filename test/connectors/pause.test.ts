import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Worker } from '../../src/platform/jobs/index.ts';
import { type FakeGitHub, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { connectorWorker } from './support.ts';

async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('pausing a connector while it syncs', () => {
  let t: TestApp;
  let gh: FakeGitHub;
  let worker: Worker;
  before(async () => {
    gh = await startFakeGitHub({ repos: [seededRepo('acme/slow', 300)] });
    t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
    worker = connectorWorker(t, { pollMs: 20 });
  });
  after(async () => {
    await worker.stop();
    await t.close();
    await gh.close();
  });

  it('paused while connecting, then resumed: the validation runs again and the connector connects', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'early', credentials: { access_token: gh.token } } });
    const id = created.json().connector_id;
    assert.equal(created.json().status, 'connecting');
    const paused = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/pause`, headers: t.admin });
    assert.equal(paused.json().status, 'paused');
    await worker.drain(); // the cancelled validation does not run
    const resumed = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/resume`, headers: t.admin });
    assert.equal(resumed.json().status, 'connecting');
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.notEqual(c.status, 'connecting', 'not left waiting for a validation that never comes');
    assert.ok(['connected', 'syncing', 'idle'].includes(c.status), c.status);
    await t.app.inject({ method: 'DELETE', url: `/v1/connectors/${id}`, headers: t.admin });
  });

  it('stops the running sync at its next checkpoint, refuses syncs while paused, and resumes', async () => {
    const id = (await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'slow', credentials: { access_token: gh.token } } })).json().connector_id;
    await worker.drain();
    gh.delayMs = 30;
    const s = (await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin })).json();
    worker.start();
    await waitFor('a committed page', async () => {
      const r = await t.db.query<{ batches: number }>('SELECT batches FROM connector_sync_runs WHERE id = $1', [s.run_id]);
      return Number(r.rows[0]?.batches ?? 0) >= 2;
    });
    const paused = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/pause`, headers: t.admin });
    assert.deepEqual(paused.json(), { connector_id: id, status: 'paused' });
    const run = await waitFor('the run to stop', async () => {
      const r = await t.db.query<{ status: string }>('SELECT status FROM connector_sync_runs WHERE id = $1', [s.run_id]);
      return r.rows[0]?.status === 'cancelled' ? r.rows[0] : null;
    });
    assert.equal(run.status, 'cancelled');
    const job = await waitFor('the sync job to end', async () => {
      const r = await t.db.query<{ status: string; lease_owner: string | null }>("SELECT status, lease_owner FROM jobs WHERE kind = 'connector.sync' AND payload->>'runId' = $1", [s.run_id]);
      return r.rows[0] && r.rows[0].lease_owner === null ? r.rows[0] : null;
    });
    assert.equal(job.status, 'cancelled', 'the job ends cancelled like its run, not completed');
    const count = async () => Number((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE source_node = $1', [id])).rows[0]?.n);
    const atStop = await count();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await count(), atStop, 'nothing is stored after the pause');
    const refused = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync`, headers: t.admin });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.json().error.message, /paused/);
    const resumed = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/resume`, headers: t.admin });
    assert.deepEqual(resumed.json(), { connector_id: id, status: 'connected' });
    gh.delayMs = 0;
    await worker.stop();
    const again = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(again.statusCode, 202, again.body);
    await worker.drain();
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.status, 'idle');
    assert.equal(c.document_count, 1 + 300 + 2 + 1);
  });
});
