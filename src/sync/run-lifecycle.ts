import { recordAudit } from '../audit/index.ts';
import type { ConnectorDeps } from '../connectors/deps.ts';
import type { ConnectorRecord } from '../connectors/store.ts';
import { applyTransition, updateConnectorFields } from '../connectors/store.ts';
import { addRunCounts, finishRun } from '../connectors/runs.ts';
import { nextFullAt, nextIncrementalAt, scheduleFor } from '../connectors/schedule.ts';
import { JobCancelledError } from '../platform/jobs/index.ts';
import { Ops } from '../platform/operations.ts';

export type FailEvent = 'credentials_invalid' | 'settings_invalid' | 'sync_failed';

/**
 * One sync run's lifecycle: the connector's state moves, the run's row and the audit, each written in one place.
 * `rate_limited` is entered only by `rateLimited` and left only by `cleared`; a cancelled run is detected by
 * `stopIfCancelled` (its job was cancelled: the connector was paused or deleted) and ended by `cancel`.
 */
export interface RunLifecycle {
  /** Starts (or resumes) the run: a connector left `rate_limited` by an earlier attempt goes back to `syncing`. */
  begin(): Promise<void>;
  /** The vendor rate-limits the connector until `until`: `rate_limited`, one more wait on the run. True when the state moved. */
  rateLimited(until: Date): Promise<boolean>;
  /** The wait is over: back to `syncing`. */
  cleared(): Promise<void>;
  /** Ends the run `cancelled` and throws JobCancelledError (the job ends cancelled, not failed). */
  cancel(reason: string): Promise<never>;
  /** Cancels the run when its job was cancelled meanwhile (a pause or delete). */
  stopIfCancelled(): Promise<void>;
  /** The run is done: the cursor and the next schedule stored, the run completed, the connector `connected`, audited. */
  complete(cursor: unknown, summary: { pages: number; skippedReason?: string }): Promise<void>;
  /** The run failed for good: the run failed, the connector moved by `event` with `message`, audited. */
  fail(event: FailEvent, message: string): Promise<void>;
}

export function runLifecycle(
  deps: ConnectorDeps,
  run: { tenantId: string; connector: ConnectorRecord; runId: string; jobId: string; syncType: 'incremental' | 'full' },
): RunLifecycle {
  const { tenantId, connector, runId } = run;
  const connectorId = connector.id;
  const transition = (event: Parameters<typeof applyTransition>[3], fields?: Parameters<typeof applyTransition>[4]) =>
    applyTransition(deps.db, tenantId, connectorId, event, fields);
  const cancel = async (reason: string): Promise<never> => {
    await finishRun(deps.db, runId, 'cancelled', deps.clock.now(), reason);
    throw new JobCancelledError(reason);
  };
  return {
    async begin() {
      if (connector.status === 'rate_limited') await transition('rate_limit_cleared');
    },
    async rateLimited(until) {
      const moved = await transition('vendor_rate_limited', { reason: `vendor rate limit: retrying at ${until.toISOString()}`, rateLimitedUntil: until });
      await addRunCounts(deps.db, runId, { rateLimitedWaits: 1 });
      return moved.ok;
    },
    async cleared() {
      await transition('rate_limit_cleared', { rateLimitedUntil: null });
    },
    cancel,
    async stopIfCancelled() {
      const r = await deps.db.query<{ status: string }>('SELECT status FROM jobs WHERE id = $1', [run.jobId]);
      if (r.rows[0]?.status === 'cancelled') await cancel('cancelled (connector paused or deleted)');
    },
    async complete(cursor, summary) {
      const now = deps.clock.now();
      const schedule = scheduleFor(connector.settings, { intervalMinutes: deps.config.connectors.syncIntervalMinutes, fullAtUtc: deps.config.connectors.fullSyncAtUtc });
      await updateConnectorFields(deps.db, tenantId, connectorId, {
        syncCursor: cursor ?? null,
        nextIncrementalAt: nextIncrementalAt(now, schedule),
        ...(run.syncType === 'full' ? { nextFullAt: nextFullAt(now, schedule) } : {}),
      });
      await finishRun(deps.db, runId, 'completed', now);
      await transition('sync_completed', { lastSyncAt: now, lastError: null, rateLimitedUntil: null, reason: summary.skippedReason });
      await recordAudit(deps.db, { tenantId, action: Ops.connectorSyncCompleted, details: { connector_id: connectorId, run_id: runId, sync_type: run.syncType, pages: summary.pages } });
    },
    async fail(event, message) {
      await finishRun(deps.db, runId, 'failed', deps.clock.now(), message);
      await transition(event, { reason: message, lastError: message });
      await recordAudit(deps.db, { tenantId, action: Ops.connectorSyncFailed, details: { connector_id: connectorId, run_id: runId, error: message } });
    },
  };
}
