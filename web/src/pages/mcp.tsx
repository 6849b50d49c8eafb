import { call } from '../api.ts';
import { CopyButton, ErrorBox, Loading, PageTitle } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { clientConfigs, KEY_PLACEHOLDER, mcpEndpoints } from '../lib/mcp-config.ts';
import { OAuthConnectSection, OAuthGrantsSection } from './mcp-oauth.tsx';

export function McpPage() {
  const origin = location.origin;
  const endpoints = mcpEndpoints(origin);
  const tools = useLoad((signal) => call((c) => c.GET('/v1/expose/mcp/tools', { signal })), []);
  return (
    <>
      <PageTitle>MCP</PageTitle>
      <p>
        AI assistants reach Atrium as an MCP server. Replace <code>{KEY_PLACEHOLDER}</code> with an API key; the tools a key can use follow its permissions.
      </p>
      <dl className="kv">
        <div>
          <dt>Streamable HTTP</dt>
          <dd>
            <code>{endpoints.http}</code> <CopyButton text={endpoints.http} />
          </dd>
        </div>
        <div>
          <dt>WebSocket</dt>
          <dd>
            <code>{endpoints.ws}</code> <CopyButton text={endpoints.ws} />
          </dd>
        </div>
      </dl>
      <OAuthConnectSection origin={origin} />
      <section aria-labelledby="tools-h">
        <h2 id="tools-h">Tools available to you</h2>
        <ErrorBox error={tools.error} />
        {tools.loading && !tools.data && <Loading />}
        {tools.data && (
          <ul className="tools">
            {tools.data.tools.map((t) => (
              <li key={t.name}>
                <code>{t.name}</code>
                <span className="muted"> ({Object.keys(t.parameters).join(', ') || 'no parameters'})</span>
                {t.description && <div className="muted small">{t.description}</div>}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="configs-h">
        <h2 id="configs-h">Client configurations</h2>
        {clientConfigs(origin).map((c) => (
          <article key={c.id} className="card config">
            <div className="row spread">
              <h3>{c.title}</h3>
              <CopyButton text={c.text} label={`Copy ${c.title} configuration`} />
            </div>
            <p className="muted small">{c.where}</p>
            <pre>
              <code>{c.text}</code>
            </pre>
          </article>
        ))}
      </section>
      <OAuthGrantsSection />
    </>
  );
}
