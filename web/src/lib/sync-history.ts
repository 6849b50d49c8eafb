// Sync runs as the connector detail (GET /v1/connectors/{id}) returns them, and the documents-over-time series.
import type { OperationResponse } from '../api.ts';

export interface SyncRun {
  readonly id: string;
  readonly sync_type: string;
  readonly status: string;
  readonly started_at: string;
  readonly finished_at: string | null;
  readonly added: number;
  readonly updated: number;
  readonly deleted: number;
  readonly unchanged: number;
  /** Pages read (the run's `batches`). */
  readonly pages: number;
  readonly error: string | null;
}

/** A run as the service reports it. */
export type ApiSyncRun = OperationResponse<'getConnector'>['sync_runs'][number];

/** The connector's runs, newest first. */
export function parseSyncRuns(runs: readonly ApiSyncRun[]): SyncRun[] {
  return runs
    .map((r): SyncRun => ({
      id: r.run_id,
      sync_type: r.sync_type,
      status: r.status,
      started_at: r.started_at,
      finished_at: r.finished_at,
      added: r.added,
      updated: r.updated,
      deleted: r.deleted,
      unchanged: r.unchanged,
      pages: r.batches,
      error: r.error,
    }))
    .sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at));
}

/** Documents after each finished run, oldest first: a running total of added − deleted. */
export function documentSeries(runs: readonly SyncRun[]): { t: number; documents: number }[] {
  const ordered = runs
    .map((r) => ({ r, t: Date.parse(r.finished_at ?? r.started_at) }))
    .filter((x) => Number.isFinite(x.t))
    .sort((a, b) => a.t - b.t);
  let total = 0;
  return ordered.map(({ r, t }) => {
    total = Math.max(0, total + r.added - r.deleted);
    return { t, documents: total };
  });
}
