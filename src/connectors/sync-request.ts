import { getKind } from './catalog.ts';
import { syncBlockedReason } from './states.ts';
import { applyTransition, getConnector } from './store.ts';
import type { Queryable } from '../platform/db/executor.ts';
import { Errors } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { z } from 'zod';
import { cancelJobs, defineJobKind, enqueue } from '../platform/jobs/index.ts';
import { finishRun, startRun } from './runs.ts';
import type { SyncRequested } from './schemas.ts';
import { recordAudit } from '../audit/index.ts';
import { Ops } from '../platform/operations.ts';

export function syncDedupeKey(tenantId: string, connectorId: string): string {
  return `connector:${tenantId}:${connectorId}:sync`;
}

/** The `connector.sync` job (its handler: sync/engine.ts): one run of a connector, resumable from its checkpoint. */
export const SYNC_JOB = defineJobKind({
  kind: 'connector.sync',
  payload: z.object({ connectorId: z.string(), syncType: z.enum(['incremental', 'full']), runId: z.string() }),
  maxAttempts: 8,
  dedupeKey: (tenantId, p) => syncDedupeKey(tenantId, p.connectorId),
});

/** The `connector.validate` job (its handler: sync/validate.ts): a new connector's credentials checked against the vendor. */
export const VALIDATE_JOB = defineJobKind({
  kind: 'connector.validate',
  payload: z.object({ connectorId: z.string() }),
  maxAttempts: 3,
  dedupeKey: (tenantId, p) => `connector:${tenantId}:${p.connectorId}:validate`,
});

export const SYNC_JOB_KIND = SYNC_JOB.kind;
export const VALIDATE_JOB_KIND = VALIDATE_JOB.kind;

/**
 * Moves the connector to `syncing` and enqueues the durable sync job, in one transaction, then audits
 * `connector.sync_started` (by `actor` when a person or key asked; the scheduler has none).
 * 404 for an unknown connector, 409 with the reason when a sync cannot start from its state.
 */
export async function requestSync(
  db: Queryable & { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> },
  input: { tenantId: string; connectorId: string; full: boolean; trigger: 'manual' | 'schedule' | 'webhook'; now: Date; actor?: { readonly id: string; readonly userId: string } },
): Promise<SyncRequested> {
  const started = await startSync(db, input);
  await recordAudit(db, {
    tenantId: input.tenantId,
    action: Ops.connectorSyncStarted,
    ...(input.actor ? { actorId: input.actor.id, userId: input.actor.userId } : {}),
    details: { connector_id: started.connector_id, sync_type: started.sync_type, run_id: started.run_id, trigger: input.trigger },
  });
  return started;
}

function startSync(
  db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> },
  input: { tenantId: string; connectorId: string; full: boolean; trigger: 'manual' | 'schedule' | 'webhook'; now: Date },
): Promise<SyncRequested> {
  return db.transaction(async (tx) => {
    const c = await getConnector(tx, input.tenantId, input.connectorId);
    if (!c) throw Errors.notFound('connector', input.connectorId);
    const kind = getKind(c.type);
    if (!kind?.sync) {
      throw Errors.conflict(`'${c.type}' connectors are push sources and have no sync`, { status: c.status, reason: 'no_sync_capability' });
    }
    const blocked = syncBlockedReason(c.status);
    if (blocked) throw Errors.conflict(blocked, { status: c.status });
    const moved = await applyTransition(tx, input.tenantId, input.connectorId, 'sync_started');
    if (!moved.ok) throw Errors.conflict(moved.reason, { status: moved.current });
    const syncType = input.full ? 'full' : 'incremental';
    const jobId = newId('job');
    const runId = await startRun(tx, { tenantId: input.tenantId, connectorId: c.id, syncType, trigger: input.trigger, jobId, now: input.now });
    const { created } = await enqueue(tx, SYNC_JOB, input.tenantId, { connectorId: c.id, syncType, runId }, { id: jobId });
    if (!created) throw Errors.conflict('a sync is already queued for this connector', { status: c.status });
    return { status: 'syncing', connector_id: c.id, sync_type: syncType, run_id: runId, job_id: jobId };
  });
}

/**
 * Cancels the connector's queued and running jobs (delete, pause). A running handler stops at its next checkpoint
 * and ends its run itself; a run whose job was queued (never started, or waiting between retries) has no handler
 * to end it, so it is ended `cancelled` here, or it would show `running` forever.
 */
export async function cancelConnectorJobs(db: Queryable, tenantId: string, connectorId: string, now: Date = new Date()): Promise<number> {
  const waiting = await db.query<{ id: string }>(
    `SELECT r.id FROM connector_sync_runs r JOIN jobs j ON j.id = r.job_id
     WHERE r.tenant_id = $1 AND r.connector_id = $2 AND r.status = 'running' AND j.status = 'queued'`,
    [tenantId, connectorId],
  );
  const cancelled = await cancelJobs(db, tenantId, `connector:${tenantId}:${connectorId}:`);
  for (const run of waiting.rows) await finishRun(db, run.id, 'cancelled', now, 'cancelled before the sync could resume (the connector was paused or deleted)');
  return cancelled;
}
