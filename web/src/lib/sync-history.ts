// Sync runs as the connector detail returns them, read tolerantly, and the documents-over-time series.

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
  readonly document_count: number | null;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function text(v: unknown): string | null {
  return typeof v === 'string' && v ? v : null;
}

/** Finds the runs under the keys a connector record may use, newest first. */
export function parseSyncRuns(connector: Obj): SyncRun[] {
  const raw = [connector.sync_runs, connector.sync_history, connector.recent_syncs, connector.runs].find(Array.isArray) as unknown[] | undefined;
  if (!raw) return [];
  const runs = raw.filter(isObj).map((r, i): SyncRun => {
    const counts = isObj(r.counts) ? r.counts : r;
    return {
      id: text(r.id) ?? text(r.run_id) ?? String(i),
      sync_type: text(r.sync_type) ?? text(r.type) ?? (r.full === true ? 'full' : 'incremental'),
      status: text(r.status) ?? '',
      started_at: text(r.started_at) ?? text(r.created_at) ?? '',
      finished_at: text(r.finished_at) ?? text(r.completed_at),
      added: num(counts.added),
      updated: num(counts.updated),
      deleted: num(counts.deleted),
      unchanged: num(counts.unchanged),
      pages: num(counts.batches ?? counts.pages),
      error: text(r.error) ?? text(r.last_error),
      document_count: typeof r.document_count === 'number' ? r.document_count : null,
    };
  });
  return runs.sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at));
}

/**
 * Documents after each finished run, oldest first: the run's own document_count when reported,
 * else a running total of added − deleted.
 */
export function documentSeries(runs: readonly SyncRun[]): { t: number; documents: number }[] {
  const ordered = runs
    .map((r) => ({ r, t: Date.parse(r.finished_at ?? r.started_at) }))
    .filter((x) => Number.isFinite(x.t))
    .sort((a, b) => a.t - b.t);
  let total = 0;
  return ordered.map(({ r, t }) => {
    total = r.document_count ?? Math.max(0, total + r.added - r.deleted);
    return { t, documents: total };
  });
}
