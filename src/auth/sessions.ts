import { randomBytes } from 'node:crypto';
import { type Principal, ROLE_PERMISSIONS, type Role } from '../access/index.ts';
import type { Queryable } from '../platform/db/executor.ts';
import { AppError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { readCookie, SESSION_COOKIE } from './cookies.ts';
import { type ProviderType, sha256 } from './store.ts';

/** Starts a session; returns the cookie token (256 bits, stored only as its SHA-256). */
export async function createSession(
  db: Queryable,
  input: { tenantId: string; userId: string; provider: ProviderType; ttlSeconds: number; now: Date },
): Promise<{ id: string; token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const id = newId('ses');
  const expiresAt = new Date(input.now.getTime() + input.ttlSeconds * 1000);
  // Housekeeping: sessions past their expiry (or revoked) for a day are of no use, even to an audit (which has its own rows).
  const cutoff = new Date(input.now.getTime() - 86_400_000).toISOString();
  await db.query('DELETE FROM auth_sessions WHERE expires_at < $1 OR revoked_at < $1', [cutoff]);
  await db.query(
    `INSERT INTO auth_sessions (id, tenant_id, user_id, token_hash, provider_type, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, input.tenantId, input.userId, sha256(token), input.provider, input.now.toISOString(), expiresAt.toISOString()],
  );
  return { id, token, expiresAt };
}

/**
 * The principal of a session token: the user's current role decides the permissions (a role change at the IdP
 * applies at the next sign-in; disabling a user or revoking a session applies at once). Null when unknown,
 * expired, revoked or the user is disabled.
 */
export async function sessionPrincipal(db: Queryable, token: string, now: Date): Promise<Principal | null> {
  if (token.length < 20 || token.length > 100) return null;
  const r = await db.query<{ id: string; tenant_id: string; user_id: string; role: Role; email: string }>(
    `SELECT s.id, s.tenant_id, s.user_id, u.role, u.email FROM auth_sessions s
     JOIN users u ON u.id = s.user_id AND u.tenant_id = s.tenant_id
     WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 AND u.disabled_at IS NULL`,
    [sha256(token), now.toISOString()],
  );
  const row = r.rows[0];
  if (!row) return null;
  return {
    kind: 'session',
    id: row.id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    permissions: new Set(ROLE_PERMISSIONS[row.role] ?? []),
    // The signed-in person: retrieval answers their view (their email, IdP groups and vendor memberships).
    email: row.email.trim().toLowerCase(),
  };
}

/** Revokes the session of a token; returns its tenant and user when there was a live one. */
export async function revokeSession(db: Queryable, token: string, now: Date): Promise<{ id: string; tenantId: string; userId: string } | null> {
  const r = await db.query<{ id: string; tenant_id: string; user_id: string }>(
    `UPDATE auth_sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL RETURNING id, tenant_id, user_id`,
    [sha256(token), now.toISOString()],
  );
  const row = r.rows[0];
  return row ? { id: row.id, tenantId: row.tenant_id, userId: row.user_id } : null;
}

/** 401 for a session cookie that expired, was signed out or revoked: `details.reason: session_expired`. */
export const SESSION_ENDED = () =>
  new AppError('unauthenticated', 401, 'your sign-in session has expired or was ended: sign in again (or send an API key)', { details: { reason: 'session_expired' } });

/**
 * The `atrium_session` cookie as a credential for every API route (added to AppDeps.authenticators): a signed-in
 * user calls the API with the permissions of their role.
 */
export function createSessionAuthenticator(deps: { db: Queryable; clock: { now(): Date } }) {
  return async (request: { headers: { cookie?: string | undefined } }): Promise<Principal | null> => {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (!token) return null;
    const principal = await sessionPrincipal(deps.db, token, deps.clock.now());
    // A cookie the service no longer accepts: the console says so instead of showing a bare sign-in page.
    if (!principal) throw SESSION_ENDED();
    return principal;
  };
}
