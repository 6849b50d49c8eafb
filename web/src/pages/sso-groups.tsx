import { type FormEvent, useState } from 'react';
import { call } from '../api.ts';
import { ErrorBox, Field } from '../components/ui.tsx';
import { useAction } from '../hooks.ts';
import { type MappingRow, mappingFromRows, rowsFromMapping, SSO_ROLES, type SsoRole } from '../lib/group-mapping.ts';

/** Edits the IdP group → role mapping (admin, member, viewer). */
export function GroupMappingEditor({ mapping, defaultRole, onSaved }: { mapping: Record<string, string>; defaultRole: string; onSaved: () => void }) {
  const [rows, setRows] = useState<MappingRow[]>(() => [...rowsFromMapping(mapping), { group: '', role: 'viewer' }]);
  const [fallback, setFallback] = useState<SsoRole>((SSO_ROLES as readonly string[]).includes(defaultRole) ? (defaultRole as SsoRole) : 'viewer');
  const [saved, setSaved] = useState(false);
  const save = useAction(async () => {
    await call((c) => c.PUT('/v1/auth/sso/group-mapping', { body: { group_mapping: mappingFromRows(rows), default_role: fallback } }));
    setSaved(true);
    onSaved();
  });
  const update = (i: number, patch: Partial<MappingRow>) => {
    setSaved(false);
    setRows((r) => r.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  return (
    <section className="card" aria-labelledby="groups-h">
      <h2 id="groups-h">Group → role mapping</h2>
      <p className="muted">Users in a mapped IdP group get that role (the highest one when several match).</p>
      <form onSubmit={submit}>
        <table className="mapping">
          <thead>
            <tr>
              <th scope="col">IdP group</th>
              <th scope="col">Role</th>
              <th scope="col">
                <span className="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place
              <tr key={i}>
                <td>
                  <input aria-label={`Group ${i + 1}`} value={row.group} onChange={(e) => update(i, { group: e.target.value })} placeholder="e.g. engineering" />
                </td>
                <td>
                  <select aria-label={`Role for group ${i + 1}`} value={row.role} onChange={(e) => update(i, { role: e.target.value as MappingRow['role'] })}>
                    {SSO_ROLES.map((r) => (
                      <option key={r}>{r}</option>
                    ))}
                  </select>
                </td>
                <td>
                  <button type="button" className="secondary small" aria-label={`Remove group ${i + 1}`} onClick={() => setRows((r) => r.filter((_, j) => j !== i))}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <Field label="Role of users in no mapped group">
          {(id) => (
            <select id={id} value={fallback} onChange={(e) => setFallback(e.target.value as SsoRole)} style={{ maxWidth: '12rem' }}>
              {SSO_ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          )}
        </Field>
        <div className="row">
          <button type="button" className="secondary" onClick={() => setRows((r) => [...r, { group: '', role: 'viewer' }])}>
            Add group
          </button>
          <button type="submit" disabled={save.pending}>
            Save mapping
          </button>
        </div>
        <ErrorBox error={save.error} />
        {saved && (
          <p className="notice" role="status">
            Mapping saved.
          </p>
        )}
      </form>
    </section>
  );
}
