import { type FormEvent, useState } from 'react';
import { call, type OperationResponse } from '../api.ts';
import { Badge, ErrorBox, Loading, PageTitle, TableSection } from '../components/ui.tsx';
import { useAction, useLoad } from '../hooks.ts';
import { useSession } from '../session.tsx';

/** An identity of a connected tool, as GET /v1/identity/accounts lists it. */
type Account = OperationResponse<'getIdentityAccounts'>['accounts'][number];

/** A short list of codes, or a dash. */
function Codes({ items, none = '—' }: { items: readonly string[]; none?: string }) {
  if (items.length === 0) return <span className="muted">{none}</span>;
  return (
    <ul className="inline-list">
      {items.map((i) => (
        <li key={i}>
          <code>{i}</code>
        </li>
      ))}
    </ul>
  );
}

/** What retrieval filters the caller's searches by (GET /v1/me → view). */
function YourAccess() {
  const me = useLoad((signal) => call((c) => c.GET('/v1/me', { signal })), []);
  const v = me.data?.view;
  return (
    <section className="card" aria-labelledby="you-h">
      <h2 id="you-h">Your access</h2>
      <ErrorBox error={me.error} />
      {me.loading && !v && <Loading />}
      {v && (
        <>
          <p>
            {v.kind === 'person' && (
              <>
                You read as <strong>{v.email}</strong>: documents without an ACL, public ones, and those shared with you or your groups.
              </>
            )}
            {v.kind === 'service' && <>This credential is a service key: it reads only documents everyone in the tenant may read.</>}
            {v.kind === 'bypass' && <>This view ignores ACLs (an audited admin bypass).</>}
          </p>
          <dl className="kv">
            {(
              [
                ['IdP groups', v.idp_groups],
                ['Vendor accounts', v.vendor_accounts],
                ['Vendor groups', v.vendor_groups],
              ] as const
            ).map(([label, items]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>
                  <Codes items={items} />
                </dd>
              </div>
            ))}
          </dl>
        </>
      )}
    </section>
  );
}

function MapAccountForm({ account, onMapped }: { account: Account; onMapped: (email: string) => void }) {
  const [email, setEmail] = useState('');
  const map = useAction(async () => {
    await call((c) => c.PUT('/v1/identity/accounts/{account_id}', { params: { path: { account_id: account.account_id } }, body: { email: email.trim() } }));
    onMapped(email.trim().toLowerCase());
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void map.run();
  };
  return (
    <form className="row" onSubmit={submit} aria-label={`Map ${account.account_id}`}>
      <input
        type="email"
        required
        aria-label={`Email for ${account.account_id}`}
        placeholder="person@example.com"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        style={{ maxWidth: '16rem' }}
      />
      <button type="submit" className="small" disabled={map.pending}>
        Map
      </button>
      <ErrorBox error={map.error} />
    </form>
  );
}

/** The identity directory for admins: people, their vendor identities and groups, and the identities nobody resolves. */
function Directory() {
  const people = useLoad((signal) => call((c) => c.GET('/v1/identity/people', { signal })), []);
  const unresolved = useLoad((signal) => call((c) => c.GET('/v1/identity/accounts', { signal, params: { query: { unresolved: 'true' } } })), []);
  const [done, setDone] = useState<string | null>(null);
  const mapped = (account: string, email: string) => {
    setDone(`${account} is now ${email}.`);
    people.reload();
    unresolved.reload();
  };
  return (
    <>
      <section className="card" aria-labelledby="unresolved-h">
        <h2 id="unresolved-h">Unresolved vendor identities</h2>
        <p className="muted">
          Accounts a connector saw whose vendor hides the email. What is shared with them reaches nobody until you map each to a person; a hand mapping
          survives syncs.
        </p>
        {done && (
          <p className="notice" role="status">
            {done}
          </p>
        )}
        <TableSection error={unresolved.error} loading={unresolved.loading} rows={unresolved.data?.accounts} empty={<p>Every vendor identity resolves to a person.</p>}>
          {(rows) => (
            <table aria-label="Unresolved vendor identities">
              <thead>
                <tr>
                  <th scope="col">Account</th>
                  <th scope="col">Name</th>
                  <th scope="col">Connector</th>
                  <th scope="col">Groups</th>
                  <th scope="col">Map to</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((a) => (
                  <tr key={a.account_id}>
                    <td>
                      <code>{a.account_id}</code>
                    </td>
                    <td>{a.display_name ?? <span className="muted">—</span>}</td>
                    <td>{a.connector_id}</td>
                    <td>
                      <Codes items={a.groups} />
                    </td>
                    <td>
                      <MapAccountForm account={a} onMapped={(email) => mapped(a.account_id, email)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </TableSection>
      </section>
      <section className="card" aria-labelledby="people-h">
        <h2 id="people-h">People</h2>
        <p className="muted">Everyone retrieval knows: SSO users and the emails vendor accounts resolve to, with the groups that decide what they read.</p>
        <TableSection error={people.error} loading={people.loading} rows={people.data?.people} empty={<p>No people yet: they appear when someone signs in through SSO or a connector syncs its users.</p>}>
          {(rows) => (
            <table aria-label="People">
              <thead>
                <tr>
                  <th scope="col">Person</th>
                  <th scope="col">Vendor identities</th>
                  <th scope="col">Vendor groups</th>
                  <th scope="col">IdP groups</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((p) => (
                  <tr key={p.email}>
                    <td>
                      {p.display_name && (
                        <>
                          {p.display_name}
                          <br />
                        </>
                      )}
                      <code>{p.email}</code>
                    </td>
                    <td>
                      <Codes items={p.accounts} />
                    </td>
                    <td>
                      <Codes items={p.vendor_groups} />
                    </td>
                    <td>
                      <Codes items={p.idp_groups} />
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

/** "People & access": the caller's own view, and for admins the identity directory (docs/permissions.md). */
export function PeoplePage() {
  const session = useSession();
  const admin = session.can('admin');
  return (
    <>
      <PageTitle actions={admin ? <Badge tone="info">admin</Badge> : undefined}>People &amp; access</PageTitle>
      <YourAccess />
      {admin && <Directory />}
    </>
  );
}
