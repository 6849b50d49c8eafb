import { type FormEvent, useMemo, useState } from 'react';
import { call } from '../api.ts';
import { ConfirmButton, ErrorBox, Field, PageTitle, TableSection } from '../components/ui.tsx';
import { type Loaded, useAction, useLoad } from '../hooks.ts';
import { relativeTime } from '../lib/format.ts';
import { type FormField, fieldsFromSchema, initialValues, valuesToObject } from '../lib/json-schema-form.ts';
import { Link, navigate } from '../router.tsx';
import { useSession } from '../session.tsx';
import { type CatalogKind, deleteConnector, loadCatalog, noSyncReason, StatusBadge, setPaused, syncConnector } from './connector-shared.tsx';
import { SchemaFields } from './schema-fields.tsx';

export function ConnectorsPage() {
  const session = useSession();
  const writable = session.can('connector:write');
  const list = useLoad((signal) => call((c) => c.GET('/v1/connectors', { signal })), [], { refreshMs: 5000 });
  const catalog = useLoad((signal) => loadCatalog(signal), []);
  // Sync buttons wait for the catalogue, which says which kinds have nothing to sync; without it the service decides.
  const noSync = (type: string): string | null | undefined =>
    catalog.data ? noSyncReason(catalog.data.find((k) => k.connector_type === type)) : catalog.error !== undefined ? null : undefined;
  const act = useAction(async (fn: () => Promise<void>) => {
    await fn();
    list.reload();
  });
  const now = new Date();
  return (
    <>
      <PageTitle>Connectors</PageTitle>
      {writable && <AddConnector catalog={catalog} onCreated={list.reload} />}
      <section aria-labelledby="list-h">
        <h2 id="list-h">Connected sources</h2>
        <TableSection
          error={list.error}
          actionError={{ error: act.error, title: 'Action failed' }}
          loading={list.loading}
          rows={list.data?.connectors}
          empty={
            <p className="notice">
              No connectors yet. Add one above, or <Link href="/upload">upload files</Link> (a Slack, Notion or Confluence export, a CSV or JSONL file).
            </p>
          }
        >
          {(rows) => (
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col" title="the documents you may read">Documents</th>
                  <th scope="col">Last sync</th>
                  {writable && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.connector_id} data-connector={c.connector_id}>
                    <td>
                      <Link href={`/connectors/${encodeURIComponent(c.connector_id)}`}>{c.display_name}</Link>
                      <div className="muted small">{c.connector_id}</div>
                    </td>
                    <td>{c.connector_type}</td>
                    <td>
                      <StatusBadge status={c.status} />
                    </td>
                    <td>{c.document_count}</td>
                    <td title={c.last_sync_at ?? ''}>{relativeTime(c.last_sync_at, now)}</td>
                    {writable && (
                      <td className="actions">
                        <SyncButtons reason={noSync(c.connector_type)} disabled={act.pending} onSync={(full) => void act.run(() => syncConnector(c.connector_id, full))} />
                        {c.status === 'paused' ? (
                          <button type="button" className="secondary small" disabled={act.pending} onClick={() => void act.run(() => setPaused(c.connector_id, false))}>
                            Resume
                          </button>
                        ) : (
                          <button type="button" className="secondary small" disabled={act.pending} onClick={() => void act.run(() => setPaused(c.connector_id, true))}>
                            Pause
                          </button>
                        )}
                        <ConfirmButton
                          label="Delete"
                          title={`Delete “${c.display_name}”?`}
                          body={<p>All its documents ({c.document_count} of them visible to you) are removed from the index and its sync jobs stop. This cannot be undone.</p>}
                          confirmLabel="Delete connector"
                          onConfirm={() => void act.run(() => deleteConnector(c.connector_id))}
                        />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </TableSection>
      </section>
    </>
  );
}

/** `reason` null: the kind syncs; a string: why it has nothing to sync; undefined: not known yet. */
function SyncButtons({ reason, disabled, onSync }: { reason: string | null | undefined; disabled: boolean; onSync: (full: boolean) => void }) {
  if (reason === undefined) return null;
  if (reason !== null) {
    return (
      <span className="muted small" title={reason}>
        Nothing to sync
      </span>
    );
  }
  return (
    <>
      <button type="button" className="secondary small" disabled={disabled} onClick={() => onSync(false)}>
        Sync now
      </button>
      <button type="button" className="secondary small" disabled={disabled} onClick={() => onSync(true)}>
        Full sync
      </button>
    </>
  );
}

const CREDENTIAL_KEY: Record<string, string> = { chat: 'token', 'issue tracker': 'api_key', issue_tracker: 'api_key' };

/** Credentials form fields: the catalogue's schema, else one secret named after the kind's convention. */
function credentialFields(kind: CatalogKind): FormField[] {
  const fromSchema = fieldsFromSchema(kind.credentials_schema, { secret: true });
  if (fromSchema.length) return fromSchema;
  if (kind.auth_type === 'none' || kind.connector_type === 'api' || kind.connector_type === 'filesystem') return [];
  const name = CREDENTIAL_KEY[kind.category] ?? 'access_token';
  const oauth = /oauth/i.test(kind.auth_type);
  return [{ name, label: name.replace(/_/g, ' '), kind: 'secret', required: !oauth, description: oauth ? 'Leave empty to connect with OAuth instead.' : undefined }];
}

function AddConnector({ catalog, onCreated }: { catalog: Loaded<CatalogKind[]>; onCreated: () => void }) {
  const [type, setType] = useState('');
  const kind = catalog.data?.find((k) => k.connector_type === type);
  return (
    <section className="card" aria-labelledby="add-h">
      <h2 id="add-h">Add a connector</h2>
      <ErrorBox error={catalog.error} title="The connector catalogue could not be loaded" />
      {catalog.data && (
        <Field label="Kind">
          {(id) => (
            <select id={id} value={type} onChange={(e) => setType(e.target.value)}>
              <option value="">Choose a tool…</option>
              {catalog.data?.map((k) => (
                <option key={k.connector_type} value={k.connector_type}>
                  {k.display_name}
                  {k.category ? ` (${k.category})` : ''}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      {kind && <ConnectorForm key={kind.connector_type} kind={kind} onCreated={onCreated} />}
    </section>
  );
}

function ConnectorForm({ kind, onCreated }: { kind: CatalogKind; onCreated: () => void }) {
  const settingsFields = useMemo(() => fieldsFromSchema(kind.settings_schema), [kind]);
  const credFields = useMemo(() => credentialFields(kind), [kind]);
  const [name, setName] = useState(kind.display_name);
  const [settings, setSettings] = useState(() => initialValues(settingsFields));
  const [creds, setCreds] = useState(() => initialValues(credFields));
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<{ id: string; oauth_url: string | null } | null>(null);
  const create = useAction(async () => {
    const s = valuesToObject(settingsFields, settings);
    const c = valuesToObject(credFields, creds);
    const errors = { ...s.errors, ...c.errors };
    setFieldErrors(errors);
    if (Object.keys(errors).length) return;
    const res = await call((client) =>
      client.POST('/v1/connectors', { body: { connector_type: kind.connector_type, display_name: name.trim(), credentials: c.value, settings: s.value } }),
    );
    setCreated({ id: res.connector_id, oauth_url: res.oauth_url });
    onCreated();
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void create.run();
  };
  if (created) {
    return (
      <div className="notice" role="status">
        <p>
          Connector <code>{created.id}</code> created.
        </p>
        <div className="row">
          {created.oauth_url && (
            <a className="button" href={created.oauth_url}>
              Connect with {kind.display_name}
            </a>
          )}
          <button type="button" className="secondary" onClick={() => navigate(`/connectors/${encodeURIComponent(created.id)}`)}>
            Open connector
          </button>
        </div>
      </div>
    );
  }
  return (
    <form onSubmit={submit} aria-label={`New ${kind.display_name} connector`}>
      <Field label="Display name">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} required />}</Field>
      {credFields.length > 0 && (
        <fieldset>
          <legend>Credentials (encrypted at rest, never shown again)</legend>
          <SchemaFields fields={credFields} values={creds} errors={fieldErrors} onChange={setCreds} idPrefix="cred" />
        </fieldset>
      )}
      {settingsFields.length > 0 && (
        <fieldset>
          <legend>Settings</legend>
          <SchemaFields fields={settingsFields} values={settings} errors={fieldErrors} onChange={setSettings} idPrefix="set" />
        </fieldset>
      )}
      <ErrorBox error={create.error} />
      <button type="submit" disabled={create.pending || !name.trim()}>
        {create.pending ? 'Creating…' : 'Create connector'}
      </button>
    </form>
  );
}
