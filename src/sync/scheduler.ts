import type { ConnectorDeps } from '../connectors/deps.ts';
import { isAppError } from '../platform/errors.ts';
import type { Worker } from '../platform/jobs/index.ts';
import { requestSync } from '../connectors/sync-request.ts';
import { dueSync } from '../connectors/schedule.ts';

/**
 * Starts the syncs that are due at `now` (incremental every N minutes, full nightly). Every worker process
 * may run it: the state machine's compare-and-set and the job dedupe key make a second start a no-op.
 */
export async function scheduleDueSyncs(deps: ConnectorDeps, now: Date): Promise<{ started: { connectorId: string; syncType: string }[] }> {
  const r = await deps.db.query<Record<string, unknown>>(
    `SELECT id, tenant_id, next_incremental_at, next_full_at FROM connectors
     WHERE status IN ('connected', 'idle') AND (next_incremental_at <= $1 OR next_full_at <= $1)
     ORDER BY LEAST(next_incremental_at, next_full_at) LIMIT 100`,
    [now.toISOString()],
  );
  const started: { connectorId: string; syncType: string }[] = [];
  for (const row of r.rows) {
    const due = dueSync(now, {
      incremental: row.next_incremental_at ? new Date(row.next_incremental_at as string) : null,
      full: row.next_full_at ? new Date(row.next_full_at as string) : null,
    });
    if (!due) continue;
    try {
      const s = await requestSync(deps.db, { tenantId: String(row.tenant_id), connectorId: String(row.id), full: due === 'full', trigger: 'schedule', now });
      started.push({ connectorId: s.connector_id, syncType: s.sync_type });
    } catch (err) {
      if (!isAppError(err)) throw err;
      deps.log.debug({ connectorId: row.id, err: err.message }, 'scheduled sync not started');
    }
  }
  return { started };
}

/** Runs the scheduler every `intervalMs` while the worker runs. */
export function withScheduler(worker: Worker, deps: ConnectorDeps, intervalMs = 30_000): Worker {
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    scheduleDueSyncs(deps, deps.clock.now()).catch((err) => deps.log.error({ err }, 'sync scheduler failed'));
  };
  return {
    id: worker.id,
    start() {
      worker.start();
      if (!timer) {
        timer = setInterval(tick, intervalMs);
        timer.unref();
        tick();
      }
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await worker.stop();
    },
    drain: () => worker.drain(),
  };
}
