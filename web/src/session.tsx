import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useState } from 'react';
import { ApiError, call, type OperationResponse, onUnauthorized, storedKey, storeKey } from './api.ts';

/** Who is signed in, as GET /v1/me answers it (types generated from the OpenAPI document). */
export type Me = OperationResponse<'getMe'>;
export type Permission = Me['permissions'][number];

/** Shown on the sign-in page when the service stops accepting the credential the console was using. */
export const CREDENTIAL_REJECTED = 'Your API key or session is no longer valid: it was revoked or has expired. Sign in again.';
/** Shown on the sign-in page when the console opens with a session cookie the service no longer accepts. */
export const SESSION_EXPIRED = 'Your sign-in session has expired or was ended. Sign in again.';

interface SessionState {
  readonly me: Me | null;
  readonly checking: boolean;
  readonly error: unknown;
  /** Why the console signed out by itself (a rejected credential), for the sign-in page; null otherwise. */
  readonly notice: string | null;
  signInWithKey(key: string): Promise<void>;
  /** Signs out; `notice`, when given, is shown on the sign-in page. */
  signOut(notice?: string): Promise<void>;
  can(p: Permission): boolean;
}

const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** Who is signed in: an API key kept in sessionStorage, or an SSO session cookie. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(true);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  const meRef = useRef<Me | null>(null);
  meRef.current = me;

  // Any call rejected for its credential (a revoked key, an expired session) signs out: otherwise every page
  // would keep showing the 401 while the console looks signed in.
  useEffect(
    () =>
      onUnauthorized((sentKey) => {
        // A late answer to a request sent with an earlier key says nothing about the one now in use.
        if (sentKey !== storedKey()) return;
        const wasSignedIn = meRef.current !== null || sentKey !== null;
        storeKey(null);
        meRef.current = null;
        setMe(null);
        if (wasSignedIn) setNotice(CREDENTIAL_REJECTED);
      }),
    [],
  );

  useEffect(() => {
    call((c) => c.GET('/v1/me'))
      .then(setMe)
      .catch((err: unknown) => {
        // A 401 is "signed out" (a stale stored key was forgotten by the listener above), not an error; a
        // session cookie that expired or was ended is said so.
        if (!(err instanceof ApiError && err.status === 401)) setError(err);
        else if ((err.details as { reason?: unknown } | undefined)?.reason === 'session_expired') setNotice(SESSION_EXPIRED);
      })
      .finally(() => setChecking(false));
  }, []);

  const signInWithKey = useCallback(async (key: string) => {
    const who = await call((c) => c.GET('/v1/me'), { key });
    storeKey(key);
    setError(undefined);
    setNotice(null);
    setMe(who);
  }, []);

  const signOut = useCallback(
    async (why?: string) => {
      const wasSession = me?.kind === 'session';
      storeKey(null);
      setMe(null);
      setNotice(why ?? null);
      if (wasSession) await call((c) => c.POST('/v1/auth/logout'), { key: null }).catch(() => undefined);
    },
    [me],
  );

  const can = useCallback((p: Permission) => !!me && (me.permissions.includes('admin') || me.permissions.includes(p)), [me]);

  return <SessionContext.Provider value={{ me, checking, error, notice, signInWithKey, signOut, can }}>{children}</SessionContext.Provider>;
}
