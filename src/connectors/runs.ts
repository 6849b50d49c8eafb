import type { Queryable } from '../platform/db/executor.ts';
import { newId } from '../platform/ids.ts';
import type { SyncRun } from './schemas.ts';

export type { SyncRun } from './schemas.ts';

function rowToRun(r: Record<string, unknown>): SyncRun {
  return {
    run_id: String(r.id),
    sync_type: r.sync_type as SyncRun['sync_type'],
    trigger: String(r.trigger),
    status: r.status as SyncRun['status'],
    started_at: new Date(r.started_at as string).toISOString(),
    finished_at: r.finished_at ? new Date(r.finished_at as string).toISOString() : null,
    added: Number(r.added),
    updated: Number(r.updated),
    unchanged: Number(r.unchanged),
    deleted: Number(r.deleted),
    batches: Number(r.batches),
    rate_limited_waits: Number(r.rate_limited_waits),
    error: (r.error as string | null) ?? null,
  };
}

export async function startRun(
  db: Queryable,
  input: { tenantId: string; connectorId: string; syncType: 'incremental' | 'full'; trigger: string; jobId: string; now: Date },
): Promise<string> {
  const id = newId('run');
  await db.query(
    `INSERT INTO connector_sync_runs (id, tenant_id, connector_id, job_id, sync_type, trigger, started_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, input.tenantId, input.connectorId, input.jobId, input.syncType, input.trigger, input.now.toISOString()],
  );
  return id;
}

/** Adds a committed batch's counts to the run. */
export async function addRunCounts(
  db: Queryable,
  runId: string,
  c: { added?: number; updated?: number; unchanged?: number; deleted?: number; batches?: number; rateLimitedWaits?: number },
): Promise<void> {
  await db.query(
    `UPDATE connector_sync_runs SET added = added + $2, updated = updated + $3, unchanged = unchanged + $4,
       deleted = deleted + $5, batches = batches + $6, rate_limited_waits = rate_limited_waits + $7 WHERE id = $1`,
    [runId, c.added ?? 0, c.updated ?? 0, c.unchanged ?? 0, c.deleted ?? 0, c.batches ?? 0, c.rateLimitedWaits ?? 0],
  );
}

export async function finishRun(db: Queryable, runId: string, status: 'completed' | 'failed' | 'cancelled', now: Date, error?: string): Promise<void> {
  await db.query(`UPDATE connector_sync_runs SET status = $2, finished_at = $3, error = $4 WHERE id = $1 AND status = 'running'`, [
    runId,
    status,
    now.toISOString(),
    error ?? null,
  ]);
  await db.query('DELETE FROM connector_sync_seen WHERE run_id = $1', [runId]);
}

export async function getRun(db: Queryable, tenantId: string, runId: string): Promise<SyncRun | null> {
  const r = await db.query('SELECT * FROM connector_sync_runs WHERE tenant_id = $1 AND id = $2', [tenantId, runId]);
  return r.rows[0] ? rowToRun(r.rows[0]) : null;
}

export async function recentRuns(db: Queryable, tenantId: string, connectorId: string, limit = 10): Promise<SyncRun[]> {
  const r = await db.query(
    'SELECT * FROM connector_sync_runs WHERE tenant_id = $1 AND connector_id = $2 ORDER BY seq DESC LIMIT $3',
    [tenantId, connectorId, limit],
  );
  return r.rows.map(rowToRun);
}

/** Records external ids a full sync has seen (idempotent: a resumed batch re-inserts nothing). */
export async function markSeen(db: Queryable, runId: string, externalIds: readonly string[]): Promise<void> {
  if (externalIds.length === 0) return;
  await db.query(
    'INSERT INTO connector_sync_seen (run_id, external_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
    [runId, [...externalIds]],
  );
}

export async function seenIds(db: Queryable, runId: string): Promise<Set<string>> {
  const r = await db.query<{ external_id: string }>('SELECT external_id FROM connector_sync_seen WHERE run_id = $1', [runId]);
  return new Set(r.rows.map((x) => x.external_id));
}
