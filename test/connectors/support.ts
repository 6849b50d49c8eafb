import type { AppDeps } from '../../src/http/index.ts';
import type { DatabaseExecutor } from '../../src/platform/db/index.ts';
import { createWorker, type Worker } from '../../src/platform/jobs/index.ts';
import { createSyncHandler, createValidateHandler, SYNC_JOB_KIND, VALIDATE_JOB_KIND } from '../../src/sync/index.ts';
import { silentLog } from '../support/db.ts';

/**
 * A worker that runs only the connector jobs (validation and sync): embedding jobs queued by the
 * documents module are not the connector suites' concern, and a real-model embed would slow them down.
 */
export function connectorWorker(t: { db: DatabaseExecutor; deps: AppDeps }, opts: { pollMs?: number } = {}): Worker {
  return createWorker({
    db: t.db,
    log: silentLog,
    handlers: new Map([
      [SYNC_JOB_KIND, createSyncHandler(t.deps)],
      [VALIDATE_JOB_KIND, createValidateHandler(t.deps)],
    ]),
    concurrency: 1,
    pollMs: opts.pollMs ?? 50,
  });
}
