import { type FormEvent, useEffect, useState } from 'react';
import { call, type OperationResponse } from '../api.ts';
import { ErrorBox, Field } from '../components/ui.tsx';
import { navigate } from '../router.tsx';
import { useSession } from '../session.tsx';

type Created = OperationResponse<'postSetup'>;

/** The one-time code of the start banner's link, taken out of the address bar as soon as it is read. */
function takeCode(): string {
  const code = new URLSearchParams(location.hash.slice(1)).get('code') ?? '';
  if (code) history.replaceState(null, '', location.pathname);
  return code;
}

/**
 * First run (README "First run"): the start banner's link `/setup#code=…` lands here; the code makes the instance's
 * first admin key, shown once, and signs this tab in with it.
 */
export function SetupPage() {
  const session = useSession();
  const [code, setCode] = useState(takeCode);
  const [name, setName] = useState('first admin');
  const [required, setRequired] = useState<boolean | null>(null);
  const [created, setCreated] = useState<Created | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [pending, setPending] = useState(false);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    document.title = 'Set up · Atrium';
    call((c) => c.GET('/v1/setup'), { key: null })
      .then((r) => setRequired(r.setup_required))
      .catch(setError);
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      setCreated(await call((c) => c.POST('/v1/setup', { body: { code: code.trim(), name: name.trim() } }), { key: null }));
    } catch (err) {
      setError(err);
    } finally {
      setPending(false);
    }
  };

  const copy = async () => {
    if (!created) return;
    await navigator.clipboard?.writeText(created.key).catch(() => undefined);
    setCopied(true);
  };

  const proceed = async () => {
    if (!created) return;
    await session.signInWithKey(created.key);
    navigate('/connectors', { replace: true });
  };

  return (
    <main className="signin" id="main">
      <h1>
        <img src="/favicon.svg" alt="" width="32" height="32" /> Set up Atrium
      </h1>
      {created ? (
        <section aria-labelledby="key-h" className="card" data-testid="setup-done">
          <h2 id="key-h">Your admin key</h2>
          <p>
            This is the only time the key <strong>{created.name}</strong> is shown. Keep it in a password manager: it signs in to this
            console, the CLI (<code>ATRIUM_API_KEY</code>) and MCP clients.
          </p>
          <Field label="Admin API key">
            {(id) => <input id={id} readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} spellCheck={false} data-testid="setup-key" />}
          </Field>
          <div className="row">
            <button type="button" className="secondary" onClick={() => void copy()}>
              {copied ? 'Copied' : 'Copy'}
            </button>
            <button type="button" onClick={() => void proceed()}>
              Continue to the console
            </button>
          </div>
        </section>
      ) : required === false ? (
        <section className="card" role="status">
          <h2>This instance is set up</h2>
          <p>
            It already has an API key. <a href="/">Sign in</a> with a key or single sign-on; an admin can make more keys under API keys.
          </p>
        </section>
      ) : (
        <section aria-labelledby="setup-h" className="card">
          <h2 id="setup-h">Create the first admin key</h2>
          <p className="muted">
            The link printed when the service started carries a one-time code (valid for an hour, once). Each start prints a new one until a key
            exists.
          </p>
          <form onSubmit={submit}>
            <Field label="Setup code" hint="Filled in from the link; or paste it from the start banner.">
              {(id, hintId) => (
                <input id={id} value={code} onChange={(e) => setCode(e.target.value)} autoComplete="off" spellCheck={false} required aria-describedby={hintId} />
              )}
            </Field>
            <Field label="Key name">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />}</Field>
            <ErrorBox error={error} />
            <button type="submit" disabled={pending || code.trim() === '' || name.trim() === ''}>
              {pending ? 'Creating…' : 'Create the admin key'}
            </button>
          </form>
        </section>
      )}
    </main>
  );
}
