/** The session cookie: HttpOnly, Secure, SameSite=Lax (a top-level redirect from the IdP still carries it). */
export const SESSION_COOKIE = 'atrium_session';
/** Binds an OIDC sign-in to the browser that started it (login CSRF protection). */
export const FLOW_COOKIE = 'atrium_sso_flow';
/** Counts sign-ins this browser started without finishing, to catch redirect loops. */
export const ATTEMPTS_COOKIE = 'atrium_sso_attempts';

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) {
      const v = part.slice(i + 1).trim();
      try {
        return decodeURIComponent(v.replace(/^"|"$/g, ''));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function serializeCookie(name: string, value: string, opts: { maxAgeSeconds: number; path?: string }): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${opts.path ?? '/'}`,
    `Max-Age=${Math.max(0, Math.floor(opts.maxAgeSeconds))}`,
    'HttpOnly',
    'Secure',
    'SameSite=Lax',
  ];
  if (opts.maxAgeSeconds <= 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  return parts.join('; ');
}
