import { type FormEvent, useEffect, useState } from 'react';
import { call, type OperationResponse } from '../api.ts';
import { ErrorBox, Field } from '../components/ui.tsx';
import { ssoErrorMessage } from '../lib/sso-errors.ts';
import { useSession } from '../session.tsx';

type SsoStatus = OperationResponse<'getAuthSsoStatus'>;

export function SignInPage() {
  const session = useSession();
  const [key, setKey] = useState('');
  const [tenant, setTenant] = useState(() => new URLSearchParams(location.search).get('tenant_id') ?? 'default');
  const [error, setError] = useState<unknown>(undefined);
  const [pending, setPending] = useState(false);
  // null: the service would not say (its status endpoint may need a credential); then offer SSO anyway.
  const [sso, setSso] = useState<SsoStatus | null>(null);
  // Only the console's own text for the code: the parameter comes from a link anyone can craft.
  const ssoError = ssoErrorMessage(new URLSearchParams(location.search).get('sso_error'));

  useEffect(() => {
    document.title = 'Sign in · Atrium';
    const ctl = new AbortController();
    const t = window.setTimeout(() => {
      call((c) => c.GET('/v1/auth/sso/status', { params: { query: { tenant_id: tenant } }, signal: ctl.signal }), { key: null })
        .then(setSso)
        .catch(() => setSso(null));
    }, 250);
    return () => {
      window.clearTimeout(t);
      ctl.abort();
    };
  }, [tenant]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      await session.signInWithKey(key.trim());
    } catch (err) {
      setError(err);
    } finally {
      setPending(false);
    }
  };

  const ssoHref = `/v1/auth/sso/login?tenant_id=${encodeURIComponent(tenant)}`;
  return (
    <main className="signin" id="main">
      <h1>
        <img src="/favicon.svg" alt="" width="32" height="32" /> Sign in to Atrium
      </h1>
      <ErrorBox error={session.error} title="The service answered with an error" />
      {session.notice && (
        <div className="error" role="alert" data-testid="signed-out-notice">
          {session.notice}
        </div>
      )}
      {ssoError && (
        <div className="error" role="alert" data-testid="sso-error">
          {ssoError}
        </div>
      )}
      <section aria-labelledby="sso-h" className="card">
        <h2 id="sso-h">Single sign-on</h2>
        <Field label="Organization (tenant id)">
          {(id) => <input id={id} value={tenant} onChange={(e) => setTenant(e.target.value)} autoComplete="organization" />}
        </Field>
        {sso === null ? (
          <>
            <a className="button" href={ssoHref}>
              Sign in with single sign-on
            </a>
            <p className="muted small">If your organization has single sign-on configured; otherwise use an API key.</p>
          </>
        ) : sso.enabled ? (
          <a className="button" href={ssoHref}>
            Sign in with {sso.provider_name || (sso.provider_type ? sso.provider_type.toUpperCase() : 'SSO')}
          </a>
        ) : (
          <p className="muted">Single sign-on is not configured for this organization. Use an API key.</p>
        )}
      </section>
      <section aria-labelledby="key-h" className="card">
        <h2 id="key-h">With an API key</h2>
        <form onSubmit={submit}>
          <Field label="API key" hint="Kept in this browser tab only (sessionStorage), sent as Authorization: Bearer.">
            {(id, hintId) => (
              <input
                id={id}
                type="password"
                value={key}
                onChange={(e) => setKey(e.target.value)}
                autoComplete="off"
                spellCheck={false}
                required
                aria-describedby={hintId}
              />
            )}
          </Field>
          <ErrorBox error={error} />
          <button type="submit" disabled={pending || key.trim() === ''}>
            {pending ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </section>
    </main>
  );
}
