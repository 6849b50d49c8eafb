import { call } from '../api.ts';
import { LineChart } from '../components/line-chart.tsx';
import { ConfirmButton, ErrorBox, JsonView, Loading, PageTitle } from '../components/ui.tsx';
import { useAction, useLoad } from '../hooks.ts';
import { relativeTime } from '../lib/format.ts';
import { documentSeries, parseSyncRuns, type SyncRun } from '../lib/sync-history.ts';
import { Link, navigate } from '../router.tsx';
import { useSession } from '../session.tsx';
import { deleteConnector, noSyncReason, loadCatalog, oauthUrl, StatusBadge, setPaused, syncConnector } from './connector-shared.tsx';

/** A text field worth showing: null and empty both read as "nothing to show". */
function str(v: string | null | undefined): string | undefined {
  return v || undefined;
}

/**
 * A running sync as it goes (the page refreshes every few seconds): vendors rarely say how many documents there are
 * in all, so the bar is indeterminate and the counts are what was read so far.
 */
function SyncProgress({ run, now }: { run: SyncRun; now: Date }) {
  const read = run.added + run.updated + run.unchanged;
  return (
    <section className="card" aria-live="polite" data-testid="sync-progress">
      <h2>{run.sync_type === 'full' ? 'Full sync' : 'Incremental sync'} in progress</h2>
      <progress aria-label="Sync in progress" />
      <p>
        <strong>{read.toLocaleString()}</strong> documents read over {run.pages.toLocaleString()} {run.pages === 1 ? 'page' : 'pages'}: {run.added.toLocaleString()} new,{' '}
        {run.updated.toLocaleString()} changed, {run.unchanged.toLocaleString()} unchanged, {run.deleted.toLocaleString()} removed · started{' '}
        <span title={run.started_at}>{relativeTime(run.started_at, now)}</span>
      </p>
    </section>
  );
}

export function ConnectorDetailPage({ id }: { id: string }) {
  const session = useSession();
  const writable = session.can('connector:write');
  const detail = useLoad((signal) => call((client) => client.GET('/v1/connectors/{id}', { params: { path: { id } }, signal })), [id], { refreshMs: 4000 });
  const act = useAction(async (fn: () => Promise<void>) => {
    await fn();
    detail.reload();
  });
  const catalog = useLoad((signal) => loadCatalog(signal), []);
  const c = detail.data;
  const now = new Date();
  const status = c?.status ?? 'unknown';
  const type = c?.connector_type ?? '';
  const runs = c ? parseSyncRuns(c.sync_runs) : [];
  const kind = catalog.data?.find((k) => k.connector_type === type);
  // Until the catalogue answers it is unknown whether this kind syncs; if it cannot be read, the service decides.
  const noSync = catalog.data ? noSyncReason(kind) : catalog.error !== undefined ? null : undefined;
  const oauthKind = kind ? kind.oauth || /oauth/i.test(kind.auth_type) : false;
  const schedule = c?.schedule;
  return (
    <>
      <p>
        <Link href="/connectors">← All connectors</Link>
      </p>
      <ErrorBox error={detail.error} />
      <ErrorBox error={act.error} title="Action failed" />
      {detail.loading && !c && <Loading />}
      {c && (
        <>
          <PageTitle>{c.display_name || id}</PageTitle>
          <dl className="kv">
            <div>
              <dt>Status</dt>
              <dd>
                <StatusBadge status={status} />
              </dd>
            </div>
            <div>
              <dt>Type</dt>
              <dd>{type}</dd>
            </div>
            <div>
              <dt>Documents</dt>
              <dd>{c.document_count}</dd>
            </div>
            <div>
              <dt>Last sync</dt>
              <dd title={str(c.last_sync_at)}>{relativeTime(str(c.last_sync_at), now)}</dd>
            </div>
          </dl>
          {runs[0]?.status === 'running' && <SyncProgress run={runs[0]} now={now} />}
          {str(c.status_reason) && <p className="notice">{str(c.status_reason)}</p>}
          {schedule && (str(schedule.next_incremental_at) || str(schedule.next_full_at)) && (
            <p className="muted small">
              Next incremental sync {relativeTime(str(schedule.next_incremental_at), now)} · next full sync {relativeTime(str(schedule.next_full_at), now)}
            </p>
          )}
          {str(c.last_error) && (
            <div className="error" role="alert">
              Last error: {str(c.last_error)}
            </div>
          )}
          {writable && typeof noSync === 'string' && (
            <p className="muted" data-testid="no-sync">
              {noSync}
            </p>
          )}
          {writable && (
            <div className="row">
              {noSync === null && (
                <>
                  <button type="button" disabled={act.pending} onClick={() => void act.run(() => syncConnector(id, false))}>
                    Sync now (incremental)
                  </button>
                  <button type="button" className="secondary" disabled={act.pending} onClick={() => void act.run(() => syncConnector(id, true))}>
                    Full sync
                  </button>
                </>
              )}
              <button type="button" className="secondary" disabled={act.pending} onClick={() => void act.run(() => setPaused(id, status !== 'paused'))}>
                {status === 'paused' ? 'Resume' : 'Pause'}
              </button>
              {oauthKind && (status === 'connecting' || status === 'disconnected' || status === 'error') && (
                <button
                  type="button"
                  className="secondary"
                  disabled={act.pending}
                  onClick={() =>
                    void act.run(async () => {
                      window.location.assign(await oauthUrl(type, id));
                    })
                  }
                >
                  Connect with OAuth
                </button>
              )}
              <ConfirmButton
                label="Delete"
                className="danger"
                title={`Delete “${c.display_name || id}”?`}
                body={<p>Its documents are removed from the index and its sync jobs stop. This cannot be undone.</p>}
                confirmLabel="Delete connector"
                onConfirm={() =>
                  void act.run(async () => {
                    await deleteConnector(id);
                    navigate('/connectors');
                  })
                }
              />
            </div>
          )}
          <SyncHistory runs={runs} now={now} />
          <details>
            <summary>Settings</summary>
            <JsonView value={c.settings} />
          </details>
        </>
      )}
    </>
  );
}

function SyncHistory({ runs, now }: { runs: SyncRun[]; now: Date }) {
  return (
    <section aria-labelledby="history-h">
      <h2 id="history-h">Sync history</h2>
      {runs.length === 0 ? (
        <p className="muted">No sync has run yet.</p>
      ) : (
        <>
          <DocumentsChart runs={runs} />
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col">Added</th>
                  <th scope="col">Updated</th>
                  <th scope="col">Deleted</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {runs.map((r) => (
                  <tr key={r.id}>
                    <td title={r.started_at}>{relativeTime(r.started_at, now)}</td>
                    <td>{r.sync_type}</td>
                    <td>{r.status}</td>
                    <td>{r.added}</td>
                    <td>{r.updated}</td>
                    <td>{r.deleted}</td>
                    <td>{r.error ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

/** Documents after each sync, over time: both axes titled, dates on the time axis. */
function DocumentsChart({ runs }: { runs: SyncRun[] }) {
  const points = documentSeries(runs);
  if (points.length < 2) return null;
  const t0 = points[0]?.t ?? 0;
  const t1 = points[points.length - 1]?.t ?? 0;
  // Within a day the ticks say the time; over days, the date.
  const sameDay = t1 - t0 < 36 * 3600_000;
  const when = (t: number) =>
    new Date(t).toLocaleString('en-GB', sameDay ? { hour: '2-digit', minute: '2-digit' } : { day: 'numeric', month: 'short' });
  return (
    <LineChart
      id="documents-chart"
      title="Documents after each sync"
      points={points.map((p) => ({ x: p.t, y: p.documents }))}
      xLabel={sameDay ? 'Time of sync (local time)' : 'Date of sync'}
      yLabel="Documents (count)"
      formatX={when}
      formatY={(v) => Math.round(v).toLocaleString('en-US')}
    />
  );
}
