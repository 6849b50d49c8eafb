import { type FormEvent, useState } from 'react';
import { call } from '../api.ts';
import { Badge, ConfirmButton, CopyButton, ErrorBox, Field, PageTitle, TableSection } from '../components/ui.tsx';
import { useAction, useLoad } from '../hooks.ts';
import { relativeTime } from '../lib/format.ts';
import { type Permission, useSession } from '../session.tsx';

const ALL: readonly Permission[] = ['query', 'connector:read', 'connector:write', 'ai_usage:read', 'admin'];

export function ApiKeysPage() {
  const session = useSession();
  // The key this console is signed in with (GET /v1/me names a key principal by the key's id).
  const currentKeyId = session.me && session.me.kind !== 'session' ? session.me.id : null;
  const list = useLoad((signal) => call((c) => c.GET('/v1/api-keys', { signal })), []);
  const [name, setName] = useState('');
  const [perms, setPerms] = useState<Set<Permission>>(new Set(['query']));
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const create = useAction(async () => {
    const res = await call((c) => c.POST('/v1/api-keys', { body: { name: name.trim(), permissions: ALL.filter((p) => perms.has(p)) } }));
    setCreated({ name: res.name, key: res.key });
    setName('');
    list.reload();
  });
  const revoke = useAction(async (id: string) => {
    await call((c) => c.DELETE('/v1/api-keys/{id}', { params: { path: { id } } }));
    if (id === currentKeyId) await session.signOut('You revoked the API key you were signed in with. Sign in with another key.');
    else list.reload();
  });
  const toggle = (p: Permission) =>
    setPerms((s) => {
      const n = new Set(s);
      if (n.has(p)) n.delete(p);
      else n.add(p);
      return n;
    });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void create.run();
  };
  const now = new Date();
  return (
    <>
      <PageTitle>API keys</PageTitle>
      <section className="card" aria-labelledby="new-key">
        <h2 id="new-key">Create a key</h2>
        <form onSubmit={submit}>
          <Field label="Name">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />}</Field>
          <fieldset>
            <legend>Permissions</legend>
            {ALL.map((p) => (
              <label key={p} className="check">
                <input type="checkbox" checked={perms.has(p)} onChange={() => toggle(p)} /> {p}
              </label>
            ))}
          </fieldset>
          <ErrorBox error={create.error} />
          <button type="submit" disabled={create.pending || !name.trim() || perms.size === 0}>
            Create key
          </button>
        </form>
        {created && (
          <div className="secret-once" role="status">
            <p>
              <strong>Key “{created.name}” created.</strong> Copy it now: it is shown only once.
            </p>
            <div className="row">
              <code className="secret" data-testid="new-key">
                {created.key}
              </code>
              <CopyButton text={created.key} />
              <button type="button" className="secondary small" onClick={() => setCreated(null)}>
                Done
              </button>
            </div>
          </div>
        )}
      </section>
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">Keys</h2>
        <TableSection error={list.error} actionError={{ error: revoke.error, title: 'Revoke failed' }} loading={list.loading} rows={list.data?.api_keys}>
          {(rows) => (
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Permissions</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((k) => (
                  <tr key={k.id} data-key-name={k.name}>
                    <td>
                      {k.name}
                      {k.id === currentKeyId && (
                        <>
                          {' '}
                          <Badge tone="info">signed in with this key</Badge>
                        </>
                      )}
                    </td>
                    <td>
                      <code>{k.key_prefix}…</code>
                    </td>
                    <td>{k.permissions.join(', ')}</td>
                    <td title={k.created_at}>{relativeTime(k.created_at, now)}</td>
                    <td title={k.last_used_at ?? ''}>{relativeTime(k.last_used_at, now)}</td>
                    <td>{k.revoked_at ? <Badge tone="bad">revoked</Badge> : <Badge tone="good">active</Badge>}</td>
                    <td>
                      {!k.revoked_at &&
                        (k.id === currentKeyId ? (
                          <ConfirmButton
                            label="Revoke"
                            title={`Revoke “${k.name}”, the key you are signed in with?`}
                            body={
                              <>
                                <p>
                                  <strong>You are signed in to this console with this key.</strong> Revoking it signs you out at once; you will need another key
                                  (or single sign-on) to sign in again.
                                </p>
                                <p>Clients using this key will get 401 from now on. This cannot be undone.</p>
                              </>
                            }
                            confirmLabel="Revoke my key and sign out"
                            onConfirm={() => void revoke.run(k.id)}
                          />
                        ) : (
                          <ConfirmButton
                            label="Revoke"
                            title={`Revoke “${k.name}”?`}
                            body={<p>Clients using this key will get 401 from now on. This cannot be undone.</p>}
                            confirmLabel="Revoke key"
                            onConfirm={() => void revoke.run(k.id)}
                          />
                        ))}
                    </td>
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
