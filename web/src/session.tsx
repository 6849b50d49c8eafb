import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { ApiError, api, storeKey, storedKey } from './api.ts';

export type Permission = 'query' | 'connector:read' | 'connector:write' | 'admin';

export interface Me {
  readonly tenant_id: string;
  readonly kind: 'api_key' | 'session' | 'bootstrap';
  readonly id: string;
  readonly user_id: string;
  readonly permissions: readonly Permission[];
}

interface SessionState {
  readonly me: Me | null;
  readonly checking: boolean;
  readonly error: unknown;
  signInWithKey(key: string): Promise<void>;
  signOut(): Promise<void>;
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

  useEffect(() => {
    api<Me>('/v1/me')
      .then(setMe)
      .catch((err: unknown) => {
        // A stale key: forget it. No session at all is simply "signed out".
        if (err instanceof ApiError && err.status === 401) {
          if (storedKey()) storeKey(null);
        } else setError(err);
      })
      .finally(() => setChecking(false));
  }, []);

  const signInWithKey = useCallback(async (key: string) => {
    const who = await api<Me>('/v1/me', { key });
    storeKey(key);
    setError(undefined);
    setMe(who);
  }, []);

  const signOut = useCallback(async () => {
    const wasSession = me?.kind === 'session';
    storeKey(null);
    setMe(null);
    if (wasSession) await api('/v1/auth/logout', { method: 'POST', key: null }).catch(() => undefined);
  }, [me]);

  const can = useCallback((p: Permission) => !!me && (me.permissions.includes('admin') || me.permissions.includes(p)), [me]);

  return <SessionContext.Provider value={{ me, checking, error, signInWithKey, signOut, can }}>{children}</SessionContext.Provider>;
}
