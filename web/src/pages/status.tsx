import { call } from '../api.ts';
import { Badge, ErrorBox, Loading, PageTitle, TableSection } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { relativeTime } from '../lib/format.ts';
import { formatBytes } from '../lib/upload.ts';
import { Link } from '../router.tsx';

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  return `${Math.floor(seconds / 86400)} days`;
}

const ROLE: Readonly<Record<string, string>> = { all: 'API and background work in one process', api: 'API only', worker: 'background work only' };

/** What the instance is doing (GET /v1/status, admin): refreshed every 5 s. */
export function StatusPage() {
  const status = useLoad((signal) => call((c) => c.GET('/v1/status', { signal })), [], { refreshMs: 5000 });
  const s = status.data;
  const now = new Date();
  return (
    <>
      <PageTitle>Status</PageTitle>
      <ErrorBox error={status.error} />
      {status.loading && !s && <Loading />}
      {s && (
        <>
          <section className="card" aria-labelledby="storage-h">
            <h2 id="storage-h">Service and storage</h2>
            <dl className="kv" data-testid="status-storage">
              <div>
                <dt>Version</dt>
                <dd>
                  {s.version} · {ROLE[s.role] ?? s.role} · up {duration(s.uptime_seconds)}
                </dd>
              </div>
              <div>
                <dt>Storage</dt>
                <dd title={`storage mode: ${s.storage.mode}`}>{s.storage.mode === 'pglite' ? 'Built-in database (in the data folder)' : 'PostgreSQL server'}</dd>
              </div>
              {s.storage.data_dir && (
                <div>
                  <dt>Data folder</dt>
                  <dd>
                    <code>{s.storage.data_dir}</code>
                  </dd>
                </div>
              )}
              <div>
                <dt>Size</dt>
                <dd title="pg_database_size">{s.storage.size_bytes === null ? 'unknown' : formatBytes(s.storage.size_bytes)}</dd>
              </div>
            </dl>
          </section>
          <section className="card" aria-labelledby="queue-h">
            <h2 id="queue-h">Background work</h2>
            <p data-testid="status-queue">
              <strong>{s.queue.queued}</strong> waiting, <strong>{s.queue.running}</strong> running, {s.queue.failed_last_24h} failed in the last 24 hours
              {s.queue.oldest_queued_at ? ` · oldest waiting since ${relativeTime(s.queue.oldest_queued_at, now)}` : ''}.
            </p>
            <p className="muted" data-testid="status-workers">
              {s.workers.in_this_process ? `This process runs background work, ${s.workers.concurrency} jobs at a time.` : 'This process runs no background work (role api).'}{' '}
              {s.workers.active} worker process{s.workers.active === 1 ? '' : 'es'} busy right now.
            </p>
            <TableSection rows={s.queue.by_kind} empty={null}>
              {(rows) => (
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Kind of job</th>
                      <th scope="col">Waiting</th>
                      <th scope="col">Running</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((k) => (
                      <tr key={k.kind}>
                        <td>
                          <code>{k.kind}</code>
                        </td>
                        <td>{k.queued}</td>
                        <td>{k.running}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </TableSection>
          </section>
          <section className="card" aria-labelledby="syncs-h">
            <h2 id="syncs-h">Last syncs</h2>
            <TableSection rows={s.last_syncs} empty={<p className="muted">No source has synced yet.</p>}>
              {(rows) => (
                <table data-testid="status-syncs">
                  <thead>
                    <tr>
                      <th scope="col">Source</th>
                      <th scope="col">Started</th>
                      <th scope="col">Outcome</th>
                      <th scope="col">Added · changed · removed</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((r) => (
                      <tr key={r.connector_id}>
                        <td>
                          <Link href={`/connectors/${encodeURIComponent(r.connector_id)}`}>{r.display_name}</Link> <span className="muted small">({r.connector_type})</span>
                        </td>
                        <td title={r.started_at}>{relativeTime(r.started_at, now)}</td>
                        <td>
                          <Badge tone={r.status === 'completed' ? 'good' : r.status === 'failed' ? 'bad' : 'info'}>{r.status}</Badge> {r.error ?? ''}
                        </td>
                        <td>
                          {r.added} · {r.updated} · {r.deleted}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </TableSection>
          </section>
          <section className="card" aria-labelledby="models-h">
            <h2 id="models-h">Embedding models</h2>
            <div className="table-wrap">
              <table data-testid="status-models">
                <thead>
                  <tr>
                    <th scope="col">Model</th>
                    <th scope="col">Vector size</th>
                    <th scope="col">Load time</th>
                  </tr>
                </thead>
                <tbody>
                  {s.models.map((m) => (
                    <tr key={m.model}>
                      <td>
                        <code>{m.model}</code> {m.default && <Badge tone="info">default</Badge>}
                      </td>
                      <td>{m.dimensions} numbers</td>
                      <td>{m.load_ms === null ? <span className="muted">not loaded yet (loads on first use)</span> : `${(m.load_ms / 1000).toFixed(2)} s`}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        </>
      )}
    </>
  );
}
