import { type FormEvent, useState } from 'react';
import { call } from '../api.ts';
import { ErrorBox, Field, Loading, PageTitle } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';

interface Filter {
  readonly action: string;
  readonly since: string;
  readonly until: string;
}

const PAGE_SIZE = 50;

/** "auth.sso" → "auth.sso*": the form filters by prefix unless the user asks for an exact action. */
function actionParam(text: string): string | undefined {
  const t = text.trim();
  if (!t) return undefined;
  if (t.startsWith('=')) return t.slice(1);
  return t.endsWith('*') ? t : `${t}*`;
}

function isoOrUndefined(local: string): string | undefined {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

export function AuditPage() {
  const [draft, setDraft] = useState<Filter>({ action: '', since: '', until: '' });
  const [filter, setFilter] = useState<Filter>(draft);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useLoad(
    (signal) =>
      call((c) =>
        c.GET('/v1/audit', {
          signal,
          params: { query: { action: actionParam(filter.action), since: isoOrUndefined(filter.since), until: isoOrUndefined(filter.until), limit: PAGE_SIZE, cursor } },
        }),
      ),
    [filter, cursor],
  );
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilter(draft);
    setCursors([undefined]);
  };
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <form className="card filters" onSubmit={apply} aria-label="Filter audit events">
        <Field label="Action prefix" hint="e.g. auth.sso, apikey, connector, mcp.tool_invoked; start with = for an exact action">
          {(id, hint) => <input id={id} value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })} aria-describedby={hint} placeholder="auth.sso" />}
        </Field>
        <Field label="From">{(id) => <input id={id} type="datetime-local" value={draft.since} onChange={(e) => setDraft({ ...draft, since: e.target.value })} />}</Field>
        <Field label="Until">{(id) => <input id={id} type="datetime-local" value={draft.until} onChange={(e) => setDraft({ ...draft, until: e.target.value })} />}</Field>
        <div className="row end">
          <button type="submit">Apply filter</button>
        </div>
      </form>
      <ErrorBox error={page.error} />
      {page.loading && !page.data && <Loading />}
      {page.data && (
        <>
          {/* While another page or filter loads, the rows below are the previous answer's: the label says so
              instead of giving the new page number to the old rows. */}
          <p className="muted" aria-live="polite">
            {page.loading ? 'Loading…' : `Page ${cursors.length}: ${page.data.events.length} event${page.data.events.length === 1 ? '' : 's'}`}
          </p>
          <div className="table-wrap" aria-busy={page.loading}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Time (UTC)</th>
                  <th scope="col">Action</th>
                  <th scope="col">User</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {page.data.events.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <time dateTime={e.timestamp}>{e.timestamp.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>
                    </td>
                    <td>
                      <code>{e.action}</code>
                    </td>
                    <td>{e.user_id ?? e.actor_id ?? '—'}</td>
                    <td>
                      <code className="details">{JSON.stringify(e.details)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="row">
            <button type="button" className="secondary" disabled={cursors.length <= 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
              Previous page
            </button>
            <button
              type="button"
              className="secondary"
              disabled={!page.data.next_cursor}
              onClick={() => {
                const next = page.data?.next_cursor;
                if (next) setCursors((c) => [...c, next]);
              }}
            >
              Next page
            </button>
          </div>
        </>
      )}
    </>
  );
}
