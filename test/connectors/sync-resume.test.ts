import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { finishRun } from '../../src/connectors/runs.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { createWorker, enqueueJob, getJob, type JobHandler } from '../../src/platform/jobs/index.ts';
import { type FakeGitHub, seededRepo, startFakeGitHub } from '../fakes/github.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { openTestPglite, silentLog } from '../support/db.ts';
import { connectorWorker } from './support.ts';

describe('a full sync resumed after its run was closed', () => {
  let t: TestApp;
  let gh: FakeGitHub;
  before(async () => {
    gh = await startFakeGitHub({ repos: [seededRepo('acme/docs', 40)] });
    t = await createTestApp({ env: { ATRIUM_CONNECTOR_API_URLS: JSON.stringify({ github: gh.url }), ATRIUM_SYNC_SCHEDULER: 'false' } });
  });
  after(async () => {
    await t.close();
    await gh.close();
  });

  const count = async (id: string) =>
    Number((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE source_node = $1', [id])).rows[0]?.n ?? 0);

  it('finishes the connector’s side and deletes nothing (the worker died between closing the run and the connector)', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/connectors', headers: t.admin, payload: { connector_type: 'github', display_name: 'docs', credentials: { access_token: gh.token } } });
    const id = created.json().connector_id as string;
    const worker = connectorWorker(t);
    await worker.drain(); // validation
    const first = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(first.statusCode, 202, first.body);
    await worker.drain();
    const stored = await count(id);
    assert.ok(stored > 40, `first full sync stored ${stored}`);

    const sync = await t.app.inject({ method: 'POST', url: `/v1/connectors/${id}/sync?full=true`, headers: t.admin });
    assert.equal(sync.statusCode, 202, sync.body);
    const { job_id: jobId, run_id: runId } = sync.json();
    // The state a kill leaves: every page read (checkpoint page null), the run closed (its seen ids deleted with it),
    // the connector still syncing, the job running under a dead worker's expired lease.
    await finishRun(t.db, runId, 'completed', new Date());
    await t.db.query(
      `UPDATE jobs SET status = 'running', attempts = 1, checkpoint = $2::jsonb, lease_owner = 'dead', lease_expires_at = now() - interval '1 second' WHERE id = $1`,
      [jobId, JSON.stringify({ page: null, cursor: null, pages: 9 })],
    );
    await worker.drain();
    assert.equal(await count(id), stored, 'nothing swept against the closed run’s empty seen set');
    const c = (await t.app.inject({ method: 'GET', url: `/v1/connectors/${id}`, headers: t.admin })).json();
    assert.equal(c.status, 'idle');
    assert.equal(c.document_count, stored);
    assert.equal((await getJob(t.db, 'default', jobId))?.status, 'completed');
  });
});

describe('a worker that lost its job’s lease', () => {
  let db: DatabaseExecutor;
  before(async () => {
    db = await openTestPglite();
  });
  after(() => db.close());

  it('is stopped at its next heartbeat or progress write and does not finish the job', async () => {
    let aborted = false;
    let progressError: unknown = null;
    let steal: () => void = () => undefined;
    const stolen = new Promise<void>((r) => {
      steal = r;
    });
    const handlers = new Map<string, JobHandler>([
      [
        'long',
        async (ctx) => {
          await ctx.progress(0.1, { page: 1 });
          steal();
          // Another worker re-leased the job while this one was frozen past its lease.
          await new Promise((r) => setTimeout(r, 150));
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
          });
          try {
            await ctx.progress(0.5, { page: 2 });
          } catch (err) {
            progressError = err;
            throw err;
          }
          return { finished: true };
        },
      ],
    ]);
    const worker = createWorker({ db, log: silentLog, handlers, concurrency: 1, pollMs: 10, leaseMs: 60_000 });
    const { job } = await enqueueJob(db, { tenantId: 'default', kind: 'long' });
    const run = worker.drain();
    await stolen;
    await db.query(`UPDATE jobs SET lease_owner = 'worker-other' WHERE id = $1`, [job.id]);
    await run;
    assert.match(String(progressError), /lease lost/);
    assert.equal(aborted || progressError !== null, true);
    const row = await getJob(db, 'default', job.id);
    assert.equal(row?.status, 'running', 'left to the worker that holds the lease');
    assert.deepEqual(row?.checkpoint, { page: 1 }, 'the lost worker wrote no checkpoint');
  });
});
