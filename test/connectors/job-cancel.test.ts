import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { cancelJobs, createWorker, enqueueJob, getJob, JobCancelledError, type JobHandler } from '../../src/platform/jobs/index.ts';
import { openTestPglite, silentLog } from '../support/db.ts';

describe('jobs that are cancelled end as cancelled', () => {
  let db: DatabaseExecutor;
  before(async () => {
    db = await openTestPglite();
  });
  after(async () => {
    await db.close();
  });

  it('a handler throwing JobCancelledError ends its job cancelled, without a retry', async () => {
    let runs = 0;
    const handlers = new Map<string, JobHandler>([
      [
        'stops',
        async () => {
          runs++;
          throw new JobCancelledError('connector paused');
        },
      ],
    ]);
    const worker = createWorker({ db, log: silentLog, handlers, concurrency: 1, pollMs: 10, backoffBaseMs: 1 });
    const { job } = await enqueueJob(db, { tenantId: 'default', kind: 'stops', dedupeKey: 'stops-1' });
    await worker.drain();
    await worker.drain();
    const done = await getJob(db, 'default', job.id);
    assert.equal(done?.status, 'cancelled');
    assert.equal(done?.lastError, 'connector paused');
    assert.ok(done?.finishedAt);
    assert.equal(runs, 1);
    const again = await enqueueJob(db, { tenantId: 'default', kind: 'stops', dedupeKey: 'stops-1' });
    assert.equal(again.created, true, 'a cancelled job frees its dedupe key');
  });

  it('a job cancelled while its handler runs is not overwritten as completed, failed or requeued', async () => {
    const handlers = new Map<string, JobHandler>([
      [
        'finishes',
        async ({ job }) => {
          await cancelJobs(db, job.tenantId, 'finishes-');
          return { done: true };
        },
      ],
      [
        'throws',
        async ({ job }) => {
          await cancelJobs(db, job.tenantId, 'throws-');
          throw new Error('transient');
        },
      ],
    ]);
    const worker = createWorker({ db, log: silentLog, handlers, concurrency: 1, pollMs: 10, backoffBaseMs: 1 });
    const a = await enqueueJob(db, { tenantId: 'default', kind: 'finishes', dedupeKey: 'finishes-1' });
    const b = await enqueueJob(db, { tenantId: 'default', kind: 'throws', dedupeKey: 'throws-1' });
    assert.equal(await worker.drain(), 2);
    assert.equal((await getJob(db, 'default', a.job.id))?.status, 'cancelled');
    assert.equal((await getJob(db, 'default', b.job.id))?.status, 'cancelled');
    assert.equal(await worker.drain(), 0, 'nothing was requeued');
  });
});
