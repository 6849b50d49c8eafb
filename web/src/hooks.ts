import { useCallback, useEffect, useRef, useState } from 'react';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  reload(): void;
}

/**
 * Runs `load` on mount and whenever `deps` change; `reload()` runs it again. Stale answers are dropped. `loading` is
 * true from the very render in which `deps` change (the data shown is then the previous deps' answer).
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[], opts: { refreshMs?: number } = {}): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  /** The deps the last load was started for: in the render where they change, the data is already stale. */
  const startedFor = useRef<readonly unknown[] | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: deps are the caller's
  useEffect(() => {
    startedFor.current = deps;
    const ctl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    loadRef.current(ctl.signal).then(
      (data) => {
        if (!ctl.signal.aborted) setState({ data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (!ctl.signal.aborted) setState((s) => ({ data: s.data, error, loading: false }));
      },
    );
    return () => ctl.abort();
  }, [...deps, tick]);
  useEffect(() => {
    if (!opts.refreshMs) return;
    const id = window.setInterval(() => setTick((t) => t + 1), opts.refreshMs);
    return () => window.clearInterval(id);
  }, [opts.refreshMs]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const started = startedFor.current;
  const changed = started === null || started.length !== deps.length || deps.some((d, i) => !Object.is(d, started[i]));
  return { ...state, loading: state.loading || changed, reload };
}

/** An action triggered by the user (a button): its pending state and last error. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(
    async (...args: A): Promise<R | undefined> => {
      setPending(true);
      setError(undefined);
      try {
        return await fn(...args);
      } catch (err) {
        setError(err);
        return undefined;
      } finally {
        setPending(false);
      }
    },
    [fn],
  );
  return { run, pending, error, clearError: () => setError(undefined) };
}
