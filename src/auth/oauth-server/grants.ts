import { can, type Permission, type Principal, ROLE_PERMISSIONS, type Role } from '../../access/index.ts';
import { recordAuditBy } from '../../audit/index.ts';
import type { Queryable } from '../../platform/db/executor.ts';
import { Errors } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { OAuthAudit } from './audit-actions.ts';
import { GRANT_TTL_S } from './tokens.ts';

/** Who consented: an SSO user, or the holder of the API key pasted on the consent page. */
export type GrantSubject =
  | { readonly kind: 'user'; readonly tenantId: string; readonly userId: string; readonly email: string; readonly permissions: readonly Permission[] }
  | { readonly kind: 'api_key'; readonly tenantId: string; readonly apiKeyId: string; readonly keyName: string; readonly email: string | null; readonly permissions: readonly Permission[] };

/**
 * What a grant may carry: the subject's permissions but `act_as` (a token reads as its person, never as whoever a
 * client names).
 */
export function grantablePermissions(permissions: Iterable<Permission>): Permission[] {
  return [...new Set(permissions)].filter((p) => p !== 'act_as').sort();
}

export interface GrantRow {
  readonly id: string;
  readonly tenantId: string;
  readonly clientId: string;
  readonly userId: string | null;
  readonly apiKeyId: string | null;
  readonly email: string | null;
  readonly permissions: Permission[];
  readonly scope: string;
  readonly resource: string;
  readonly expiresAt: Date;
  readonly revokedAt: Date | null;
}

export async function createGrant(
  db: Queryable,
  input: { subject: GrantSubject; clientId: string; scope: string; resource: string; redirectUri: string; now: Date },
): Promise<GrantRow> {
  const id = newId('ogr');
  const s = input.subject;
  const permissions = grantablePermissions(s.permissions);
  const expiresAt = new Date(input.now.getTime() + GRANT_TTL_S * 1000);
  await db.query(
    `INSERT INTO oauth_grants (id, tenant_id, client_id, user_id, api_key_id, email, permissions, scope, resource, redirect_uri, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      id,
      s.tenantId,
      input.clientId,
      s.kind === 'user' ? s.userId : null,
      s.kind === 'api_key' ? s.apiKeyId : null,
      s.email,
      permissions,
      input.scope,
      input.resource,
      input.redirectUri,
      input.now.toISOString(),
      expiresAt.toISOString(),
    ],
  );
  return {
    id,
    tenantId: s.tenantId,
    clientId: input.clientId,
    userId: s.kind === 'user' ? s.userId : null,
    apiKeyId: s.kind === 'api_key' ? s.apiKeyId : null,
    email: s.email,
    permissions,
    scope: input.scope,
    resource: input.resource,
    expiresAt,
    revokedAt: null,
  };
}

interface LiveRow {
  id: string;
  tenant_id: string;
  client_id: string;
  permissions: Permission[];
  user_id: string | null;
  api_key_id: string | null;
  user_email: string | null;
  role: Role | null;
  user_disabled: boolean | null;
  key_name: string | null;
  key_permissions: Permission[] | null;
  key_email: string | null;
  key_revoked: boolean | null;
}

const LIVE_SELECT = `SELECT g.id, g.tenant_id, g.client_id, g.permissions, g.user_id, g.api_key_id,
    u.email AS user_email, u.role, (u.disabled_at IS NOT NULL) AS user_disabled,
    k.name AS key_name, k.permissions AS key_permissions, k.identity_email AS key_email, (k.revoked_at IS NOT NULL) AS key_revoked
  FROM oauth_grants g
  LEFT JOIN users u ON u.id = g.user_id AND u.tenant_id = g.tenant_id
  LEFT JOIN api_keys k ON k.id = g.api_key_id AND k.tenant_id = g.tenant_id`;

/**
 * The principal a grant stands for now: the consented permissions intersected with what the person holds today
 * (a role lowered at the IdP, a key's permissions), null once the user is disabled or the key revoked.
 */
function principalOfRow(row: LiveRow): Principal | null {
  let current: readonly Permission[];
  let userId: string;
  let email: string | null;
  if (row.user_id) {
    if (!row.role || row.user_disabled || !row.user_email) return null;
    current = ROLE_PERMISSIONS[row.role] ?? [];
    userId = row.user_id;
    email = row.user_email.trim().toLowerCase();
  } else {
    if (!row.key_permissions || row.key_revoked || !row.key_name) return null;
    current = row.key_permissions;
    userId = row.key_name;
    email = row.key_email ?? null;
  }
  const granted = new Set(row.permissions);
  return { kind: 'oauth', id: row.id, tenantId: row.tenant_id, userId, email, permissions: new Set(current.filter((p) => granted.has(p) && p !== 'act_as')) };
}

/** The live grant behind an access token (by hash), as a principal; null when expired, revoked or its subject lapsed. */
export async function principalForAccessToken(db: Queryable, tokenHash: string, now: Date): Promise<Principal | null> {
  const r = await db.query<LiveRow>(
    `${LIVE_SELECT} JOIN oauth_tokens t ON t.grant_id = g.id
     WHERE t.token_hash = $1 AND t.kind = 'access' AND t.expires_at > $2 AND g.revoked_at IS NULL AND g.expires_at > $2`,
    [tokenHash, now.toISOString()],
  );
  const row = r.rows[0];
  return row ? principalOfRow(row) : null;
}

/** A grant's current principal by id (any state): null with the reason the grant can no longer be used. */
export async function grantState(db: Queryable, grantId: string, now: Date): Promise<{ principal: Principal; clientId: string } | { lapsed: string }> {
  const r = await db.query<LiveRow & { revoked_at: Date | null; expires_at: Date }>(`${LIVE_SELECT.replace('SELECT ', 'SELECT g.revoked_at, g.expires_at, ')} WHERE g.id = $1`, [grantId]);
  const row = r.rows[0];
  if (!row) return { lapsed: 'grant_not_found' };
  if (row.revoked_at) return { lapsed: 'grant_revoked' };
  if (new Date(row.expires_at).getTime() <= now.getTime()) return { lapsed: 'grant_expired' };
  const principal = principalOfRow(row);
  if (!principal) return { lapsed: row.user_id ? 'user_disabled' : 'api_key_revoked' };
  return { principal, clientId: row.client_id };
}

/** Revokes a grant (its tokens stop working at once); returns its tenant when it was live. */
export async function revokeGrant(
  db: Queryable,
  input: { grantId: string; tenantId?: string; owner?: GrantOwner | undefined; by: string; reason: string; now: Date },
): Promise<{ id: string; tenantId: string; clientId: string; userId: string | null; apiKeyId: string | null; email: string | null } | null> {
  const r = await db.query<{ id: string; tenant_id: string; client_id: string; user_id: string | null; api_key_id: string | null; email: string | null }>(
    `UPDATE oauth_grants SET revoked_at = $2, revoked_by = $3, revoke_reason = $4
     WHERE id = $1 AND revoked_at IS NULL AND ($5::text IS NULL OR tenant_id = $5)
       AND (($6::text IS NULL AND $7::text IS NULL) OR user_id = $6 OR api_key_id = $7)
     RETURNING id, tenant_id, client_id, user_id, api_key_id, email`,
    [input.grantId, input.now.toISOString(), input.by, input.reason, input.tenantId ?? null, ...ownerParams(input.owner)],
  );
  const row = r.rows[0];
  if (!row) return null;
  await db.query('DELETE FROM oauth_tokens WHERE grant_id = $1', [row.id]);
  return { id: row.id, tenantId: row.tenant_id, clientId: row.client_id, userId: row.user_id, apiKeyId: row.api_key_id, email: row.email };
}

/** A person's own grants: an SSO user's, or those made with one API key. */
export type GrantOwner = { readonly userId: string } | { readonly apiKeyId: string };

function ownerParams(owner: GrantOwner | undefined): [string | null, string | null] {
  return [owner && 'userId' in owner ? owner.userId : null, owner && 'apiKeyId' in owner ? owner.apiKeyId : null];
}

export interface GrantView {
  grant_id: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  subject: { kind: 'user' | 'api_key'; id: string; email: string | null };
  permissions: Permission[];
  scope: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
  revoked_at: string | null;
}

const iso = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());

/** A tenant's grants, newest first; `owner` narrows to one person's (their SSO user id or API key id). */
export async function listGrants(
  db: Queryable,
  tenantId: string,
  opts: { owner?: GrantOwner | undefined; includeRevoked: boolean; limit: number },
): Promise<GrantView[]> {
  const r = await db.query<Record<string, unknown>>(
    `SELECT g.*, c.client_name FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
     WHERE g.tenant_id = $1 AND ($2::boolean OR g.revoked_at IS NULL)
       AND (($3::text IS NULL AND $4::text IS NULL) OR g.user_id = $3 OR g.api_key_id = $4)
     ORDER BY g.created_at DESC, g.id LIMIT $5`,
    [tenantId, opts.includeRevoked, ...ownerParams(opts.owner), opts.limit],
  );
  return r.rows.map((g) => ({
    grant_id: String(g.id),
    client_id: String(g.client_id),
    client_name: String(g.client_name),
    redirect_uri: String(g.redirect_uri),
    subject: g.user_id
      ? { kind: 'user' as const, id: String(g.user_id), email: (g.email as string | null) ?? null }
      : { kind: 'api_key' as const, id: String(g.api_key_id), email: (g.email as string | null) ?? null },
    permissions: g.permissions as Permission[],
    scope: String(g.scope),
    created_at: iso(g.created_at)!,
    last_used_at: iso(g.last_used_at),
    expires_at: iso(g.expires_at)!,
    revoked_at: iso(g.revoked_at),
  }));
}

/** Whose grants a principal sees and revokes: every grant of the tenant for an admin, else its own (session user or API key). */
function ownerFor(p: Principal): GrantOwner | undefined {
  return can(p, 'admin') ? undefined : p.kind === 'session' ? { userId: p.userId } : { apiKeyId: p.id };
}

/** The grants `p` may see (see `ownerFor`). */
export async function listGrantsFor(db: Queryable, p: Principal, opts: { includeRevoked: boolean; limit: number }): Promise<GrantView[]> {
  return listGrants(db, p.tenantId, { owner: ownerFor(p), ...opts });
}

/** `p` revokes a grant it may see (404 otherwise, and for one already revoked); audits `mcp.oauth.revoked`. */
export async function revokeGrantAs(db: Queryable, p: Principal, grantId: string, now: Date): Promise<void> {
  const revoked = await revokeGrant(db, { grantId, tenantId: p.tenantId, owner: ownerFor(p), by: `${p.kind}:${p.id}`, reason: 'revoked_by_user', now });
  if (!revoked) throw Errors.notFound('grant', grantId);
  await recordAuditBy(db, p, OAuthAudit.revoked, { grant_id: revoked.id, client_id: revoked.clientId, email: revoked.email, reason: 'revoked_by_user' }, now);
}
