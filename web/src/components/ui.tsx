import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { ApiError, errorMessage } from '../api.ts';

/** The API's own message (and code) for a failed call; never a blank page. */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  if (error === undefined || error === null) return null;
  const code = error instanceof ApiError ? error.code : undefined;
  const status = error instanceof ApiError && error.status ? error.status : undefined;
  const problems = error instanceof ApiError ? problemList(error.details) : [];
  return (
    <div className="error" role="alert">
      {title && <strong>{title}: </strong>}
      <span className="error-message">{errorMessage(error)}</span>
      {code && (
        <span className="error-code">
          {' '}
          ({code}
          {status ? `, HTTP ${status}` : ''})
        </span>
      )}
      {problems.length > 0 && (
        <ul>
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function problemList(details: unknown): string[] {
  if (typeof details !== 'object' || details === null || !('problems' in details)) return [];
  const problems = (details as { problems: unknown }).problems;
  if (!Array.isArray(problems)) return [];
  return problems.map((p) => {
    if (typeof p === 'object' && p !== null) {
      const r = p as Record<string, unknown>;
      return [r.path, r.message].filter((x) => typeof x === 'string' && x).join(': ');
    }
    return String(p);
  });
}

/** A page section that is missing on this server (its capability isn't installed). */
export function Unavailable({ what, path }: { what: string; path: string }) {
  return (
    <div className="notice" role="status">
      {what} is not available on this server: it does not serve <code>{path}</code> yet.
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      {label}
    </p>
  );
}

/**
 * A list's states in one place: the load error (and a failed action's), "Loading…" before the first answer, the
 * `empty` message when the answer has no rows (`null`: nothing; omitted: the table with its headings all the same),
 * and the table, made by `children` from the rows, inside the scrolling `.table-wrap`.
 */
export function TableSection<T>(props: {
  error?: unknown;
  actionError?: { error: unknown; title: string };
  loading?: boolean;
  rows: readonly T[] | undefined;
  empty?: ReactNode;
  busy?: boolean;
  children: (rows: readonly T[]) => ReactNode;
}) {
  const { rows } = props;
  const showTable = rows !== undefined && (rows.length > 0 || props.empty === undefined);
  return (
    <>
      <ErrorBox error={props.error} />
      {props.actionError && <ErrorBox error={props.actionError.error} title={props.actionError.title} />}
      {props.loading && !rows && <Loading />}
      {rows && rows.length === 0 && props.empty}
      {showTable && (
        <div className="table-wrap" aria-busy={props.busy}>
          {props.children(rows)}
        </div>
      )}
    </>
  );
}

export function Badge({ tone = 'neutral', children, title }: { tone?: 'neutral' | 'good' | 'warn' | 'bad' | 'info' | 'critical'; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

export function ProgressBar({ value, label }: { value: number; label: string }) {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
      <div className="progress-fill" style={{ width: `${pct}%` }} />
      <span className="progress-text">{pct} %</span>
    </div>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      setCopied(false);
    }
    window.setTimeout(() => setCopied(null), 2000);
  };
  return (
    <button type="button" className="secondary small" onClick={copy} aria-live="polite">
      {copied === true ? 'Copied' : copied === false ? 'Select and copy manually' : label}
    </button>
  );
}

/** A button that asks for confirmation in a modal dialog (native <dialog>: focus-trapped, Esc closes). */
export function ConfirmButton(props: { label: string; title: string; body: ReactNode; confirmLabel: string; onConfirm: () => void; disabled?: boolean; className?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  return (
    <>
      <button type="button" className={props.className ?? 'danger small'} disabled={props.disabled} onClick={() => ref.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={ref} aria-labelledby={`${id}-t`} className="dialog">
        <h2 id={`${id}-t`}>{props.title}</h2>
        <div>{props.body}</div>
        <div className="row end">
          <button type="button" className="secondary" onClick={() => ref.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => {
              ref.current?.close();
              props.onConfirm();
            }}
          >
            {props.confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

export function Field({ label, hint, children, id }: { label: string; hint?: string; children: (id: string, hintId?: string) => ReactNode; id?: string }) {
  const auto = useId();
  const fid = id ?? auto;
  const hintId = hint ? `${fid}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={fid}>{label}</label>
      {children(fid, hintId)}
      {hint && (
        <small id={hintId} className="muted">
          {hint}
        </small>
      )}
    </div>
  );
}

export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  useEffect(() => {
    if (typeof children === 'string') document.title = `${children} · Atrium`;
  }, [children]);
  return (
    <div className="page-title">
      <h1>{children}</h1>
      {actions && <div className="row">{actions}</div>}
    </div>
  );
}

export function JsonView({ value }: { value: unknown }) {
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
}
