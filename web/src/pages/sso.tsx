import { type FormEvent, useEffect, useState } from 'react';
import { call, type OperationResponse } from '../api.ts';
import { Badge, ErrorBox, Field, JsonView, Loading, PageTitle } from '../components/ui.tsx';
import { useAction, useLoad } from '../hooks.ts';
import { relativeTime } from '../lib/format.ts';
import { GroupMappingEditor } from './sso-groups.tsx';

export type SsoConfigView = OperationResponse<'getAuthSsoConfig'>;

export function SsoPage() {
  const status = useLoad((signal) => call((c) => c.GET('/v1/auth/sso/status', { signal })), []);
  const config = useLoad((signal) => call((c) => c.GET('/v1/auth/sso/config', { signal })), []);
  const [tab, setTab] = useState<'saml' | 'oidc'>('saml');
  const s = status.data;
  const c = config.data;
  const reload = () => {
    status.reload();
    config.reload();
  };
  useEffect(() => {
    if (c?.active_provider) setTab(c.active_provider);
  }, [c?.active_provider]);
  return (
    <>
      <PageTitle>Single sign-on</PageTitle>
      <section className="card" aria-labelledby="status-h">
        <h2 id="status-h">Status</h2>
        <ErrorBox error={status.error} />
        {status.loading && !s && <Loading />}
        {s && (
          <dl className="kv" data-testid="sso-status">
            <div>
              <dt>Enabled</dt>
              <dd>{s.enabled ? <Badge tone="good">enabled</Badge> : <Badge>not configured</Badge>}</dd>
            </div>
            <div>
              <dt>Provider</dt>
              <dd>{s.provider_type ? `${s.provider_type}${s.provider_name ? ` · ${s.provider_name}` : ''}` : '—'}</dd>
            </div>
            <div>
              <dt>Last login</dt>
              <dd title={s.last_login ?? ''}>{relativeTime(s.last_login, new Date())}</dd>
            </div>
          </dl>
        )}
        <ErrorBox error={config.error} title="Configuration" />
        {c && <DebugToggle initial={c.debug_mode} ttl={c.session_ttl_seconds} onChanged={reload} />}
      </section>
      <section className="card" aria-labelledby="provider-h">
        <h2 id="provider-h">Identity provider</h2>
        <p className="muted">Saving a SAML or OIDC configuration makes it the organization's active sign-on provider.</p>
        <div
          className="tabs"
          role="tablist"
          aria-label="Protocol"
          onKeyDown={(e) => {
            // The tabs pattern: arrow keys move between tabs, Tab moves into the panel.
            if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
            const next = tab === 'saml' ? 'oidc' : 'saml';
            setTab(next);
            document.getElementById(`tab-${next}`)?.focus();
          }}
        >
          {(['saml', 'oidc'] as const).map((t) => (
            <button
              key={t}
              id={`tab-${t}`}
              type="button"
              role="tab"
              aria-selected={tab === t}
              aria-controls="provider-panel"
              tabIndex={tab === t ? 0 : -1}
              className={tab === t ? 'tab active' : 'tab'}
              onClick={() => setTab(t)}
            >
              {t === 'saml' ? 'SAML 2.0' : 'OpenID Connect'}
            </button>
          ))}
        </div>
        <div role="tabpanel" id="provider-panel" aria-labelledby={`tab-${tab}`}>
          {!c && !config.error ? <Loading /> : tab === 'saml' ? <SamlForm current={c?.saml ?? null} sp={c?.service_provider} onSaved={reload} /> : <OidcForm current={c?.oidc ?? null} sp={c?.service_provider} onSaved={reload} />}
        </div>
      </section>
      {c && <GroupMappingEditor mapping={c.group_mapping} defaultRole={c.default_role} onSaved={reload} />}
      <TestPanel />
    </>
  );
}

function Saved({ value }: { value: SsoConfigView | undefined }) {
  if (value === undefined) return null;
  return (
    <div className="notice" role="status">
      Saved.
      <details>
        <summary>Stored configuration</summary>
        <JsonView value={value} />
      </details>
    </div>
  );
}

function SamlForm({ current, sp, onSaved }: { current: SsoConfigView['saml']; sp: SsoConfigView['service_provider'] | undefined; onSaved: () => void }) {
  const [f, setF] = useState({
    idp_entity_id: current?.idp_entity_id ?? '',
    idp_sso_url: current?.idp_sso_url ?? '',
    idp_certificate: current?.idp_certificate ?? '',
    email: current?.attribute_mapping.email ?? '',
    name: current?.attribute_mapping.name ?? '',
    groups: current?.attribute_mapping.groups ?? '',
  });
  const [saved, setSaved] = useState<SsoConfigView | undefined>(undefined);
  const save = useAction(async () => {
    const mapping = Object.fromEntries((['email', 'name', 'groups'] as const).filter((k) => f[k].trim()).map((k) => [k, f[k].trim()]));
    const body = { idp_entity_id: f.idp_entity_id.trim(), idp_sso_url: f.idp_sso_url.trim(), idp_certificate: f.idp_certificate.trim(), ...(Object.keys(mapping).length ? { attribute_mapping: mapping } : {}) };
    setSaved(await call((c) => c.POST('/v1/auth/sso/saml', { body })));
    onSaved();
  });
  const metadata = useAction(async () => {
    const xml = await call((c) => c.GET('/v1/auth/sso/saml/metadata', { parseAs: 'text', headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' } }));
    const url = URL.createObjectURL(new Blob([xml], { type: 'application/xml' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'atrium-sp-metadata.xml';
    a.click();
    window.setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  return (
    <form onSubmit={submit} aria-label="SAML configuration">
      <p>
        Service-provider values for your IdP: ACS <code>{sp?.acs_url ?? `${location.origin}/v1/auth/saml/callback`}</code> (HTTP-POST), audience{' '}
        <code>{sp?.entity_id ?? location.origin}</code>, NameID format emailAddress.{' '}
        <button type="button" className="secondary small" onClick={() => void metadata.run()} disabled={metadata.pending}>
          Download SP metadata
        </button>
      </p>
      <ErrorBox error={metadata.error} title="Metadata" />
      {current?.certificate && (
        <p className="muted small">
          Current certificate: {current.certificate.subject}, valid until {current.certificate.not_after}
        </p>
      )}
      <Field label="IdP entity ID">{(id) => <input id={id} value={f.idp_entity_id} onChange={set('idp_entity_id')} required />}</Field>
      <Field label="IdP SSO URL">{(id) => <input id={id} type="url" value={f.idp_sso_url} onChange={set('idp_sso_url')} required />}</Field>
      <Field label="IdP certificate (PEM)">
        {(id) => <textarea id={id} rows={5} value={f.idp_certificate} onChange={set('idp_certificate')} required placeholder="-----BEGIN CERTIFICATE-----" spellCheck={false} />}
      </Field>
      <fieldset>
        <legend>Attribute mapping (empty: the usual attribute names)</legend>
        <div className="grid">
          <Field label="Email attribute">{(id) => <input id={id} value={f.email} onChange={set('email')} placeholder="email, NameID or mail" />}</Field>
          <Field label="Name attribute">{(id) => <input id={id} value={f.name} onChange={set('name')} placeholder="displayName" />}</Field>
          <Field label="Groups attribute">{(id) => <input id={id} value={f.groups} onChange={set('groups')} placeholder="groups or memberOf" />}</Field>
        </div>
      </fieldset>
      <ErrorBox error={save.error} />
      <Saved value={saved} />
      <button type="submit" disabled={save.pending}>
        Save SAML configuration
      </button>
    </form>
  );
}

function OidcForm({ current, sp, onSaved }: { current: SsoConfigView['oidc']; sp: SsoConfigView['service_provider'] | undefined; onSaved: () => void }) {
  const [f, setF] = useState({ issuer_url: current?.issuer_url ?? '', client_id: current?.client_id ?? '', client_secret: '', scopes: (current?.scopes ?? ['openid', 'profile', 'email']).join(' ') });
  const [saved, setSaved] = useState<SsoConfigView | undefined>(undefined);
  const save = useAction(async () => {
    const body = { issuer_url: f.issuer_url.trim(), client_id: f.client_id.trim(), client_secret: f.client_secret, scopes: f.scopes.split(/[\s,]+/).filter(Boolean) };
    setSaved(await call((c) => c.POST('/v1/auth/sso/oidc', { body })));
    setF((x) => ({ ...x, client_secret: '' }));
    onSaved();
  });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run();
  };
  return (
    <form onSubmit={submit} aria-label="OIDC configuration">
      <p>
        Redirect URI for your IdP: <code>{sp?.oidc_redirect_uri ?? `${location.origin}/v1/auth/oidc/callback`}</code>
        {current?.client_secret_set && <span className="muted"> · a client secret is stored (enter it again to change the configuration)</span>}
      </p>
      <Field label="Issuer URL">{(id) => <input id={id} type="url" value={f.issuer_url} onChange={set('issuer_url')} required />}</Field>
      <Field label="Client ID">{(id) => <input id={id} value={f.client_id} onChange={set('client_id')} required />}</Field>
      <Field label="Client secret" hint="Encrypted at rest and never shown again.">
        {(id, h) => <input id={id} type="password" value={f.client_secret} onChange={set('client_secret')} required autoComplete="off" aria-describedby={h} />}
      </Field>
      <Field label="Scopes" hint="space-separated; must include openid, profile and email">
        {(id, h) => <input id={id} value={f.scopes} onChange={set('scopes')} aria-describedby={h} />}
      </Field>
      <ErrorBox error={save.error} />
      <Saved value={saved} />
      <button type="submit" disabled={save.pending}>
        Save OIDC configuration
      </button>
    </form>
  );
}

function DebugToggle({ initial, ttl, onChanged }: { initial: boolean; ttl: number; onChanged: () => void }) {
  const [debug, setDebug] = useState(initial);
  const [ttlText, setTtlText] = useState(String(ttl));
  useEffect(() => setDebug(initial), [initial]);
  const save = useAction(async (next: { debug_mode: boolean; session_ttl_seconds?: number }) => {
    setDebug(next.debug_mode);
    try {
      await call((c) => c.PATCH('/v1/auth/sso/config', { body: next }));
    } catch (err) {
      setDebug(!next.debug_mode);
      throw err;
    }
    onChanged();
  });
  return (
    <>
      <div className="field">
        <label className="check">
          <input type="checkbox" checked={debug} disabled={save.pending} onChange={(e) => void save.run({ debug_mode: e.target.checked })} /> Debug mode (verbose SSO logging, no secrets)
        </label>
      </div>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run({ debug_mode: debug, session_ttl_seconds: Number(ttlText) });
        }}
      >
        <label htmlFor="ttl">Session lifetime (seconds)</label>
        <input id="ttl" type="number" min={60} max={2592000} value={ttlText} onChange={(e) => setTtlText(e.target.value)} style={{ maxWidth: '10rem' }} />
        <button type="submit" className="secondary small" disabled={save.pending}>
          Save lifetime
        </button>
      </form>
      <ErrorBox error={save.error} />
    </>
  );
}

type TestReport = OperationResponse<'postAuthSsoTest'>;

function TestPanel() {
  const [samlResponse, setSamlResponse] = useState('');
  const test = useAction(async () =>
    call((c) => c.POST('/v1/auth/sso/test', { body: { test_mode: true, ...(samlResponse.trim() ? { saml_response: samlResponse.trim() } : {}) } })),
  );
  const [result, setResult] = useState<TestReport | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await test.run();
    if (r) setResult(r);
  };
  const problems = result?.problems ?? [];
  const checks = result?.checks ?? [];
  return (
    <section className="card" aria-labelledby="test-h">
      <h2 id="test-h">Test the configuration</h2>
      <p className="muted">Checks the configuration without affecting sign-in, and dry-run parses a pasted SAML response: no user or session is created.</p>
      <form onSubmit={(e) => void submit(e)}>
        <Field label="SAML response to dry-run (optional, base64 as the IdP posts it)">
          {(id) => <textarea id={id} rows={4} value={samlResponse} onChange={(e) => setSamlResponse(e.target.value)} spellCheck={false} />}
        </Field>
        <ErrorBox error={test.error} />
        <button type="submit" disabled={test.pending}>
          {test.pending ? 'Testing…' : 'Run test'}
        </button>
      </form>
      {result && (
        <div className="test-result" aria-live="polite">
          {result.ok ? <Badge tone="good">configuration valid</Badge> : problems.length > 0 ? <Badge tone="bad">{problems.length} problem(s)</Badge> : null}
          {checks.length > 0 && (
            <ul className="checks">
              {checks.map((c) => (
                <li key={c.name}>
                  {c.ok ? <Badge tone="good">ok</Badge> : <Badge tone="bad">failed</Badge>} {c.name.replace(/_/g, ' ')}
                </li>
              ))}
            </ul>
          )}
          {problems.length > 0 && (
            <ul className="problems">
              {problems.map((p, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: positional list
                <li key={i}>
                  {p.code && <code>{p.code}</code>} {p.message}
                  {p.remedy && <div className="remedy">Remedy: {p.remedy}</div>}
                </li>
              ))}
            </ul>
          )}
          <details open={problems.length === 0}>
            <summary>Full report (extracted attributes, mapped user and role)</summary>
            <JsonView value={result} />
          </details>
        </div>
      )}
    </section>
  );
}
