import { call } from '../api.ts';
import { Badge, ConfirmButton, CopyButton, TableSection } from '../components/ui.tsx';
import { useAction, useLoad } from '../hooks.ts';
import { relativeTime } from '../lib/format.ts';
import { oauthUrls } from '../lib/mcp-config.ts';
import { useSession } from '../session.tsx';

/** The URL to paste into Claude / ChatGPT custom connectors: the MCP endpoint, which announces its OAuth server. */
export function OAuthConnectSection({ origin }: { origin: string }) {
  const urls = oauthUrls(origin);
  return (
    <section aria-labelledby="oauth-h" className="card">
      <h2 id="oauth-h">Sign in from Claude, ChatGPT and other remote MCP clients</h2>
      <p>
        Add a custom connector with this URL. The client registers itself and opens an Atrium sign-in page: people sign in with your single sign-on (or,
        without SSO, paste an API key once), then approve. The client gets its own short-lived token that reads as that person; no key is pasted into
        the client.
      </p>
      <dl className="kv">
        <div>
          <dt>Connector URL</dt>
          <dd>
            <code data-testid="oauth-connector-url">{urls.connector}</code> <CopyButton text={urls.connector} label="Copy connector URL" />
          </dd>
        </div>
        <div>
          <dt>OAuth server metadata</dt>
          <dd>
            <code>{urls.metadata}</code> <CopyButton text={urls.metadata} label="Copy OAuth metadata URL" />
          </dd>
        </div>
      </dl>
    </section>
  );
}

/** Connected applications: the caller's grants (every grant of the tenant for an admin), each revocable. */
export function OAuthGrantsSection() {
  const session = useSession();
  const isAdmin = session.me?.permissions.includes('admin') ?? false;
  const list = useLoad((signal) => call((c) => c.GET('/v1/oauth/grants', { signal })), []);
  const revoke = useAction(async (id: string) => {
    await call((c) => c.DELETE('/v1/oauth/grants/{id}', { params: { path: { id } } }));
    list.reload();
  });
  const now = new Date();
  return (
    <section aria-labelledby="grants-h">
      <h2 id="grants-h">{isAdmin ? 'Connected applications (everyone in this organization)' : 'Your connected applications'}</h2>
      <TableSection error={list.error} actionError={{ error: revoke.error, title: 'Revoke failed' }} loading={list.loading} rows={list.data?.grants} empty={<p className="muted">No application is connected.</p>}>
        {(rows) => (
          <table>
            <thead>
              <tr>
                <th scope="col">Application</th>
                <th scope="col">Person</th>
                <th scope="col">Permissions</th>
                <th scope="col">Approved</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((g) => (
                <tr key={g.grant_id} data-grant={g.grant_id}>
                  <td>
                    {g.client_name}
                    <div className="muted small">{g.redirect_uri}</div>
                  </td>
                  <td>
                    {g.subject.email ?? <Badge tone="info">service key</Badge>}
                    {g.subject.kind === 'api_key' && <div className="muted small">via API key</div>}
                  </td>
                  <td>{g.permissions.join(', ')}</td>
                  <td title={g.created_at}>{relativeTime(g.created_at, now)}</td>
                  <td title={g.last_used_at ?? ''}>{relativeTime(g.last_used_at, now)}</td>
                  <td>
                    <ConfirmButton
                      label="Revoke"
                      title={`Revoke ${g.client_name}'s access?`}
                      body={<p>Its access and refresh tokens stop working at once; the application must ask for approval again.</p>}
                      confirmLabel="Revoke access"
                      onConfirm={() => void revoke.run(g.grant_id)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </TableSection>
    </section>
  );
}
